use chrono::{DateTime, NaiveDate, Utc};
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

use crate::versions::ApiVersion;

/// A new subscriber account. The `Subscriber-Version` header of this request pins the account
/// to that version; without it the account starts on `2026-11-21`.
#[apply(wire!)]
#[derive(Eq)]
pub struct SignupRequest {
    /// The account's e-mail address, used to log in; one account per address.
    pub email: String,
}

/// The new account's credentials. The secret is shown only here: the service keeps a one-way
/// hash of it.
// `Debug` hides the secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignupResponse {
    /// The account's public identifier (`cli_…`).
    pub client_id: String,
    /// The secret API key (`sk_test_…` in the sandbox, `sk_live_…` elsewhere): send it as `apiKey`
    /// to log in. Shown once.
    pub secret: String,
    /// The account's publishable key (`pk_…`), safe to embed in client-side code.
    pub public_key: String,
    /// The e-mail address, as the service stored it (trimmed, lower case).
    pub email: String,
    /// The environment the account lives in.
    pub environment: Environment,
    /// The version requests without a `Subscriber-Version` header get.
    pub api_version: ApiVersion,
}

/// The e-mail address and the secret of an account, for a token.
// `Debug` hides the key.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LoginRequest {
    /// The account's e-mail address (any case).
    pub email: String,
    /// The account's secret (`secret` of the signup or of the last rotation).
    pub api_key: String,
}

/// A bearer token for every other call.
// `Debug` hides the token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LoginResponse {
    /// A JWT: send it as `Authorization: Bearer <token>`.
    pub token: String,
    /// Seconds the token stays valid; log in again before it runs out.
    pub validity_seconds: u64,
}

/// Where the service runs: `sandbox` (test cards and generated data, nothing billed),
/// `expansion`, or `established` (requests are billed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    Sandbox,
    Expansion,
    Established,
}

impl Environment {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sandbox => "sandbox",
            Self::Expansion => "expansion",
            Self::Established => "established",
        }
    }
}

impl std::fmt::Display for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Environment {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "sandbox" => Ok(Self::Sandbox),
            "expansion" => Ok(Self::Expansion),
            "established" => Ok(Self::Established),
            other => Err(format!("unknown environment {other:?}: expected sandbox, expansion or established")),
        }
    }
}

/// The caller's account.
#[apply(wire!)]
#[derive(Eq)]
pub struct SubscriberProfile {
    /// The account's public identifier (`cli_…`).
    pub client_id: String,
    /// The account's publishable key (`pk_…`).
    pub public_key: String,
    /// The e-mail address the account logs in with.
    pub email: String,
    /// The environment the account lives in.
    pub environment: Environment,
    /// When the account was made (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// The pinned version: what requests without a `Subscriber-Version` header get.
    pub api_version: ApiVersion,
    /// The name the hosted pages show the person; null until set (the pages then name the
    /// service).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub display_name: Option<String>,
    /// The hosted pages' accent colour (`#rrggbb`), used where it keeps them readable; null
    /// until set.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub brand_color: Option<String>,
    /// The registered return URLs: a hosted page's `returnUrl` must begin with one of them.
    #[serde(default)]
    pub return_urls: Vec<String>,
}

/// A change of the caller's account: any of its fields, one at least.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default, Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct UpdateSubscriberRequest {
    /// The version to pin (`2026-12-01`): requests without a `Subscriber-Version` header get it
    /// from now on. Webhook endpoints keep their own version.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<ApiVersion>))]
    pub api_version: Option<String>,
    /// The name the hosted pages show the person: 1 to 80 characters (trimmed), no control
    /// characters.
    pub display_name: Option<String>,
    /// The hosted pages' accent colour, `#rrggbb`; a colour too light or too dark to read
    /// against the page is replaced there by the default.
    pub brand_color: Option<String>,
    /// The return URLs (replacing those registered): at most 10, each an absolute `https`
    /// URL without a fragment or user info. A hosted page's `returnUrl` must begin with one.
    pub return_urls: Option<Vec<String>>,
}

