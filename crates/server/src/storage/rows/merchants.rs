//! Enrolled merchants' rows (one per subscriber) and their locations'.

use super::{Column, Columns, FromRow};
use crate::storage::sql::{Param, Sql, args, sql};
use crate::storage::{StorageError, StorageResult};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{LocationId, MerchantId, SubscriberId};

#[derive(Debug, Clone, PartialEq)]
pub struct MerchantRow {
    pub id: MerchantId,
    pub subscriber_id: SubscriberId,
    pub name: String,
    pub mcc: String,
    pub country_code: String,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub created_at: UnixSeconds,
}

pub(in crate::storage) const MERCHANT_COLUMNS: &str =
    "id, subscriber_id, name, mcc, country_code, phone, website, created_at";
pub(in crate::storage) const M_COLUMNS: &str =
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
    pub id: LocationId,
    pub merchant_id: MerchantId,
    pub address: StoredAddress,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub coordinates_source: CoordinatesSource,
    pub descriptor: String,
    pub created_at: UnixSeconds,
    /// The subscriber's notes on it.
    pub metadata: super::labels::Metadata,
}

pub(in crate::storage) const LOCATION_COLUMNS: &str = "l.id, l.merchant_id, l.country_code, l.street, l.street_no, l.city, l.zip, \
     l.latitude, l.longitude, l.coordinates_source, l.descriptor, l.created_at, l.metadata";

/// A merchant to enroll; `id` is ignored.
pub type NewMerchant = MerchantRow;

pub enum Inserted {
    Created(MerchantId),
    /// The subscriber is already a merchant, under this id.
    Existing(MerchantId),
}

/// A location to add to the caller's merchant, with the data of its event.
pub struct NewLocation {
    pub subscriber_id: SubscriberId,
    /// The location as it is kept (its `id` is ignored).
    pub row: LocationRow,
    /// The `merchant.location.created` event's data (JSON), given the location's id.
    pub event_data: Box<dyn FnOnce(LocationId) -> super::events::StoredEvent + Send>,
}

impl FromRow for MerchantRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            name: row.column(2)?,
            mcc: row.column(3)?,
            country_code: row.column(4)?,
            phone: row.column(5)?,
            website: row.column(6)?,
            created_at: row.column(7)?,
        })
    }
}

impl Column for CoordinatesSource {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.text(index)?.map(Self::parse).transpose()
    }
}

/// [`LOCATION_COLUMNS`].
impl FromRow for LocationRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            merchant_id: row.column(1)?,
            address: StoredAddress {
                country_code: row.column(2)?,
                street: row.column(3)?,
                street_no: row.column(4)?,
                city: row.column(5)?,
                zip: row.column(6)?,
            },
            latitude: row.column(7)?,
            longitude: row.column(8)?,
            coordinates_source: row.column(9)?,
            descriptor: row.column(10)?,
            created_at: row.column(11)?,
            metadata: row.column(12)?,
        })
    }
}

/// A location with its merchant: [`LOCATION_COLUMNS`], then [`M_COLUMNS`].
impl FromRow for (LocationRow, MerchantRow) {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok((LocationRow::from_row(row)?, MerchantRow::from_row(&row.skip(13))?))
    }
}

sql! {
    /// Adds a location ([`location_args`]); returns its id.
    pub(in crate::storage) static INSERT_LOCATION = "INSERT INTO locations (merchant_id, country_code, street,
            street_no, city, zip, latitude, longitude, coordinates_source, descriptor, metadata, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id";
}

/// [`INSERT_LOCATION`]'s arguments.
pub(in crate::storage) fn location_args(location: &LocationRow) -> [Param<'_>; 12] {
    location_columns(location, Param::from(location.created_at))
}

/// A location's columns as both [`INSERT_LOCATION`] and [`UPDATE_LOCATION`] take them: its
/// merchant, address, coordinates, descriptor and notes, then `last` (when it was added, for
/// an insert; its id, for an update).
fn location_columns<'row>(location: &'row LocationRow, last: Param<'row>) -> [Param<'row>; 12] {
    let address = &location.address;
    args![
        location.merchant_id,
        &address.country_code,
        &address.street,
        &address.street_no,
        &address.city,
        &address.zip,
        location.latitude,
        location.longitude,
        location.coordinates_source.as_str(),
        &location.descriptor,
        super::labels::metadata_text(&location.metadata),
        last,
    ]
}

/// A change to an existing location, with the event it records (in the same transaction).
pub struct LocationChange {
    pub subscriber_id: SubscriberId,
    pub kind: LocationChangeKind,
    pub event: super::events::StoredEvent,
    /// When: the event's time.
    pub at: UnixSeconds,
}

pub enum LocationChangeKind {
    /// The location's new address, coordinates and descriptor (`id` and `merchant_id` name it;
    /// `created_at` is kept as it was).
    Update(Box<LocationRow>),
    /// The location goes. Its row is deleted: the sales made there copied its address when they
    /// were made (`transactions.street`, `city`, … and `location_id`, which no key ties to
    /// `locations`), so they keep showing where they happened; ids never come again
    /// (AUTOINCREMENT, identity columns), so nothing new ever takes this one. Marking the row
    /// removed instead would leave every reader of `locations` (discovery, the simulator, the
    /// sandbox, resets, snapshots) to filter it.
    Remove { location_id: LocationId, merchant_id: MerchantId },
}

sql! {
    /// A location's new address ([`location_change_args`]).
    pub(in crate::storage) static UPDATE_LOCATION = "UPDATE locations SET country_code = $2, street = $3,
            street_no = $4, city = $5, zip = $6, latitude = $7, longitude = $8, coordinates_source = $9,
            descriptor = $10, metadata = $11
        WHERE merchant_id = $1 AND id = $12";
}

sql! {
    pub(in crate::storage) static DELETE_LOCATION = "DELETE FROM locations WHERE id = $1 AND merchant_id = $2";
}

/// The statement of a change and its arguments.
pub(in crate::storage) fn location_change_args(kind: &LocationChangeKind) -> (&'static Sql, Vec<Param<'_>>) {
    match kind {
        LocationChangeKind::Update(location) => {
            (&UPDATE_LOCATION, location_columns(location, Param::from(location.id)).into())
        }
        LocationChangeKind::Remove { location_id, merchant_id } => {
            (&DELETE_LOCATION, args![*location_id, *merchant_id].into())
        }
    }
}
