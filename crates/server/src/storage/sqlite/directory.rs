use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::storage::StorageResult;
use crate::storage::directory::{
    DirectoryMerchant, DirectoryState, ENROLLED_COLUMNS, Entry, Interner, enrolled_merchant,
};
use crate::storage::merchants::StoredAddress;

pub fn state(connection: &Connection) -> StorageResult<Option<DirectoryState>> {
    Ok(connection
        .prepare_cached("SELECT seed, size, version FROM directory_state WHERE id = 1")?
        .query_row([], |row| Ok(DirectoryState { seed: row.get(0)?, size: row.get(1)?, version: row.get(2)? }))
        .optional()?)
}

pub fn replace(connection: &Connection, state: &DirectoryState, entries: &[Entry], now: i64) -> StorageResult<()> {
    connection.execute("DELETE FROM directory_merchants", [])?;
    let mut insert = connection.prepare_cached(
        "INSERT INTO directory_merchants (id, dba_name, descriptor, mcc, street, street_no, city, region, country,
             zip, phone, latitude, longitude, currency)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
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
    connection.execute(
        "INSERT INTO directory_state (id, seed, size, version, generated_at) VALUES (1, ?1, ?2, ?3, ?4)
         ON CONFLICT (id) DO UPDATE SET seed = excluded.seed, size = excluded.size, version = excluded.version,
             generated_at = excluded.generated_at",
        params![state.seed, state.size, state.version, now],
    )?;
    Ok(())
}

pub fn load(connection: &Connection) -> StorageResult<(Vec<Entry>, Interner)> {
    let mut interner = Interner::default();
    let mut statement = connection.prepare_cached(
        "SELECT id, dba_name, descriptor, mcc, street, street_no, city, region, country, zip, phone, latitude,
             longitude, currency
         FROM directory_merchants ORDER BY id",
    )?;
    let mut rows = statement.query([])?;
    let mut entries = Vec::new();
    while let Some(row) = rows.next()? {
        let text = |index: usize| -> rusqlite::Result<&str> {
            row.get_ref(index)?.as_str().map_err(|error| {
                rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(error))
            })
        };
        let region = row.get_ref(7)?.as_str_or_null().map_err(|error| {
            rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, Box::new(error))
        })?;
        let phone: i64 = row.get(10)?;
        entries.push(Entry {
            id: row.get(0)?,
            dba_name: text(1)?.into(),
            descriptor: text(2)?.into(),
            mcc: row.get(3)?,
            street: interner.get(text(4)?),
            street_no: text(5)?.into(),
            city: interner.get(text(6)?),
            region: region.map(|region| interner.get(region)),
            country: interner.get(text(8)?),
            zip: interner.get(text(9)?),
            phone: u64::try_from(phone).unwrap_or(0),
            latitude: row.get(11)?,
            longitude: row.get(12)?,
            currency: interner.get(text(13)?),
            merchant_id: None,
            location_id: None,
            retired: false,
        });
    }
    Ok((entries, interner))
}

fn enrolled_from_row(row: &Row<'_>) -> rusqlite::Result<DirectoryMerchant> {
    Ok(enrolled_merchant(
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        StoredAddress {
            country_code: row.get(5)?,
            street: row.get(6)?,
            street_no: row.get(7)?,
            city: row.get(8)?,
            zip: row.get(9)?,
        },
        row.get(10)?,
        row.get(11)?,
        row.get(12)?,
    ))
}

/// Every enrolled location, or the one with id `only`.
pub fn enrolled_locations(connection: &Connection, only: Option<i64>) -> StorageResult<Vec<DirectoryMerchant>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {ENROLLED_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
         WHERE ?1 IS NULL OR l.id = ?1 ORDER BY l.id"
    ))?;
    let rows = statement.query_map([only], enrolled_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn location_ids(connection: &Connection) -> StorageResult<Vec<i64>> {
    let mut statement = connection.prepare_cached("SELECT id FROM locations")?;
    let rows = statement.query_map([], |row| row.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
