//! The generated merchant directory, and the enrolled locations that join it. The rows are
//! defined here; what the directory does with them (search, statements) is `crate::directory`.

use std::collections::HashMap;
use std::sync::Arc;

use super::sql::{Connection, Dialect, OptionalExtension, Transaction, Value, params};

use super::StorageResult;

/// A merchant of the directory, as a statement and discovery show it.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectoryMerchant {
    /// `directory_merchants.id` (above [`crate::directory::generate::ID_BASE`]), or the location id for an
    /// enrolled location.
    pub id: i64,
    pub dba_name: String,
    /// What a card statement prints, e.g. `SQ *BLUE BOTTLE COFFEE`.
    pub descriptor: String,
    /// 4-digit MCC.
    pub mcc: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub region: Option<String>,
    /// ISO 3166-1 alpha-3.
    pub country: String,
    pub zip: String,
    pub phone: u64,
    pub latitude: f64,
    pub longitude: f64,
    /// ISO 4217 currency of the country.
    pub currency: String,
    /// Set for an enrolled merchant's location.
    pub merchant_id: Option<i64>,
    pub location_id: Option<i64>,
}

/// A merchant as the directory keeps it: strings that many merchants share (city, street,
/// country) are shared allocations, which halves the memory of a million merchants.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: i64,
    pub dba_name: Box<str>,
    pub descriptor: Box<str>,
    pub mcc: u16,
    pub street: Arc<str>,
    pub street_no: Box<str>,
    pub city: Arc<str>,
    pub region: Option<Arc<str>>,
    pub country: Arc<str>,
    pub zip: Arc<str>,
    pub phone: u64,
    pub latitude: f64,
    pub longitude: f64,
    pub currency: Arc<str>,
    pub merchant_id: Option<i64>,
    pub location_id: Option<i64>,
    /// An enrolled location replaced by a newer version of itself: no longer found.
    pub retired: bool,
}

/// Shares one allocation between every merchant in the same city, street or country.
#[derive(Default)]
pub struct Interner(HashMap<Box<str>, Arc<str>>);

impl Interner {
    pub fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(shared) = self.0.get(text) {
            return Arc::clone(shared);
        }
        let shared: Arc<str> = Arc::from(text);
        self.0.insert(text.into(), Arc::clone(&shared));
        shared
    }
}

/// Which directory the database holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryState {
    pub seed: i64,
    pub size: i64,
    pub version: i64,
}

pub fn state(connection: &Connection) -> StorageResult<Option<DirectoryState>> {
    let mut statement = connection.prepare_cached("SELECT seed, size, version FROM directory_state WHERE id = 1")?;
    statement
        .query_row(params![], |row| Ok(DirectoryState { seed: row.get(0)?, size: row.get(1)?, version: row.get(2)? }))
        .optional()
}

