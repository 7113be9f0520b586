use rusqlite::{Connection, OptionalExtension, params};

use crate::storage::StorageResult;
use crate::storage::idempotency::{Replay, StoredResponse};

pub fn find(connection: &Connection, scope: &str, key: &str) -> StorageResult<Option<StoredResponse>> {
    let mut statement = connection.prepare_cached(
        "SELECT request_hash, status, response_body FROM idempotency_keys WHERE scope = ?1 AND key = ?2",
    )?;
    Ok(statement
        .query_row(params![scope, key], |row| {
            Ok(StoredResponse { request_hash: row.get(0)?, status: row.get(1)?, body: row.get(2)? })
        })
        .optional()?)
}

pub fn store(
    connection: &Connection,
    scope: &str,
    key: &str,
    response: &StoredResponse,
    now: i64,
) -> StorageResult<()> {
    connection
        .prepare_cached(
            "INSERT INTO idempotency_keys (scope, key, request_hash, status, response_body, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (scope, key) DO NOTHING",
        )?
        .execute(params![scope, key, response.request_hash, response.status, response.body, now])?;
    Ok(())
}

/// Stores a creating request's replay, inside the transaction that created row `id`.
pub fn store_replay(connection: &Connection, replay: Option<Replay>, id: i64, now: i64) -> StorageResult<()> {
    if let Some(replay) = replay {
        let (scope, key, response) = replay.finish(id)?;
        store(connection, &scope, &key, &response, now)?;
    }
    Ok(())
}

pub fn purge(connection: &Connection, before: i64) -> StorageResult<u64> {
    Ok(connection.prepare_cached("DELETE FROM idempotency_keys WHERE created_at < ?1")?.execute([before])? as u64)
}
