//! What the database keeps about the service's keys: only check values (see [`crate::keys`]).
//! Versions before the key file kept the keys themselves here: [`all`] hands them over once,
//! and [`replace_with_checks`] leaves only the checks.

use super::sql::{Connection, Transaction, params};

use super::StorageResult;

/// Every row: `(name, value)`. Rows named `check:*` are check values, the others are keys of
/// an older version.
pub fn all(connection: &Connection) -> StorageResult<Vec<(String, Vec<u8>)>> {
    let mut statement = connection.prepare_cached("SELECT name, value FROM server_keys ORDER BY name")?;
    let rows = statement.query_map(params![], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect::<Result<_, _>>()
}

/// Leaves only `checks` in the table: no key stays in the database.
pub fn replace_with_checks(transaction: &Transaction<'_>, checks: &[(String, Vec<u8>)], now: i64) -> StorageResult<()> {
    transaction.execute("DELETE FROM server_keys", params![])?;
    for (name, value) in checks {
        transaction.execute(
            "INSERT INTO server_keys (name, value, created_at) VALUES (?1, ?2, ?3)",
            params![name, value, now],
        )?;
    }
    Ok(())
}
