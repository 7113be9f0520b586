use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SignupRequest {
    pub email: String,
}

/// Returned once: the service keeps only a hash of `secret`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SignupResponse {
    pub client_id: String,
    pub secret: String,
    pub public_key: String,
    pub email: String,
    pub environment: Environment,
}

/// `api_key` as in the spec's examples; `key` as in its prose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LoginRequest {
    pub email: String,
    #[serde(alias = "key")]
    pub api_key: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LoginResponse {
    pub token: String,
    pub validity_seconds: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
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
pub struct SubscriberProfile {
    pub client_id: String,
    pub public_key: String,
    pub email: String,
    pub environment: Environment,
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
}

/// `POST /subscriber/secret/rotate`: the new secret, shown once. The old secret stops working
/// at once; tokens already issued stay valid until they expire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
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
pub struct UsageResponse {
    pub environment: Environment,
    pub billable: bool,
    pub total: u64,
    pub usage: Vec<UsageRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct UsageRow {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub day: NaiveDate,
    /// The route template, e.g. `GET /card/{card_id}`.
    pub endpoint: String,
    pub count: u64,
}
