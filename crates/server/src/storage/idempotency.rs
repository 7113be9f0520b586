use super::sql::{Connection, OptionalExtension, Transaction, params};

use super::StorageResult;

pub struct StoredResponse {
    pub request_hash: Vec<u8>,
    pub status: u16,
    pub body: Vec<u8>,
}

pub fn find(connection: &Connection, scope: &str, key: &str) -> StorageResult<Option<StoredResponse>> {
    let mut statement = connection.prepare_cached(
        "SELECT request_hash, status, response_body FROM idempotency_keys WHERE scope = ?1 AND key = ?2",
    )?;
    statement
        .query_row(params![scope, key], |row| {
            Ok(StoredResponse { request_hash: row.get(0)?, status: row.get(1)?, body: row.get(2)? })
        })
        .optional()
}

/// Keeps the first response for a key; a second store for the same key changes nothing.
pub fn store(
    transaction: &Transaction<'_>,
    scope: &str,
    key: &str,
    response: &StoredResponse,
    now: i64,
) -> StorageResult<()> {
    transaction.execute(
        "INSERT INTO idempotency_keys (scope, key, request_hash, status, response_body, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (scope, key) DO NOTHING",
        params![scope, key, response.request_hash, response.status, response.body, now],
    )?;
    Ok(())
}

/// Forgets keys older than `before`.
pub fn purge(transaction: &Transaction<'_>, before: i64) -> StorageResult<usize> {
    transaction.execute("DELETE FROM idempotency_keys WHERE created_at < ?1", [before])
}
