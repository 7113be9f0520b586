use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::storage::StorageResult;
use crate::storage::card_sessions::{COLUMNS, CardSessionRow, NewTokenPage};
use crate::storage::idempotency::Replay;

fn from_row(row: &Row<'_>) -> rusqlite::Result<CardSessionRow> {
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

pub fn insert(connection: &Connection, page: &NewTokenPage, replay: Option<Replay>) -> StorageResult<i64> {
    connection
        .prepare_cached(
            "INSERT INTO card_sessions (subscriber_id, token_hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![page.subscriber_id, page.token_hash, page.created_at, page.expires_at])?;
    let id = connection.last_insert_rowid();
    super::idempotency::store_replay(connection, replay, id, page.created_at)?;
    Ok(id)
}

pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<CardSessionRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM card_sessions WHERE id = ?1 AND subscriber_id = ?2"))?;
    Ok(statement.query_row(params![id, subscriber_id], from_row).optional()?)
}

pub fn find_by_token(connection: &Connection, token_hash: &[u8]) -> StorageResult<Option<CardSessionRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM card_sessions WHERE token_hash = ?1"))?;
    Ok(statement.query_row([token_hash], from_row).optional()?)
}

/// Whether the session can still take a card at `now` (read inside the writing transaction,
/// so two submissions cannot both pass).
pub(super) fn is_open(connection: &Connection, id: i64, now: i64) -> StorageResult<bool> {
    let open: Option<i64> = connection
        .prepare_cached("SELECT id FROM card_sessions WHERE id = ?1 AND completed_at IS NULL AND expires_at > ?2")?
        .query_row(params![id, now], |row| row.get(0))
        .optional()?;
    Ok(open.is_some())
}

pub(super) fn complete(connection: &Connection, id: i64, card_id: i64, now: i64) -> StorageResult<()> {
    connection
        .prepare_cached("UPDATE card_sessions SET completed_at = ?2, card_id = ?3 WHERE id = ?1")?
        .execute(params![id, now, card_id])?;
    Ok(())
}

pub fn record_failure(connection: &Connection, id: i64, max_attempts: u32, now: i64) -> StorageResult<u32> {
    Ok(connection
        .prepare_cached(
            "UPDATE card_sessions SET failed_attempts = failed_attempts + 1,
                 expires_at = CASE WHEN failed_attempts + 1 >= ?2 THEN MIN(expires_at, ?3) ELSE expires_at END
             WHERE id = ?1 RETURNING failed_attempts",
        )?
        .query_row(params![id, max_attempts, now], |row| row.get(0))?)
}
