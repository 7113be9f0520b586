//! The one error type of the client.

use std::time::Duration;
use subscriber_protocol::{CardId, MerchantId};

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use subscriber_protocol::FieldError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Anything a call can fail with. `#[non_exhaustive]`: match the variants you handle and
/// keep a `_` arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The service answered with an error status and (normally) its JSON error body.
    #[error("{0}")]
    Api(Box<ApiError>),

    /// The service could not be reached, the connection broke, or the call timed out
    /// (after the client's own retries).
    #[error("{endpoint}: {}: {source}", if *.timed_out { "timed out" } else { "could not reach the service" })]
    Transport {
        endpoint: String,
        timed_out: bool,
        #[source]
        source: BoxError,
    },

    /// A success body did not have the shape of the contract. `path` names the JSON path
    /// that failed, e.g. `transactions[3].amount`.
    #[error("{endpoint}: unexpected response at `{path}`: {message}")]
    Decode { endpoint: String, status: StatusCode, path: String, message: String, request_id: Option<String> },

    /// Rejected before sending: the request could never succeed (a PAN failing Luhn, a month
    /// of 13, an empty name). `field` uses the wire name (`pan`, `expMonth`, `location.zip`).
    #[error("invalid {field}: {message}")]
    InvalidInput { field: String, message: String },
}

pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The service's JSON error body (`{error, code, requestId, details}`) with its HTTP status.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    /// The contract's stable code: `invalid_request`, `token_expired`, `not_found`, `conflict`...
    /// `unexpected_response` when the body was not the service's error JSON (e.g. a proxy's page).
    pub code: String,
    /// The service's human-readable message.
    pub message: String,
    /// The id to quote to support; also sent as the `X-Request-Id` response header.
    pub request_id: Option<String>,
    /// One entry per rejected field on a 400.
    pub details: Vec<FieldError>,
    /// The existing card on a duplicate card enrollment (409).
    pub card_id: Option<CardId>,
    /// The existing merchant on a second merchant enrollment (409).
    pub merchant_id: Option<MerchantId>,
    /// When a locked person may try again (403).
    pub locked_until: Option<DateTime<Utc>>,
    /// From `Retry-After` on 429 and 503.
    pub retry_after: Option<Duration>,
    /// `METHOD /route/{template}` of the call.
    pub endpoint: String,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} {}: {}", self.endpoint, self.status.as_u16(), self.code, self.message)?;
        if let Some(request_id) = &self.request_id {
            write!(f, " (request {request_id})")?;
        }
        Ok(())
    }
}

impl Error {
    pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidInput { field: field.into(), message: message.into() }
    }

    /// The service's error, when the call got one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Self::Api(api) => Some(api),
            _ => None,
        }
    }

    /// The HTTP status of the answer, when there was one.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Self::Api(api) => Some(api.status),
            Self::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The contract's error code, when the service sent one.
    pub fn code(&self) -> Option<&str> {
        self.api().map(|api| api.code.as_str())
    }

    pub fn request_id(&self) -> Option<&str> {
        match self {
            Self::Api(api) => api.request_id.as_deref(),
            Self::Decode { request_id, .. } => request_id.as_deref(),
            _ => None,
        }
    }
}

impl Error {
    /// The same failure for another caller: the transport's cause is kept as its message.
    pub(crate) fn duplicate(&self) -> Self {
        match self {
            Self::Api(api) => Self::Api(api.clone()),
            Self::Transport { endpoint, timed_out, source } => {
                Self::Transport { endpoint: endpoint.clone(), timed_out: *timed_out, source: source.to_string().into() }
            }
            Self::Decode { endpoint, status, path, message, request_id } => Self::Decode {
                endpoint: endpoint.clone(),
                status: *status,
                path: path.clone(),
                message: message.clone(),
                request_id: request_id.clone(),
            },
            Self::InvalidInput { field, message } => {
                Self::InvalidInput { field: field.clone(), message: message.clone() }
            }
        }
    }
}

impl From<ApiError> for Error {
    fn from(error: ApiError) -> Self {
        Self::Api(Box::new(error))
    }
}
