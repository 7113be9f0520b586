use rusqlite::{Connection, params};
use subscriber_protocol::UnixSeconds;

use super::rows::execute;
use crate::storage::StorageResult;
use crate::storage::rows::directory::{CLEAR, DirectoryState, ENTRY_COLUMNS, Entry, Interner, KEEP_STATE, entry};
use crate::storage::sql::sql;

pub fn replace(
    connection: &Connection,
    state: &DirectoryState,
    entries: &[Entry],
    now: UnixSeconds,
) -> StorageResult<()> {
    execute(connection, &CLEAR, [])?;
    let sql = sql!(
        "INSERT INTO directory_merchants ({ENTRY_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
    );
    let mut insert = connection.prepare_cached(sql.sqlite())?;
    for entry in entries {
        insert.execute(params![
            entry.id,
            &*entry.dba_name,
            &*entry.descriptor,
            entry.mcc,
            &*entry.street,
            &*entry.street_no,
            &*entry.city,
            entry.region.as_deref(),
            &*entry.country,
            &*entry.zip,
            i64::try_from(entry.phone).unwrap_or(0),
            entry.latitude,
            entry.longitude,
            &*entry.currency,
        ])?;
    }
    execute(connection, &KEEP_STATE, params![state.seed, state.size, state.version, now])?;
    Ok(())
}

/// In one statement: the rows are read where they are, with no round trip to save.
pub fn load(connection: &Connection) -> StorageResult<(Vec<Entry>, Interner)> {
    let mut interner = Interner::default();
    let sql = sql!("SELECT {ENTRY_COLUMNS} FROM directory_merchants ORDER BY id");
    let mut statement = connection.prepare_cached(sql.sqlite())?;
    let mut rows = statement.query([])?;
    let mut entries = Vec::new();
    while let Some(row) = rows.next()? {
        entries.push(entry(row, &mut interner)?);
    }
    Ok((entries, interner))
}
