use crate::{CardId, MerchantId};
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

/// A success body: the contract puts `"error": null` beside every success payload.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Success<T> {
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::null_schema, required = true))]
    pub error: Option<()>,
    #[serde(flatten)]
    pub body: T,
}

impl<T> Success<T> {
    pub fn new(body: T) -> Self {
        Self { error: None, body }
    }
}

/// Every failure: `error` (a message for people), `code` (stable, for programs) and
/// `requestId` (to quote when asking for help).
#[apply(wire!)]
pub struct ErrorBody {
    /// What went wrong, in words.
    pub error: String,
    /// Why, stable and snake_case: `invalid_request`, `unknown_version`, `unauthorized`, `token_expired`, `invalid_credentials`, `forbidden`, `pan_not_accepted`, `not_found`, `method_not_allowed`, `conflict`, `payload_too_large`, `unsupported_media_type`, `rate_limited`, `timeout`, `unavailable`, `not_configured` or `internal`.
    pub code: String,
    /// The request's id, also in the `X-Request-Id` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub request_id: Option<String>,
    /// For invalid input: each field that failed and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<FieldError>>", optional))]
    pub details: Vec<FieldError>,
    /// The existing card on a duplicate enrollment (409).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub card_id: Option<CardId>,
    /// The existing merchant on a second merchant enrollment (409).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub merchant_id: Option<MerchantId>,
    /// When a locked person can try again (403).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub locked_until: Option<chrono::DateTime<chrono::Utc>>,
}

/// One rejected field of a request.
#[apply(wire!)]
#[derive(Eq)]
pub struct FieldError {
    /// The field, as a path into the request (`location.zip`, `answers[0].choiceId`) or a query parameter's name.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

/// Stable error codes of the contract.
pub mod codes {
    pub const INVALID_REQUEST: &str = "invalid_request";
    pub const UNAUTHORIZED: &str = "unauthorized";
    pub const TOKEN_EXPIRED: &str = "token_expired";
    pub const INVALID_CREDENTIALS: &str = "invalid_credentials";
    pub const FORBIDDEN: &str = "forbidden";
    pub const PAN_NOT_ACCEPTED: &str = "pan_not_accepted";
    pub const NOT_FOUND: &str = "not_found";
    pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
    pub const CONFLICT: &str = "conflict";
    pub const PAYLOAD_TOO_LARGE: &str = "payload_too_large";
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported_media_type";
    pub const RATE_LIMITED: &str = "rate_limited";
    pub const TIMEOUT: &str = "timeout";
    /// 503: the service is busy for now (e.g. its secret-hashing queue is full); see `Retry-After`.
    pub const UNAVAILABLE: &str = "unavailable";
    pub const INTERNAL: &str = "internal";
    /// 400: `Subscriber-Version` (or an `apiVersion`) names no version of the API.
    pub const UNKNOWN_VERSION: &str = "unknown_version";
    /// 501: the operation needs a provider this deployment has not configured (outside the
    /// sandbox: an identity source for persons, a bank connection for accounts).
    pub const NOT_CONFIGURED: &str = "not_configured";
    /// 409: the bank account's consent ran out; the person renews it through `POST
    /// /account/{accountId}/reauth` before its data can be read again.
    pub const REAUTH_REQUIRED: &str = "reauth_required";
}

/// Paging of a list: the opaque cursor of the page before.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
pub struct PageQuery {
    /// The most items on a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Where the page starts: the `nextCursor` of the page before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// The page sizes of lists: a `nextCursor` of `null` marks the last page.
pub const DEFAULT_PAGE_LIMIT: u32 = 500;
pub const MAX_PAGE_LIMIT: u32 = 5000;
