use rusqlite::{Connection, params};

use crate::storage::StorageResult;

pub fn hold(connection: &Connection, name: &str, holder: &str, now_ms: i64, until_ms: i64) -> StorageResult<bool> {
    let changed = connection
        .prepare_cached(
            "INSERT INTO leases (name, holder, expires_at_ms) VALUES (?1, ?2, ?4)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
         WHERE leases.holder = excluded.holder OR leases.expires_at_ms < ?3",
        )?
        .execute(params![name, holder, now_ms, until_ms])?;
    Ok(changed == 1)
}
