//! Responses of creating requests sent with an `Idempotency-Key`, replayed on a retry.

use super::{StorageResult, Store, dispatch, postgres, sqlite};

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
    /// What to store once the created row's id is `id`.
    pub fn finish(&self, id: i64) -> StorageResult<(String, String, StoredResponse)> {
        let body = (self.body_for)(id)?;
        let response = StoredResponse { request_hash: self.request_hash.clone(), status: self.status, body };
        Ok((self.scope.clone(), self.key.clone(), response))
    }
}

impl Store {
    pub async fn idempotent_response(&self, scope: String, key: String) -> StorageResult<Option<StoredResponse>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::idempotency::find(connection, &scope, &key)).await,
            db => postgres::idempotency::find(db, &scope, &key).await,
        )
    }

    /// Keeps the first response for a key; a second store for the same key changes nothing.
    pub async fn store_idempotent_response(
        &self,
        scope: String,
        key: String,
        response: StoredResponse,
        now: i64,
    ) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::idempotency::store(connection, &scope, &key, &response, now)).await,
            db => {
                let client = db.client().await?;
                postgres::idempotency::store(&client, &scope, &key, &response, now).await
            },
        )
    }

    /// Forgets keys older than `before`.
    pub async fn purge_idempotency(&self, before: i64) -> StorageResult<u64> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::idempotency::purge(connection, before)).await,
            db => postgres::idempotency::purge(db, before).await,
        )
    }
}