impl UpdateSubscriberRequest {
    /// Pins `version` and changes nothing else.
    pub fn pin(version: &str) -> Self {
        Self { api_version: Some(version.to_owned()), ..Self::default() }
    }
}

/// The current secret, proving the caller holds it: a token alone cannot rotate it.
// `Debug` hides the secret.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RotateSecretRequest {
    /// The secret in use now (the `apiKey` of a login).
    pub current_secret: String,
}

/// The new secret, shown once. The old secret stops working at once, every token issued
/// before is refused (`token_expired`) and the account's open streams end: log in again with
/// the new secret.
// `Debug` hides the secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RotateSecretResponse {
    /// The account's public identifier (unchanged).
    pub client_id: String,
    /// The new secret API key. Shown once.
    pub secret: String,
    /// When the old secret stopped working (RFC 3339, UTC).
    pub rotated_at: DateTime<Utc>,
}

/// Billable requests, counted in the `established` environment only.
#[apply(wire!)]
#[derive(Eq)]
pub struct UsageResponse {
    /// The environment of this service.
    pub environment: Environment,
    /// Whether this environment bills requests.
    pub billable: bool,
    /// Every billable request counted.
    pub total: u64,
    /// Counts by day and endpoint, oldest day first.
    pub usage: Vec<UsageRow>,
}

/// The billable requests of one endpoint on one day.
#[apply(wire!)]
#[derive(Eq)]
pub struct UsageRow {
    /// The day (UTC), `YYYY-MM-DD`.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub day: NaiveDate,
    /// The method and path template, e.g. `GET /card/{card_id}`.
    pub endpoint: String,
    /// Requests counted.
    pub count: u64,
}

const REDACTED: &str = "<redacted>";

impl std::fmt::Debug for SignupResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignupResponse")
            .field("client_id", &self.client_id)
            .field("secret", &REDACTED)
            .field("public_key", &self.public_key)
            .field("email", &self.email)
            .field("environment", &self.environment)
            .field("api_version", &self.api_version)
            .finish()
    }
}

impl std::fmt::Debug for LoginRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginRequest").field("email", &self.email).field("api_key", &REDACTED).finish()
    }
}

impl std::fmt::Debug for LoginResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginResponse")
            .field("token", &REDACTED)
            .field("validity_seconds", &self.validity_seconds)
            .finish()
    }
}

impl std::fmt::Debug for RotateSecretRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RotateSecretRequest").field("current_secret", &REDACTED).finish()
    }
}

impl std::fmt::Debug for RotateSecretResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RotateSecretResponse")
            .field("client_id", &self.client_id)
            .field("secret", &REDACTED)
            .field("rotated_at", &self.rotated_at)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_secrets_or_tokens() {
        let signup = SignupResponse {
            client_id: "cli_1".to_owned(),
            secret: "sk_test_hidden".to_owned(),
            public_key: "pk_test_1".to_owned(),
            email: "dev@example.com".to_owned(),
            environment: Environment::Sandbox,
            api_version: ApiVersion::LATEST,
        };
        let login = LoginRequest { email: "dev@example.com".to_owned(), api_key: "sk_test_hidden".to_owned() };
        let token = LoginResponse { token: "eyJ.hidden".to_owned(), validity_seconds: 18_000 };
        let rotated = RotateSecretResponse {
            client_id: "cli_1".to_owned(),
            secret: "sk_test_hidden".to_owned(),
            rotated_at: DateTime::UNIX_EPOCH,
        };
        let rotate = RotateSecretRequest { current_secret: "sk_test_hidden".to_owned() };
        for shown in [
            format!("{signup:?}"),
            format!("{login:?}"),
            format!("{token:?}"),
            format!("{rotated:?}"),
            format!("{rotate:?}"),
        ] {
            assert!(!shown.contains("hidden"), "{shown}");
            assert!(shown.contains(REDACTED), "{shown}");
        }
    }
}
