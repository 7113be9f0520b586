//! One-time card-entry pages: found by the hash of their link's token, never by the token.

use super::sql::{Connection, OptionalExtension, Row, Transaction, params};

use super::StorageResult;

#[derive(Debug, Clone)]
pub struct CardSessionRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub created_at: i64,
    pub expires_at: i64,
    pub failed_attempts: u32,
    pub completed_at: Option<i64>,
    pub card_id: Option<i64>,
}

const COLUMNS: &str = "id, subscriber_id, created_at, expires_at, failed_attempts, completed_at, card_id";

fn from_row(row: &Row<'_>) -> super::StorageResult<CardSessionRow> {
    Ok(CardSessionRow {
        id: row.get(0)?,
        subscriber_id: row.get(1)?,
        created_at: row.get(2)?,
        expires_at: row.get(3)?,
        failed_attempts: row.get(4)?,
        completed_at: row.get(5)?,
        card_id: row.get(6)?,
    })
}

pub fn insert(
    transaction: &Transaction<'_>,
    subscriber_id: i64,
    token_hash: &[u8],
    created_at: i64,
    expires_at: i64,
) -> StorageResult<i64> {
    transaction.execute(
        "INSERT INTO card_sessions (subscriber_id, token_hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![subscriber_id, token_hash, created_at, expires_at],
    )?;
    Ok(transaction.last_insert_rowid())
}

/// The session when it belongs to the subscriber.
pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<CardSessionRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM card_sessions WHERE id = ?1 AND subscriber_id = ?2"))?;
    statement.query_row(params![id, subscriber_id], from_row).optional()
}

pub fn find_by_token(connection: &Connection, token_hash: &[u8]) -> StorageResult<Option<CardSessionRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM card_sessions WHERE token_hash = ?1"))?;
    statement.query_row([token_hash], from_row).optional()
}

/// `true` while the session can still take a card at `now` (read inside the writing
/// transaction, so two submissions cannot both pass).
pub fn is_open(transaction: &Transaction<'_>, id: i64, now: i64) -> StorageResult<bool> {
    let open: Option<i64> = transaction
        .query_row(
            "SELECT id FROM card_sessions WHERE id = ?1 AND completed_at IS NULL AND expires_at > ?2",
            params![id, now],
            |row| row.get(0),
        )
        .optional()?;
    Ok(open.is_some())
}

/// Counts a rejected submission; at `max_attempts` the session closes (expires now).
/// Returns the attempts counted so far.
pub fn record_failure(transaction: &Transaction<'_>, id: i64, max_attempts: u32, now: i64) -> StorageResult<u32> {
    let attempts: u32 = transaction.query_row(
        "UPDATE card_sessions SET failed_attempts = failed_attempts + 1,
             expires_at = CASE WHEN failed_attempts + 1 >= ?2 THEN CASE WHEN expires_at < ?3 THEN expires_at ELSE ?3 END ELSE expires_at END
         WHERE id = ?1 RETURNING failed_attempts",
        params![id, max_attempts, now],
        |row| row.get(0),
    )?;
    Ok(attempts)
}

pub fn complete(transaction: &Transaction<'_>, id: i64, card_id: i64, now: i64) -> StorageResult<()> {
    transaction
        .execute("UPDATE card_sessions SET completed_at = ?2, card_id = ?3 WHERE id = ?1", params![id, now, card_id])?;
    Ok(())
}
