//! Enrolled merchants (one per subscriber) and their locations.

use super::sql::{Connection, OptionalExtension, Row, Transaction, params};

use super::{StorageError, StorageResult};

#[derive(Debug, Clone, PartialEq)]
pub struct MerchantRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub name: String,
    pub mcc: String,
    pub country_code: String,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub created_at: i64,
}

const MERCHANT_COLUMNS: &str = "id, subscriber_id, name, mcc, country_code, phone, website, created_at";

fn merchant_from_row(row: &Row<'_>) -> super::StorageResult<MerchantRow> {
    Ok(MerchantRow {
        id: row.get(0)?,
        subscriber_id: row.get(1)?,
        name: row.get(2)?,
        mcc: row.get(3)?,
        country_code: row.get(4)?,
        phone: row.get(5)?,
        website: row.get(6)?,
        created_at: row.get(7)?,
    })
}

/// Where a location's coordinates came from (`locations.coordinates_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordinatesSource {
    Provided,
    Derived,
    Unknown,
}

impl CoordinatesSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Provided => "provided",
            Self::Derived => "derived",
            Self::Unknown => "unknown",
        }
    }

    fn parse(text: &str) -> StorageResult<Self> {
        match text {
            "provided" => Ok(Self::Provided),
            "derived" => Ok(Self::Derived),
            "unknown" => Ok(Self::Unknown),
            other => Err(StorageError::Corrupt(format!("unknown coordinates source {other:?}"))),
        }
    }
}

/// Where a location is, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAddress {
    pub country_code: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub zip: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LocationRow {
    pub id: i64,
    pub merchant_id: i64,
    pub address: StoredAddress,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub coordinates_source: CoordinatesSource,
    pub descriptor: String,
    pub created_at: i64,
}

const LOCATION_COLUMNS: &str = "l.id, l.merchant_id, l.country_code, l.street, l.street_no, l.city, l.zip, \
     l.latitude, l.longitude, l.coordinates_source, l.descriptor, l.created_at";

/// Reads the location columns starting at `first`.
fn location_from_row(row: &Row<'_>, first: usize) -> super::StorageResult<(LocationRow, String)> {
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

pub struct NewMerchant<'a> {
    pub subscriber_id: i64,
    pub name: &'a str,
    pub mcc: &'a str,
    pub country_code: &'a str,
    pub phone: Option<&'a str>,
    pub website: Option<&'a str>,
    pub created_at: i64,
}

pub enum Inserted {
    Created(i64),
    /// The subscriber is already a merchant, under this id.
    Existing(i64),
}

pub fn insert(transaction: &Transaction<'_>, merchant: &NewMerchant<'_>) -> StorageResult<Inserted> {
    let existing: Option<i64> = transaction
        .query_row("SELECT id FROM merchants WHERE subscriber_id = ?1", [merchant.subscriber_id], |row| row.get(0))
        .optional()?;
    if let Some(id) = existing {
        return Ok(Inserted::Existing(id));
    }
    let inserted = transaction.execute(
        "INSERT INTO merchants (subscriber_id, name, mcc, country_code, phone, website, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT DO NOTHING",
        params![
            merchant.subscriber_id,
            merchant.name,
            merchant.mcc,
            merchant.country_code,
            merchant.phone,
            merchant.website,
            merchant.created_at
        ],
    );
    match inserted? {
        1 => Ok(Inserted::Created(transaction.last_insert_rowid())),
        // Only a writer outside this service could get here between the check and the insert.
        _ => Ok(Inserted::Existing(transaction.query_row(
            "SELECT id FROM merchants WHERE subscriber_id = ?1",
            [merchant.subscriber_id],
            |row| row.get(0),
        )?)),
    }
}

/// The subscriber's merchant, if they enrolled as one.
pub fn find_by_subscriber(connection: &Connection, subscriber_id: i64) -> StorageResult<Option<MerchantRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE subscriber_id = ?1"))?;
    statement.query_row([subscriber_id], merchant_from_row).optional()
}

