use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignupRequest {
    pub email: String,
}

/// Returned once: the service keeps only a hash of `secret`. `Debug` hides the secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignupResponse {
    pub client_id: String,
    pub secret: String,
    pub public_key: String,
    pub email: String,
    pub environment: Environment,
}

/// `api_key` as in the spec's examples; `key` as in its prose. `Debug` hides the key.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoginRequest {
    pub email: String,
    #[serde(alias = "key")]
    pub api_key: String,
}

/// `Debug` hides the token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoginResponse {
    pub token: String,
    pub validity_seconds: u64,
}

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

/// `GET /subscriber`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubscriberProfile {
    pub client_id: String,
    pub public_key: String,
    pub email: String,
    pub environment: Environment,
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
}

/// `POST /subscriber/secret/rotate`: proves the caller holds the current secret (a token alone
/// cannot rotate it). `Debug` hides the secret.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RotateSecretRequest {
    /// The secret in use now (the `api_key` of a login).
    #[serde(rename = "currentSecret", alias = "current_secret", default)]
    pub current_secret: String,
}

/// `POST /subscriber/secret/rotate`: the new secret, shown once. The old secret stops working
/// at once, every token issued before is revoked and the subscriber's open streams end: log in
/// with the new secret. `Debug` hides the secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RotateSecretResponse {
    pub client_id: String,
    pub secret: String,
    #[serde(rename = "rotatedAt")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub rotated_at: DateTime<Utc>,
}

/// `GET /subscriber/usage`: billable requests (counted in `established` only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageResponse {
    pub environment: Environment,
    pub billable: bool,
    pub total: u64,
    pub usage: Vec<UsageRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageRow {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub day: NaiveDate,
    /// The route template, e.g. `GET /card/{card_id}`.
    pub endpoint: String,
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
