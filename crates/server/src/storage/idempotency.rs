use rusqlite::{Connection, OptionalExtension, Transaction, params};

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
    Ok(statement
        .query_row(params![scope, key], |row| {
            Ok(StoredResponse { request_hash: row.get(0)?, status: row.get(1)?, body: row.get(2)? })
        })
        .optional()?)
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

/// What a request with a key finds when it asks to serve it.
pub enum Claim {
    /// A response is stored already: replay it (or 409 for another body).
    Stored(StoredResponse),
    /// Another request with this key is being served, here or by another instance.
    InProgress,
    /// This request serves the key until it releases the claim or the claim lapses.
    Claimed,
}

/// Claims a key for one request, in one transaction with the check for a stored response: a
/// request that finished between a caller's first look and its claim is replayed, not served
/// twice. A claim past `expires_at` (its process crashed) is taken over.
pub fn claim(transaction: &Transaction<'_>, scope: &str, key: &str, now: i64, expires_at: i64) -> StorageResult<Claim> {
    if let Some(stored) = find(transaction, scope, key)? {
        return Ok(Claim::Stored(stored));
    }
    let claimed = transaction.execute(
        "INSERT INTO idempotency_claims (scope, key, expires_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (scope, key) DO UPDATE SET expires_at = excluded.expires_at
         WHERE idempotency_claims.expires_at < ?4",
        params![scope, key, expires_at, now],
    )?;
    Ok(if claimed == 1 { Claim::Claimed } else { Claim::InProgress })
}

pub fn release(transaction: &Transaction<'_>, scope: &str, key: &str) -> StorageResult<()> {
    transaction.execute("DELETE FROM idempotency_claims WHERE scope = ?1 AND key = ?2", params![scope, key])?;
    Ok(())
}

/// Forgets keys older than `before`, and claims that lapsed by then.
pub fn purge(transaction: &Transaction<'_>, before: i64) -> StorageResult<usize> {
    transaction.execute("DELETE FROM idempotency_claims WHERE expires_at < ?1", [before])?;
    Ok(transaction.execute("DELETE FROM idempotency_keys WHERE created_at < ?1", [before])?)
}