/// The merchant when it belongs to the subscriber; another subscriber's is `None`.
pub fn get(connection: &Connection, subscriber_id: i64, merchant_id: i64) -> StorageResult<Option<MerchantRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE id = ?1 AND subscriber_id = ?2"))?;
    statement.query_row(params![merchant_id, subscriber_id], merchant_from_row).optional()
}

pub struct NewLocation<'a> {
    pub merchant_id: i64,
    pub country_code: &'a str,
    pub street: &'a str,
    pub street_no: &'a str,
    pub city: &'a str,
    pub zip: &'a str,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub coordinates_source: CoordinatesSource,
    pub descriptor: &'a str,
    pub created_at: i64,
}

pub fn insert_location(transaction: &Transaction<'_>, location: &NewLocation<'_>) -> StorageResult<i64> {
    transaction.execute(
        "INSERT INTO locations (merchant_id, country_code, street, street_no, city, zip, latitude, longitude,
                                coordinates_source, descriptor, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            location.merchant_id,
            location.country_code,
            location.street,
            location.street_no,
            location.city,
            location.zip,
            location.latitude,
            location.longitude,
            location.coordinates_source.as_str(),
            location.descriptor,
            location.created_at
        ],
    )?;
    Ok(transaction.last_insert_rowid())
}

/// The merchant's locations, oldest first.
pub fn locations(connection: &Connection, merchant_id: i64) -> StorageResult<Vec<LocationRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.merchant_id = ?1 ORDER BY l.id"
    ))?;
    let rows = statement.query_map([merchant_id], |row| location_from_row(row, 0))?;
    rows.map(|row| finish_location(row?)).collect()
}

/// The location when it belongs to the merchant.
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

/// Any enrolled location with its merchant: where a sandbox purchase can happen.
pub fn location_with_merchant(
    connection: &Connection,
    location_id: i64,
) -> StorageResult<Option<(LocationRow, MerchantRow)>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {LOCATION_COLUMNS}, m.id, m.subscriber_id, m.name, m.mcc, m.country_code, m.phone, m.website,
                m.created_at
         FROM locations l JOIN merchants m ON m.id = l.merchant_id WHERE l.id = ?1"
    ))?;
    let found = statement
        .query_row([location_id], |row| {
            let location = location_from_row(row, 0)?;
            let merchant = MerchantRow {
                id: row.get(12)?,
                subscriber_id: row.get(13)?,
                name: row.get(14)?,
                mcc: row.get(15)?,
                country_code: row.get(16)?,
                phone: row.get(17)?,
                website: row.get(18)?,
                created_at: row.get(19)?,
            };
            Ok((location, merchant))
        })
        .optional()?;
    found.map(|(location, merchant)| Ok((finish_location(location)?, merchant))).transpose()
}

/// The id of the location at position `pick % count` of the merchant's locations (every
/// enrolled location when `merchant_id` is `None`); `None` when there are none.
pub fn pick_location(connection: &Connection, merchant_id: Option<i64>, pick: u64) -> StorageResult<Option<i64>> {
    let count: i64 = match merchant_id {
        Some(merchant_id) => {
            connection
                .query_row("SELECT COUNT(*) FROM locations WHERE merchant_id = ?1", [merchant_id], |row| row.get(0))?
        }
        None => connection.query_row("SELECT COUNT(*) FROM locations", params![], |row| row.get(0))?,
    };
    let Ok(count) = u64::try_from(count) else { return Ok(None) };
    if count == 0 {
        return Ok(None);
    }
    let offset = i64::try_from(pick % count).unwrap_or(0);
    let id = match merchant_id {
        Some(merchant_id) => connection
            .query_row(
                "SELECT id FROM locations WHERE merchant_id = ?1 ORDER BY id LIMIT 1 OFFSET ?2",
                params![merchant_id, offset],
                |row| row.get(0),
            )
            .optional()?,
        None => connection
            .query_row("SELECT id FROM locations ORDER BY id LIMIT 1 OFFSET ?1", [offset], |row| row.get(0))
            .optional()?,
    };
    Ok(id)
}
