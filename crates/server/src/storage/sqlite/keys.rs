use rusqlite::{Connection, params};

use crate::storage::StorageResult;
use crate::storage::keys::KeyRow;

pub fn all(connection: &Connection) -> StorageResult<Vec<KeyRow>> {
    let mut statement = connection.prepare_cached("SELECT name, value FROM server_keys ORDER BY name")?;
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn settle_checks(connection: &Connection, checks: &[KeyRow], now: i64) -> StorageResult<Vec<KeyRow>> {
    connection.execute("DELETE FROM server_keys WHERE name NOT LIKE 'check:%'", [])?;
    let mut insert = connection.prepare_cached(
        "INSERT INTO server_keys (name, value, created_at) VALUES (?1, ?2, ?3) ON CONFLICT (name) DO NOTHING",
    )?;
    for (name, value) in checks {
        insert.execute(params![name, value, now])?;
    }
    all(connection)
}
