//! Subscribers' rows: their credentials (the secret only as a slow hash) and credential
//! generations.

use super::{Columns, FromRow};
use crate::storage::StorageResult;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

#[derive(Debug, Clone)]
pub struct SubscriberRow {
    pub id: SubscriberId,
    pub email: String,
    pub client_id: String,
    pub public_key: String,
    pub secret_hash: String,
    pub created_at: UnixSeconds,
    /// Moves on at each secret rotation; tokens of an older generation are revoked.
    pub credential_generation: i64,
    /// The name the hosted pages show; `None`: the service's own.
    pub display_name: Option<String>,
    /// `#rrggbb`, the hosted pages' accent when readable; `None`: the default.
    pub brand_color: Option<String>,
    /// The registered return URL prefixes, as stored: a JSON array of strings.
    pub return_urls: String,
}

pub(in crate::storage) const COLUMNS: &str = "id, email, client_id, public_key, secret_hash, created_at, credential_generation, display_name, \
     brand_color, return_urls";

#[derive(Debug, Clone)]
pub struct NewSubscriber {
    pub email: String,
    pub client_id: String,
    pub public_key: String,
    pub secret_hash: String,
    pub created_at: UnixSeconds,
    /// The API version it is pinned to.
    pub api_version: String,
}

impl FromRow for SubscriberRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            email: row.column(1)?,
            client_id: row.column(2)?,
            public_key: row.column(3)?,
            secret_hash: row.column(4)?,
            created_at: row.column(5)?,
            credential_generation: row.column(6)?,
            display_name: row.column(7)?,
            brand_color: row.column(8)?,
            return_urls: row.column(9)?,
        })
    }
}