/// Replaces the stored directory with `entries`.
pub fn replace(
    transaction: &Transaction<'_>,
    state: &DirectoryState,
    entries: &[Entry],
    now: i64,
) -> StorageResult<()> {
    transaction.execute("DELETE FROM directory_merchants", params![])?;
    let mut insert = transaction.prepare_cached(
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
    transaction.execute(
        "INSERT INTO directory_state (id, seed, size, version, generated_at) VALUES (1, ?1, ?2, ?3, ?4)
         ON CONFLICT (id) DO UPDATE SET seed = excluded.seed, size = excluded.size, version = excluded.version,
             generated_at = excluded.generated_at",
        params![state.seed, state.size, state.version, now],
    )?;
    Ok(())
}

/// The stored directory, by id.
pub fn load(connection: &Connection, interner: &mut Interner) -> StorageResult<Vec<Entry>> {
    let mut statement = connection.prepare_cached(
        "SELECT id, dba_name, descriptor, mcc, street, street_no, city, region, country, zip, phone, latitude,
             longitude, currency
         FROM directory_merchants ORDER BY id",
    )?;
    let mut rows = statement.query(params![])?;
    let mut entries = Vec::new();
    while let Some(row) = rows.next()? {
        let region: Option<String> = row.get(7)?;
        let phone: i64 = row.get(10)?;
        entries.push(Entry {
            id: row.get(0)?,
            dba_name: row.get::<String>(1)?.into(),
            descriptor: row.get::<String>(2)?.into(),
            mcc: row.get(3)?,
            street: interner.get(&row.get::<String>(4)?),
            street_no: row.get::<String>(5)?.into(),
            city: interner.get(&row.get::<String>(6)?),
            region: region.as_deref().map(|region| interner.get(region)),
            country: interner.get(&row.get::<String>(8)?),
            zip: interner.get(&row.get::<String>(9)?),
            phone: u64::try_from(phone).unwrap_or(0),
            latitude: row.get(11)?,
            longitude: row.get(12)?,
            currency: interner.get(&row.get::<String>(13)?),
            merchant_id: None,
            location_id: None,
            retired: false,
        });
    }
    Ok(entries)
}

/// The id of every enrolled location.
pub fn location_ids(connection: &Connection) -> StorageResult<Vec<i64>> {
    connection.query_map("SELECT id FROM locations", params![], |row| row.get(0))?.collect()
}

fn table_exists(connection: &Connection, name: &str) -> StorageResult<bool> {
    let mut statement = connection.prepare_cached(match connection.dialect() {
        Dialect::Sqlite => "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        Dialect::Postgres => {
            "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?1"
        }
    })?;
    statement.exists([name])
}

/// Every enrolled merchant's location, as directory merchants. Nothing before the merchant
/// tables exist.
pub fn enrolled_locations(connection: &Connection) -> StorageResult<Vec<DirectoryMerchant>> {
    enrolled_locations_after(connection, 0)
}

/// As [`enrolled_locations`], those with an id above `after_id`.
pub fn enrolled_locations_after(connection: &Connection, after_id: i64) -> StorageResult<Vec<DirectoryMerchant>> {
    if !table_exists(connection, "locations")? || !table_exists(connection, "merchants")? {
        return Ok(Vec::new());
    }
    let mut statement = connection.prepare_cached(
        "SELECT l.id, l.merchant_id, m.name, m.mcc, m.phone, l.country_code, l.street, l.street_no, l.city, l.zip,
             l.latitude, l.longitude, l.descriptor
         FROM locations l JOIN merchants m ON m.id = l.merchant_id
         WHERE l.id > ?1
         ORDER BY l.id",
    )?;
    let mut rows = statement.query([after_id])?;
    let mut locations = Vec::new();
    while let Some(row) = rows.next()? {
        let location_id: i64 = row.get(0)?;
        let text = |index: usize| -> super::StorageResult<String> {
            Ok(match row.get::<Value>(index)? {
                Value::Text(text) => text,
                Value::Integer(number) => number.to_string(),
                Value::Real(number) => number.to_string(),
                Value::Null | Value::Blob(_) => String::new(),
            })
        };
        let number = |index: usize| -> super::StorageResult<f64> {
            Ok(match row.get::<Value>(index)? {
                Value::Real(number) => number,
                Value::Integer(number) => number as f64,
                _ => f64::NAN,
            })
        };
        let phone_digits: String = text(4)?.chars().filter(char::is_ascii_digit).collect();
        locations.push(DirectoryMerchant {
            id: location_id,
            dba_name: text(2)?,
            descriptor: text(12)?,
            mcc: text(3)?,
            street: text(6)?,
            street_no: text(7)?,
            city: text(8)?,
            region: None,
            country: text(5)?.to_ascii_uppercase(),
            zip: text(9)?,
            phone: phone_digits.parse().unwrap_or(0),
            latitude: number(10)?,
            longitude: number(11)?,
            currency: String::new(),
            merchant_id: Some(row.get(1)?),
            location_id: Some(location_id),
        });
    }
    Ok(locations)
}
