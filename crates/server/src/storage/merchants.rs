//! Enrolled merchants (one per subscriber) and their locations.

use super::changes::Change;
use super::idempotency::Replay;
use super::{StorageError, StorageResult, Store, dispatch, postgres, sqlite};

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

pub(super) const MERCHANT_COLUMNS: &str = "id, subscriber_id, name, mcc, country_code, phone, website, created_at";
pub(super) const M_COLUMNS: &str =
    "m.id, m.subscriber_id, m.name, m.mcc, m.country_code, m.phone, m.website, m.created_at";

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

    pub(super) fn parse(text: &str) -> StorageResult<Self> {
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

pub(super) const LOCATION_COLUMNS: &str = "l.id, l.merchant_id, l.country_code, l.street, l.street_no, l.city, l.zip, \
     l.latitude, l.longitude, l.coordinates_source, l.descriptor, l.created_at";

#[derive(Debug, Clone)]
pub struct NewMerchant {
    pub subscriber_id: i64,
    pub name: String,
    pub mcc: String,
    pub country_code: String,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub created_at: i64,
}

pub enum Inserted {
    Created(i64),
    /// The subscriber is already a merchant, under this id.
    Existing(i64),
}

/// A location to add to the caller's merchant, with the data of its event.
pub struct NewLocation {
    pub subscriber_id: i64,
    pub merchant_id: i64,
    pub address: StoredAddress,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub coordinates_source: CoordinatesSource,
    pub descriptor: String,
    pub created_at: i64,
    /// The `merchant.location.created` event's data (JSON), given the location's id.
    pub event_data: Box<dyn FnOnce(i64) -> super::events::StoredEvent + Send>,
}

impl Store {
    /// Enrolls the subscriber as a merchant (and keeps the request's replay); the existing one
    /// when it is a merchant already.
    pub async fn enroll_merchant(&self, merchant: NewMerchant, replay: Option<Replay>) -> StorageResult<Inserted> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::merchants::insert(connection, &merchant, replay)).await,
            db => postgres::merchants::insert(db, merchant, replay).await,
        )
    }

    /// The subscriber's merchant, if they enrolled as one.
    pub async fn merchant_of(&self, subscriber_id: i64) -> StorageResult<Option<MerchantRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::merchants::find_by_subscriber(connection, subscriber_id)).await,
            db => postgres::merchants::find_by_subscriber(db, subscriber_id).await,
        )
    }

    /// The merchant when it belongs to the subscriber; another subscriber's is `None`.
    pub async fn merchant(&self, subscriber_id: i64, merchant_id: i64) -> StorageResult<Option<MerchantRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::merchants::get(connection, subscriber_id, merchant_id)).await,
            db => postgres::merchants::get(db, subscriber_id, merchant_id).await,
        )
    }

    /// Adds the location with its event (and the request's replay); its id.
    pub async fn add_location(&self, location: NewLocation, replay: Option<Replay>) -> StorageResult<i64> {
        let id = dispatch!(self,
            db => db.write(move |connection| sqlite::merchants::insert_location(connection, location, replay)).await,
            db => postgres::merchants::insert_location(db, location, replay).await,
        )?;
        self.announce(&Change::Location(id));
        Ok(id)
    }

    /// The merchant's locations, oldest first.
    pub async fn locations(&self, merchant_id: i64) -> StorageResult<Vec<LocationRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::merchants::locations(connection, merchant_id)).await,
            db => postgres::merchants::locations(db, merchant_id).await,
        )
    }

    /// The location when it belongs to the merchant.
    pub async fn location_of(&self, merchant_id: i64, location_id: i64) -> StorageResult<Option<LocationRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::merchants::location_of(connection, merchant_id, location_id)).await,
            db => postgres::merchants::location_of(db, merchant_id, location_id).await,
        )
    }

    /// The location when it is one of the subscriber's merchant's (read without knowing the
    /// merchant first: one look-up).
    pub async fn subscribers_location(
        &self,
        subscriber_id: i64,
        location_id: i64,
    ) -> StorageResult<Option<LocationRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::merchants::subscribers_location(connection, subscriber_id, location_id)).await,
            db => postgres::merchants::subscribers_location(db, subscriber_id, location_id).await,
        )
    }

    /// The location at position `pick % count` of the merchant's locations; `None` when it has none.
    pub async fn pick_location(&self, merchant_id: i64, pick: u64) -> StorageResult<Option<LocationRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::merchants::pick_location(connection, merchant_id, pick)).await,
            db => postgres::merchants::pick_location(db, merchant_id, pick).await,
        )
    }

    /// The location at position `pick % count` of every enrolled location, with its merchant:
    /// where a simulated purchase happens. `None` when nobody enrolled one.
    pub async fn pick_any_location(&self, pick: u64) -> StorageResult<Option<(LocationRow, MerchantRow)>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::merchants::pick_any_location(connection, pick)).await,
            db => postgres::merchants::pick_any_location(db, pick).await,
        )
    }
}
