use rusqlite::{Connection, params};
use subscriber_protocol::UnixSeconds;

use super::rows::{all, execute};
use crate::storage::StorageResult;
use crate::storage::rows::keys::{ALL, KeyRow, REMOVE_KEYS};
use crate::storage::sql::sql;

/// A statement per check (they are a few), in the one write.
pub fn settle_checks(connection: &Connection, checks: &[KeyRow], now: UnixSeconds) -> StorageResult<Vec<KeyRow>> {
    execute(connection, &REMOVE_KEYS, [])?;
    let sql =
        sql!("INSERT INTO server_keys (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING");
    let mut insert = connection.prepare_cached(sql.sqlite())?;
    for (name, value) in checks {
        insert.execute(params![name, value, now])?;
    }
    all(connection, &ALL, [])
}
