//! The one error every command returns: `{code, message}`, plus what the service said.

use serde::Serialize;
use subscriber_protocol::{ErrorBody, FieldError};

/// A failed command as the UI shows it: the message in plain words, the stable `code`, and
/// for a service error its HTTP status and request id (which a user can quote).
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
#[error("{message} ({code})")]
pub struct CommandError {
    pub code: String,
    pub message: String,
    /// The service's `X-Request-Id` of the failed call, when the service answered.
    pub request_id: Option<String>,
    /// The HTTP status, when the service answered.
    pub status: Option<u16>,
    /// Rejected fields of a request, by JSON name (`firstName`).
    pub details: Vec<FieldError>,
}

/// Codes of failures that happen in the app rather than in the service (which has its own,
/// `subscriber_protocol::codes`).
pub mod codes {
    /// The service does not answer (connection refused, timeout, DNS).
    pub const UNREACHABLE: &str = "unreachable";
    /// No environment chosen yet.
    pub const NOT_CONNECTED: &str = "not_connected";
    /// The command needs a signed-in session.
    pub const NOT_SIGNED_IN: &str = "not_signed_in";
    /// The OS keyring cannot be used (no Secret Service, locked, refused).
    pub const KEYRING_UNAVAILABLE: &str = "keyring_unavailable";
    /// Log-in without a key, and no secret is remembered for that e-mail.
    pub const NO_REMEMBERED_SECRET: &str = "no_remembered_secret";
    /// Something the app checks before sending (an empty e-mail, a bad URL).
    pub const INVALID_INPUT: &str = "invalid_input";
    /// The service answered with something that is not the contract's JSON.
    pub const UNEXPECTED_RESPONSE: &str = "unexpected_response";
    /// The embedded sandbox could not start.
    pub const SANDBOX_FAILED: &str = "sandbox_failed";
    /// Reading or writing a local file failed.
    pub const IO: &str = "io_error";
    /// A stream or export that was cancelled.
    pub const CANCELLED: &str = "cancelled";
    /// A link to open that is not a page of the connected service.
    pub const FOREIGN_URL: &str = "foreign_url";
    /// The subscriber has not enrolled as a merchant yet.
    pub const NO_MERCHANT: &str = "no_merchant";
}

impl CommandError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self { code: code.to_owned(), message: message.into(), request_id: None, status: None, details: Vec::new() }
    }

    pub fn not_signed_in() -> Self {
        Self::new(codes::NOT_SIGNED_IN, "sign in first")
    }

    pub fn not_connected() -> Self {
        Self::new(codes::NOT_CONNECTED, "choose an environment first")
    }

    pub fn invalid_input(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            details: vec![FieldError { field: field.to_owned(), message: message.clone() }],
            ..Self::new(codes::INVALID_INPUT, format!("{field}: {message}"))
        }
    }

    /// The service's error body, as it sent it.
    pub fn from_service(status: u16, body: ErrorBody, header_request_id: Option<String>) -> Self {
        Self {
            code: body.code,
            message: body.error,
            request_id: body.request_id.or(header_request_id),
            status: Some(status),
            details: body.details,
        }
    }

    pub fn is(&self, code: &str) -> bool {
        self.code == code
    }

    /// The message of one field, for inline validation.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.details.iter().find(|detail| detail.field == name).map(|detail| detail.message.as_str())
    }
}

/// What the typed client reports, as the UI shows it.
impl From<subscriber_client::Error> for CommandError {
    fn from(error: subscriber_client::Error) -> Self {
        use subscriber_client::Error;
        match error {
            Error::Api(api) => Self {
                code: api.code,
                message: api.message,
                request_id: api.request_id,
                status: Some(api.status.as_u16()),
                details: api.details,
            },
            Error::Transport { timed_out: true, .. } => {
                Self::new(codes::UNREACHABLE, "the service did not answer in time")
            }
            Error::Transport { .. } => Self::new(codes::UNREACHABLE, "the service cannot be reached"),
            Error::Decode { status, path, message, request_id, .. } => Self {
                request_id,
                status: Some(status.as_u16()),
                ..Self::new(
                    codes::UNEXPECTED_RESPONSE,
                    format!("the service's answer was not understood (at {path}: {message})"),
                )
            },
            Error::InvalidInput { field, message } => Self::invalid_input(&field, message),
            other => Self::new(codes::UNEXPECTED_RESPONSE, other.to_string()),
        }
    }
}
