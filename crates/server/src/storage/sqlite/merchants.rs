use rusqlite::{Connection, OptionalExtension, Row, params};

use super::events::record_other;
use crate::storage::StorageResult;
use crate::storage::idempotency::Replay;
use crate::storage::merchants::{
    CoordinatesSource, Inserted, LOCATION_COLUMNS, LocationRow, M_COLUMNS, MERCHANT_COLUMNS, MerchantRow, NewLocation,
    NewMerchant, StoredAddress,
};

fn merchant_from_row(row: &Row<'_>, first: usize) -> rusqlite::Result<MerchantRow> {
    Ok(MerchantRow {
        id: row.get(first)?,
        subscriber_id: row.get(first + 1)?,
        name: row.get(first + 2)?,
        mcc: row.get(first + 3)?,
        country_code: row.get(first + 4)?,
        phone: row.get(first + 5)?,
        website: row.get(first + 6)?,
        created_at: row.get(first + 7)?,
    })
}

/// The location columns from `first` on, with the coordinates' source as stored.
fn location_from_row(row: &Row<'_>, first: usize) -> rusqlite::Result<(LocationRow, String)> {
    Ok((
        LocationRow {
            id: row.get(first)?,
            merchant_id: row.get(first + 1)?,
            address: StoredAddress {
                country_code: row.get(first + 2)?,
                street: row.get(first + 3)?,
                street_no: row.get(first + 4)?,
                city: row.get(first + 5)?,
                zip: row.get(first + 6)?,
            },
            latitude: row.get(first + 7)?,
            longitude: row.get(first + 8)?,
            coordinates_source: CoordinatesSource::Unknown,
            descriptor: row.get(first + 10)?,
            created_at: row.get(first + 11)?,
        },
        row.get(first + 9)?,
    ))
}

fn finish_location((mut location, source): (LocationRow, String)) -> StorageResult<LocationRow> {
    location.coordinates_source = CoordinatesSource::parse(&source)?;
    Ok(location)
}

pub fn insert(connection: &Connection, merchant: &NewMerchant, replay: Option<Replay>) -> StorageResult<Inserted> {
    let existing: Option<i64> = connection
        .prepare_cached("SELECT id FROM merchants WHERE subscriber_id = ?1")?
        .query_row([merchant.subscriber_id], |row| row.get(0))
        .optional()?;
    if let Some(id) = existing {
        return Ok(Inserted::Existing(id));
    }
    connection
        .prepare_cached(
            "INSERT INTO merchants (subscriber_id, name, mcc, country_code, phone, website, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![
            merchant.subscriber_id,
            merchant.name,
            merchant.mcc,
            merchant.country_code,
            merchant.phone,
            merchant.website,
            merchant.created_at
        ])?;
    let id = connection.last_insert_rowid();
    super::idempotency::store_replay(connection, replay, id, merchant.created_at)?;
    Ok(Inserted::Created(id))
}

pub fn find_by_subscriber(connection: &Connection, subscriber_id: i64) -> StorageResult<Option<MerchantRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE subscriber_id = ?1"))?;
    Ok(statement.query_row([subscriber_id], |row| merchant_from_row(row, 0)).optional()?)
}

pub fn get(connection: &Connection, subscriber_id: i64, merchant_id: i64) -> StorageResult<Option<MerchantRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE id = ?1 AND subscriber_id = ?2"))?;
    Ok(statement.query_row(params![merchant_id, subscriber_id], |row| merchant_from_row(row, 0)).optional()?)
}

pub fn insert_location(connection: &Connection, location: NewLocation, replay: Option<Replay>) -> StorageResult<i64> {
    connection
        .prepare_cached(
            "INSERT INTO locations (merchant_id, country_code, street, street_no, city, zip, latitude, longitude,
                                    coordinates_source, descriptor, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            location.merchant_id,
            location.address.country_code,
            location.address.street,
            location.address.street_no,
            location.address.city,
            location.address.zip,
            location.latitude,
            location.longitude,
            location.coordinates_source.as_str(),
            location.descriptor,
            location.created_at
        ])?;
    let id = connection.last_insert_rowid();
    super::idempotency::store_replay(connection, replay, id, location.created_at)?;
    let event = (location.event_data)(id);
    record_other(connection, location.subscriber_id, event.event_type, &event.data, location.created_at)?;
    Ok(id)
}

pub fn locations(connection: &Connection, merchant_id: i64) -> StorageResult<Vec<LocationRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.merchant_id = ?1 ORDER BY l.id"
    ))?;
    let rows = statement.query_map([merchant_id], |row| location_from_row(row, 0))?;
    rows.map(|row| finish_location(row?)).collect()
}

pub fn location_of(connection: &Connection, merchant_id: i64, location_id: i64) -> StorageResult<Option<LocationRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.id = ?1 AND l.merchant_id = ?2"
    ))?;
    statement
        .query_row(params![location_id, merchant_id], |row| location_from_row(row, 0))
        .optional()?
        .map(finish_location)
        .transpose()
}

pub fn subscribers_location(
    connection: &Connection,
    subscriber_id: i64,
    location_id: i64,
) -> StorageResult<Option<LocationRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {LOCATION_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
         WHERE l.id = ?1 AND m.subscriber_id = ?2"
    ))?;
    statement
        .query_row(params![location_id, subscriber_id], |row| location_from_row(row, 0))
        .optional()?
        .map(finish_location)
        .transpose()
}

pub fn pick_location(connection: &Connection, merchant_id: i64, pick: u64) -> StorageResult<Option<LocationRow>> {
    let count: i64 = connection
        .prepare_cached("SELECT COUNT(*) FROM locations WHERE merchant_id = ?1")?
        .query_row([merchant_id], |row| row.get(0))?;
    let Some(offset) = offset(count, pick) else { return Ok(None) };
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.merchant_id = ?1 ORDER BY l.id LIMIT 1 OFFSET ?2"
    ))?;
    statement
        .query_row(params![merchant_id, offset], |row| location_from_row(row, 0))
        .optional()?
        .map(finish_location)
        .transpose()
}

pub fn pick_any_location(connection: &Connection, pick: u64) -> StorageResult<Option<(LocationRow, MerchantRow)>> {
    let count: i64 = connection.prepare_cached("SELECT COUNT(*) FROM locations")?.query_row([], |row| row.get(0))?;
    let Some(offset) = offset(count, pick) else { return Ok(None) };
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {LOCATION_COLUMNS}, {M_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
         ORDER BY l.id LIMIT 1 OFFSET ?1"
    ))?;
    let found = statement
        .query_row([offset], |row| Ok((location_from_row(row, 0)?, merchant_from_row(row, 12)?)))
        .optional()?;
    found.map(|(location, merchant)| Ok((finish_location(location)?, merchant))).transpose()
}

/// Position `pick % count`; `None` when there is nothing to pick.
fn offset(count: i64, pick: u64) -> Option<i64> {
    let count = u64::try_from(count).ok().filter(|count| *count > 0)?;
    Some(i64::try_from(pick % count).unwrap_or(0))
}
