use super::{Client, Database, execute, query_opt};
use crate::storage::StorageResult;
use crate::storage::idempotency::{Replay, StoredResponse};

pub async fn find(db: &Database, scope: &str, key: &str) -> StorageResult<Option<StoredResponse>> {
    let client = db.client().await?;
    let row = query_opt(
        &client,
        "SELECT request_hash, status, response_body FROM idempotency_keys WHERE scope = $1 AND key = $2",
        &[&scope, &key],
    )
    .await?;
    row.map(|row| {
        Ok(StoredResponse { request_hash: row.try_get(0)?, status: super::unsigned(&row, 1)?, body: row.try_get(2)? })
    })
    .transpose()
}

pub async fn store(client: &Client, scope: &str, key: &str, response: &StoredResponse, now: i64) -> StorageResult<()> {
    execute(
        client,
        "INSERT INTO idempotency_keys (scope, key, request_hash, status, response_body, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (scope, key) DO NOTHING",
        &[&scope, &key, &response.request_hash, &i64::from(response.status), &response.body, &now],
    )
    .await?;
    Ok(())
}

/// Stores a creating request's replay, inside the transaction that created row `id`.
pub async fn store_replay(client: &Client, replay: Option<Replay>, id: i64, now: i64) -> StorageResult<()> {
    if let Some(replay) = replay {
        let (scope, key, response) = replay.finish(id)?;
        store(client, &scope, &key, &response, now).await?;
    }
    Ok(())
}

pub async fn purge(db: &Database, before: i64) -> StorageResult<u64> {
    let client = db.client().await?;
    execute(&client, "DELETE FROM idempotency_keys WHERE created_at < $1", &[&before]).await
}
