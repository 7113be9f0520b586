//! Leases on work one instance at a time does (see migration 0009).

use super::sql::{Transaction, params};

use super::StorageResult;

/// Takes or renews the lease `name` for `holder` until `until_ms`: `true` when `holder` has it
/// now (it held it, or its last holder let it lapse before `now_ms`).
pub fn hold(
    transaction: &Transaction<'_>,
    name: &str,
    holder: &str,
    now_ms: i64,
    until_ms: i64,
) -> StorageResult<bool> {
    let changed = transaction.execute(
        "INSERT INTO leases (name, holder, expires_at_ms) VALUES (?1, ?2, ?4)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
         WHERE leases.holder = excluded.holder OR leases.expires_at_ms < ?3",
        params![name, holder, now_ms, until_ms],
    )?;
    Ok(changed == 1)
}
