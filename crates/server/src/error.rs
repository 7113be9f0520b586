//! The one error type of the service. Every failure, from a handler, an extractor or the
//! router itself, leaves as the contract's JSON: `{error, code, requestId, details?}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use subscriber_protocol::{CardId, ErrorBody, FieldError, MerchantId, codes};

use crate::request_id::current_request_id;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    InvalidRequest { message: String, details: Vec<FieldError> },
    /// A version the API does not have, in the `Subscriber-Version` header or a field.
    #[error("{message}")]
    UnknownVersion { message: String, field: String },
    #[error("{0}")]
    Unauthorized(String),
    #[error("the token has expired: log in again for a new one")]
    TokenExpired,
    /// A token issued before its subscriber's last secret rotation (`token_expired`, so a
    /// client logs in again as it does for an expired one).
    #[error("the token was revoked by a rotation of the secret: log in again with the new secret")]
    TokenRevoked,
    #[error("the e-mail address or the API key is wrong")]
    InvalidCredentials,
    #[error("{0}")]
    Forbidden(String),
    #[error("{message}")]
    Locked { message: String, until: DateTime<Utc> },
    #[error("{0}")]
    PanNotAccepted(String),
    #[error("{0}")]
    NotFound(String),
    #[error("this method is not allowed on this path")]
    MethodNotAllowed,
    #[error("{message}")]
    Conflict { message: String, card_id: Option<CardId>, merchant_id: Option<MerchantId> },
    /// A bank account whose consent ran out (409 `reauth_required`).
    #[error("{0}")]
    ReauthRequired(String),
    #[error("the request body is larger than 64 KiB")]
    PayloadTooLarge,
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("too many requests: retry after {retry_after_seconds} s")]
    RateLimited { retry_after_seconds: u64 },
    /// Busy for now (the secret-hashing queue is full, the database is out of reach, full or
    /// hung); retry after `Retry-After`. Nothing was changed.
    #[error("{message}")]
    Unavailable { message: String, retry_after_seconds: u64 },
    #[error("the request took too long")]
    Timeout,
    /// The operation needs a provider this environment has not configured (501): an
    /// identity source, a bank connection.
    #[error("{0}")]
    NotConfigured(String),
    /// Never shown: the cause is logged with the request id, the client sees a generic text.
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidRequest { message: message.into(), details: Vec::new() }
    }

    pub fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let detail = FieldError { field: field.into(), message: message.into() };
        Self::InvalidRequest { message: format!("{}: {}", detail.field, detail.message), details: vec![detail] }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound(message.into())
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::Conflict { message: message.into(), card_id: None, merchant_id: None }
    }

    /// A failure the client cannot fix: 500, unless a database outage is somewhere in its
    /// causes (a storage error wrapped on the way), which is 503 with `Retry-After`.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        let cause = cause.into();
        match crate::storage::outage::outage_in(cause.as_ref()) {
            Some(outage) => Self::outage(outage, &cause),
            None => Self::Internal(cause),
        }
    }

    /// 503 for a database outage; the cause is logged (as a warning: it passes).
    pub fn outage(outage: crate::storage::Outage, cause: &dyn std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "database unavailable: answered 503");
        let retry_after_seconds = outage.retry_after_seconds();
        Self::Unavailable {
            message: format!("{}: nothing was changed, retry after {retry_after_seconds} s", outage.reason()),
            retry_after_seconds,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::InvalidRequest { .. } | Self::UnknownVersion { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) | Self::TokenExpired | Self::TokenRevoked | Self::InvalidCredentials => {
                StatusCode::UNAUTHORIZED
            }
            Self::Forbidden(_) | Self::Locked { .. } | Self::PanNotAccepted(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Conflict { .. } | Self::ReauthRequired(_) => StatusCode::CONFLICT,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Timeout => StatusCode::REQUEST_TIMEOUT,
            Self::NotConfigured(_) => StatusCode::NOT_IMPLEMENTED,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidRequest { .. } => codes::INVALID_REQUEST,
            Self::UnknownVersion { .. } => codes::UNKNOWN_VERSION,
            Self::Unauthorized(_) => codes::UNAUTHORIZED,
            Self::TokenExpired | Self::TokenRevoked => codes::TOKEN_EXPIRED,
            Self::InvalidCredentials => codes::INVALID_CREDENTIALS,
            Self::Forbidden(_) | Self::Locked { .. } => codes::FORBIDDEN,
            Self::PanNotAccepted(_) => codes::PAN_NOT_ACCEPTED,
            Self::NotFound(_) => codes::NOT_FOUND,
            Self::MethodNotAllowed => codes::METHOD_NOT_ALLOWED,
            Self::Conflict { .. } => codes::CONFLICT,
            Self::ReauthRequired(_) => codes::REAUTH_REQUIRED,
            Self::PayloadTooLarge => codes::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType(_) => codes::UNSUPPORTED_MEDIA_TYPE,
            Self::RateLimited { .. } => codes::RATE_LIMITED,
            Self::Unavailable { .. } => codes::UNAVAILABLE,
            Self::Timeout => codes::TIMEOUT,
            Self::NotConfigured(_) => codes::NOT_CONFIGURED,
            Self::Internal(_) => codes::INTERNAL,
        }
    }

    /// The body a client sees.
    pub fn body(&self) -> ErrorBody {
        let mut body = ErrorBody {
            error: self.to_string(),
            code: self.code().to_owned(),
            request_id: current_request_id(),
            details: Vec::new(),
            card_id: None,
            merchant_id: None,
            locked_until: None,
        };
        match self {
            Self::InvalidRequest { details, .. } => body.details = details.clone(),
            Self::UnknownVersion { message, field } => {
                body.details = vec![FieldError { field: field.clone(), message: message.clone() }];
            }
            Self::Conflict { card_id, merchant_id, .. } => {
                body.card_id = *card_id;
                body.merchant_id = *merchant_id;
            }
            Self::Locked { until, .. } => body.locked_until = Some(*until),
            _ => {}
        }
        body
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let Self::Internal(cause) = &self {
            tracing::error!(error = format!("{cause:#}"), "request failed");
        }
        let status = self.status();
        let retry_after = match &self {
            Self::RateLimited { retry_after_seconds } | Self::Unavailable { retry_after_seconds, .. } => {
                Some(*retry_after_seconds)
            }
            _ => None,
        };
        let body = self.body();
        let code = crate::request_history::ErrorCode(body.code.clone());
        let mut response = (status, axum::Json(body)).into_response();
        response.extensions_mut().insert(code);
        if let Some(seconds) = retry_after
            && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response.extensions_mut().insert(RenderedError);
        response
    }
}

/// Marks a response whose body is already the contract's error JSON, so the router-level
/// fallback does not render it again.
#[derive(Debug, Clone, Copy)]
pub struct RenderedError;

impl From<crate::storage::StorageError> for ApiError {
    fn from(error: crate::storage::StorageError) -> Self {
        match error.outage() {
            Some(outage) => Self::outage(outage, &error),
            None => Self::Internal(error.into()),
        }
    }
}

/// Every problem of a request body, collected before answering (the rules are
/// `subscriber_protocol::rules`).
pub use subscriber_protocol::rules::Violations as Validation;

impl From<Validation> for ApiError {
    fn from(violations: Validation) -> Self {
        if violations.is_empty() {
            return ApiError::invalid("the request is not valid");
        }
        ApiError::InvalidRequest { message: violations.message(), details: violations.into_details() }
    }
}
