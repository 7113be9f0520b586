//! The generated merchant directory, and the enrolled locations that join it. The rows are
//! defined here; what the directory does with them (search, statements) is `crate::directory`.

use std::collections::HashMap;
use std::sync::Arc;

use super::{StorageResult, Store, dispatch, postgres, sqlite};

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

/// Rows read per statement while loading: a round trip each.
pub(super) const LOAD_PAGE: i64 = 10_000;

impl Store {
    /// Which directory the database holds.
    pub async fn directory_state(&self) -> StorageResult<Option<DirectoryState>> {
        dispatch!(self,
            db => db.read(sqlite::directory::state).await,
            db => postgres::directory::state(db).await,
        )
    }

    /// Replaces the stored directory with `entries`.
    pub async fn replace_directory(
        &self,
        state: DirectoryState,
        entries: Arc<Vec<Entry>>,
        now: i64,
    ) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::directory::replace(connection, &state, &entries, now)).await,
            db => postgres::directory::replace(db, state, entries, now).await,
        )
    }

    /// The stored directory, by id, its repeated strings shared.
    pub async fn load_directory(&self) -> StorageResult<(Vec<Entry>, Interner)> {
        dispatch!(self,
            db => db.read(sqlite::directory::load).await,
            db => postgres::directory::load(db).await,
        )
    }

    /// Every enrolled merchant's location, as directory merchants.
    pub async fn enrolled_locations(&self) -> StorageResult<Vec<DirectoryMerchant>> {
        dispatch!(self,
            db => db.read(|connection| sqlite::directory::enrolled_locations(connection, None)).await,
            db => postgres::directory::enrolled_locations(db, None).await,
        )
    }

    /// One enrolled location, as a directory merchant (`None` when it is gone).
    pub async fn enrolled_location(&self, location_id: i64) -> StorageResult<Option<DirectoryMerchant>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::directory::enrolled_locations(connection, Some(location_id))).await,
            db => postgres::directory::enrolled_locations(db, Some(location_id)).await,
        )
        .map(|mut found| found.pop())
    }

    /// The id of every enrolled location.
    pub async fn location_ids(&self) -> StorageResult<Vec<i64>> {
        dispatch!(self,
            db => db.read(sqlite::directory::location_ids).await,
            db => postgres::directory::location_ids(db).await,
        )
    }
}

/// An enrolled location as a directory merchant, from its columns as read.
#[allow(clippy::too_many_arguments)]
pub(super) fn enrolled_merchant(
    location_id: i64,
    merchant_id: i64,
    name: String,
    mcc: String,
    phone: Option<String>,
    address: super::merchants::StoredAddress,
    latitude: Option<f64>,
    longitude: Option<f64>,
    descriptor: String,
) -> DirectoryMerchant {
    let phone_digits: String = phone.unwrap_or_default().chars().filter(char::is_ascii_digit).collect();
    DirectoryMerchant {
        id: location_id,
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
pub(super) const ENROLLED_COLUMNS: &str = "l.id, l.merchant_id, m.name, m.mcc, m.phone, l.country_code, l.street, \
     l.street_no, l.city, l.zip, l.latitude, l.longitude, l.descriptor";
