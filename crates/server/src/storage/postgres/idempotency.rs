use futures::FutureExt;
use tokio_postgres::types::ToSql;

use super::{Client, Database, execute, query_one, query_opt};
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

/// Parameters a statement owns, for work that outlives its caller ([`Database::write`]).
pub type OwnedParams = Vec<Box<dyn ToSql + Sync + Send>>;

/// `params` as a statement takes them.
pub fn borrowed(params: &OwnedParams) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|param| param.as_ref() as &(dyn ToSql + Sync)).collect()
}

/// Runs `insert` (an `INSERT … RETURNING id`) and keeps the creating request's replay with the
/// new row's id: without a replay one statement on its own, with one both in a transaction (a
/// replay is never kept for a row that is not there). The new id.
pub async fn insert_keeping_replay(
    db: &Database,
    insert: &'static str,
    params: OwnedParams,
    now: i64,
    replay: Option<Replay>,
) -> StorageResult<i64> {
    let Some(replay) = replay else {
        let client = db.client().await?;
        return Ok(query_one(&client, insert, &borrowed(&params)).await?.try_get(0)?);
    };
    db.write(move |client| {
        async move {
            let id = query_one(client, insert, &borrowed(&params)).await?.try_get(0)?;
            store_replay(client, Some(replay), id, now).await?;
            Ok(id)
        }
        .boxed()
    })
    .await
}

pub async fn purge(db: &Database, before: i64) -> StorageResult<u64> {
    let client = db.maintenance_client().await?;
    execute(&client, "DELETE FROM idempotency_keys WHERE created_at < $1", &[&before]).await
}
