//! Kept responses' rows: responses of creating requests sent with an `Idempotency-Key`,
//! replayed on a retry.

use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::{Param, args, sql};
use subscriber_protocol::UnixSeconds;

#[derive(Debug, Clone)]
pub struct StoredResponse {
    pub request_hash: Vec<u8>,
    pub status: u16,
    /// Sealed with the key file's key (it may hold a live one-time link).
    pub body: Vec<u8>,
}

/// The response a creating request keeps for its retries, stored in the transaction that
/// creates what it describes; its body is made once the new row's id is known (as many times
/// as the transaction runs: a write met by a deadlock runs again).
#[derive(Clone)]
pub struct Replay {
    pub scope: String,
    pub key: String,
    pub request_hash: Vec<u8>,
    pub status: u16,
    /// The sealed body, given the created row's id.
    pub body_for: std::sync::Arc<dyn Fn(i64) -> StorageResult<Vec<u8>> + Send + Sync>,
}

impl Replay {
    /// What to store at `now` once the created row's id (of whichever kind the request
    /// creates) is `id`.
    pub fn finish(&self, id: impl Into<i64>, now: UnixSeconds) -> StorageResult<FinishedReplay> {
        let body = (self.body_for)(id.into())?;
        let response = StoredResponse { request_hash: self.request_hash.clone(), status: self.status, body };
        Ok(FinishedReplay { scope: self.scope.clone(), key: self.key.clone(), response, now })
    }
}

/// A replay with its body made: what [`STORE`] keeps.
pub struct FinishedReplay {
    scope: String,
    key: String,
    response: StoredResponse,
    now: UnixSeconds,
}

impl FinishedReplay {
    /// [`STORE`]'s arguments.
    pub fn args(&self) -> [Param<'_>; 6] {
        store_args(&self.scope, &self.key, &self.response, self.now)
    }
}

impl FromRow for StoredResponse {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self { request_hash: row.column(0)?, status: row.column(1)?, body: row.column(2)? })
    }
}

sql! {
    /// Keeps the first response for scope `$1` and key `$2` (a second changes nothing).
    pub(in crate::storage) static STORE = "INSERT INTO idempotency_keys (scope, key, request_hash, status,
            response_body, created_at)
        VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (scope, key) DO NOTHING";
}

/// [`STORE`]'s arguments.
pub(in crate::storage) fn store_args<'a>(
    scope: &'a str,
    key: &'a str,
    response: &'a StoredResponse,
    now: UnixSeconds,
) -> [Param<'a>; 6] {
    args![scope, key, &response.request_hash, response.status, &response.body, now]
}
