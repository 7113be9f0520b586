use rusqlite::{Connection, params};

use super::rows::first;
use crate::storage::StorageResult;
use crate::storage::sql::sql;

/// Whether the session can still take a card at `now` (read inside the writing transaction,
/// so two submissions cannot both pass).
pub(super) fn is_open(connection: &Connection, id: i64, now: i64) -> StorageResult<bool> {
    let sql = sql!("SELECT id FROM card_sessions WHERE id = $1 AND completed_at IS NULL AND expires_at > $2");
    Ok(first::<i64>(connection, sql, params![id, now])?.is_some())
}
