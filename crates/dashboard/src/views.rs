//! What commands take and return: the IPC surface the UI sees (as TypeScript, with feature `ts`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use subscriber_protocol::{CardTransaction, Environment};

use crate::secrets::KeyringStatus;

/// Where the dashboard talks to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ConnectionTarget {
    /// The service started inside the app, on 127.0.0.1, with its data in the app's folder.
    Sandbox,
    /// A service elsewhere, by base URL.
    Remote {
        environment: Environment,
        #[serde(rename = "baseUrl")]
        base_url: String,
    },
}

impl ConnectionTarget {
    /// The name remembered secrets are filed under: stable across runs (the sandbox's port is not).
    pub fn key(&self) -> String {
        match self {
            Self::Sandbox => "sandbox-local".to_owned(),
            Self::Remote { base_url, .. } => base_url.trim_end_matches('/').to_owned(),
        }
    }
}

/// The environment in use, for the band across the top and the switcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ConnectionInfo {
    pub target: ConnectionTarget,
    /// The address the dashboard calls (for the embedded sandbox, its random loopback port).
    pub base_url: String,
    pub environment: Environment,
    pub embedded: bool,
}

/// The signed-in subscriber; never the secret or the token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub email: String,
    pub client_id: String,
    pub public_key: String,
    pub environment: Environment,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
    /// When the token in memory expires; it is renewed before then.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub token_expires_at: DateTime<Utc>,
    pub validity_seconds: u64,
    /// Whether the secret is in the OS keyring for the next sign-in.
    pub secret_remembered: bool,
}

/// Everything the UI needs at start and after each change of connection or session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub connection: Option<ConnectionInfo>,
    /// The environment chosen last time, to reconnect to at start.
    pub saved_target: Option<ConnectionTarget>,
    pub session: Option<SessionInfo>,
    pub keyring: KeyringStatus,
    /// The e-mail of the remembered sign-in of this connection, if any.
    pub remembered_email: Option<String>,
}

/// `sign_up`: the credentials, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct SignupResult {
    pub client_id: String,
    pub public_key: String,
    /// Shown once: the service keeps only a hash.
    pub secret: String,
    pub remembered: bool,
    /// Why the secret could not be kept in the keyring.
    pub keyring_problem: Option<String>,
    pub session: SessionInfo,
}

/// `log_in`: an empty `apiKey` means "use the remembered secret".
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LoginInput {
    pub email: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub api_key: Option<String>,
    pub remember: bool,
}

/// `rotate_secret`: the new secret, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct RotateResult {
    pub secret: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub rotated_at: DateTime<Utc>,
    pub remembered: bool,
    pub keyring_problem: Option<String>,
}

/// One page of a card's transactions, sent while a long list loads.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct TransactionBatch {
    pub card_id: i64,
    pub rows: Vec<CardTransaction>,
    /// Rows loaded so far, this batch included.
    pub loaded: u32,
    pub done: bool,
}

/// What the real-time stream of a card reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum LiveEvent {
    /// A new transaction, or one that settled (same `transactionId`, `pending: false`).
    Transaction { transaction: Box<CardTransaction> },
    /// The stream connected (`live`) or dropped (with why, while it reconnects).
    Status { live: bool, message: Option<String> },
}

/// `export_transactions_csv`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ExportResult {
    pub path: String,
    pub rows: u32,
}
