//! The generated merchant directory's rows, and the enrolled locations' that join it. What the
//! directory does with them (search, statements) is `crate::directory`.

use std::collections::HashMap;
use std::sync::Arc;

use super::merchants::StoredAddress;
use super::{Columns, FromRow};
use crate::storage::sql::sql;
use crate::storage::{StorageError, StorageResult};
use subscriber_protocol::{DirectoryEntryId, LocationId, MerchantId};

/// A merchant of the directory, as a statement and discovery show it.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectoryMerchant {
    /// `directory_merchants.id` (above [`crate::directory::generate::ID_BASE`]), or the location id for an
    /// enrolled location.
    pub id: DirectoryEntryId,
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
    pub merchant_id: Option<MerchantId>,
    pub location_id: Option<LocationId>,
}

/// A merchant as the directory keeps it: strings that many merchants share (city, street,
/// country) are shared allocations, which halves the memory of a million merchants.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: DirectoryEntryId,
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
    pub merchant_id: Option<MerchantId>,
    pub location_id: Option<LocationId>,
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

/// An enrolled location as a directory merchant: [`ENROLLED_COLUMNS`].
impl FromRow for DirectoryMerchant {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        let address = StoredAddress {
            country_code: row.column(5)?,
            street: row.column(6)?,
            street_no: row.column(7)?,
            city: row.column(8)?,
            zip: row.column(9)?,
        };
        let latitude: Option<f64> = row.column(10)?;
        let longitude: Option<f64> = row.column(11)?;
        Ok(enrolled_merchant(
            row.column(0)?,
            row.column(1)?,
            row.column(2)?,
            row.column(3)?,
            row.column(4)?,
            address,
            latitude,
            longitude,
            row.column(12)?,
        ))
    }
}

/// An enrolled location as a directory merchant, from its columns as read.
#[allow(clippy::too_many_arguments)]
fn enrolled_merchant(
    location_id: LocationId,
    merchant_id: MerchantId,
    name: String,
    mcc: String,
    phone: Option<String>,
    address: StoredAddress,
    latitude: Option<f64>,
    longitude: Option<f64>,
    descriptor: String,
) -> DirectoryMerchant {
    let phone_digits: String = phone.unwrap_or_default().chars().filter(char::is_ascii_digit).collect();
    DirectoryMerchant {
        id: DirectoryEntryId(location_id.get()),
        dba_name: name,
        descriptor,
        mcc,
        street: address.street,
        street_no: address.street_no,
        city: address.city,
        region: None,
        country: address.country_code.to_ascii_uppercase(),
        zip: address.zip,
        phone: phone_digits.parse().unwrap_or(0),
        // NaN marks a location whose position nobody knows: it is found by name and address only.
        latitude: latitude.unwrap_or(f64::NAN),
        longitude: longitude.unwrap_or(f64::NAN),
        currency: String::new(),
        merchant_id: Some(merchant_id),
        location_id: Some(location_id),
    }
}

/// The columns [`enrolled_merchant`] reads, in its order.
pub(in crate::storage) const ENROLLED_COLUMNS: &str = "l.id, l.merchant_id, m.name, m.mcc, m.phone, l.country_code, l.street, \
     l.street_no, l.city, l.zip, l.latitude, l.longitude, l.descriptor";

impl FromRow for DirectoryState {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self { seed: row.column(0)?, size: row.column(1)?, version: row.column(2)? })
    }
}

/// The columns [`entry`] reads, in its order.
pub(in crate::storage) const ENTRY_COLUMNS: &str = "id, dba_name, descriptor, mcc, street, street_no, city, region, country, zip, phone, latitude, longitude, currency";

/// A merchant of `directory_merchants` ([`ENTRY_COLUMNS`]), its repeated strings shared through
/// `interner` (read borrowed, copied once).
pub(in crate::storage) fn entry(row: &impl Columns, interner: &mut Interner) -> StorageResult<Entry> {
    let text = |index: usize| {
        row.text(index)?.ok_or_else(|| StorageError::Corrupt(format!("directory column {index} is NULL")))
    };
    let phone: i64 = row.column(10)?;
    Ok(Entry {
        id: row.column(0)?,
        dba_name: text(1)?.into(),
        descriptor: text(2)?.into(),
        mcc: row.column(3)?,
        street: interner.get(text(4)?),
        street_no: text(5)?.into(),
        city: interner.get(text(6)?),
        region: row.text(7)?.map(|region| interner.get(region)),
        country: interner.get(text(8)?),
        zip: interner.get(text(9)?),
        phone: u64::try_from(phone).unwrap_or(0),
        latitude: row.column(11)?,
        longitude: row.column(12)?,
        currency: interner.get(text(13)?),
        merchant_id: None,
        location_id: None,
        retired: false,
    })
}

sql! {
    /// Keeps which directory the database holds: seed `$1`, size `$2`, version `$3`, made at `$4`.
    pub(in crate::storage) static KEEP_STATE = "INSERT INTO directory_state (id, seed, size, version, generated_at)
        VALUES (1, $1, $2, $3, $4)
        ON CONFLICT (id) DO UPDATE SET seed = excluded.seed, size = excluded.size, version = excluded.version,
            generated_at = excluded.generated_at";
}

sql! {
    /// Empties the directory.
    pub(in crate::storage) static CLEAR = "DELETE FROM directory_merchants";
}
