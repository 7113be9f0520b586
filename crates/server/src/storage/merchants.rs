//! Enrolled merchants (one per subscriber) and their locations.

use super::cards::non_negative;
use super::notices::Change;
use super::rows::idempotency::Replay;
use super::rows::merchants::{LOCATION_COLUMNS, M_COLUMNS, MERCHANT_COLUMNS};
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageError, StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::{LocationId, MerchantId, SubscriberId};

pub use super::rows::merchants::{
    CoordinatesSource, Inserted, LocationChange, LocationChangeKind, LocationRow, MerchantRow, NewLocation,
    NewMerchant, StoredAddress,
};

impl Store {
    /// Enrolls the subscriber as a merchant (and keeps the request's replay); the existing one
    /// when it is a merchant already.
    pub async fn enroll_merchant(&self, merchant: NewMerchant, replay: Option<Replay>) -> StorageResult<Inserted> {
        let NewMerchant { id: _, subscriber_id, name, mcc, country_code, phone, website, created_at } = merchant;
        // `subscriber_id` is unique: a second enrollment inserts nothing and reads the first.
        let sql = sql!(
            "INSERT INTO merchants (subscriber_id, name, mcc, country_code, phone, website, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (subscriber_id) DO NOTHING RETURNING id"
        );
        let args = args![subscriber_id, name, mcc, country_code, phone, website, created_at];
        if let Some(id) = self.try_insert_keeping_replay(sql, args, created_at, replay).await? {
            return Ok(Inserted::Created(MerchantId(id)));
        }
        let sql = sql!("SELECT id FROM merchants WHERE subscriber_id = $1");
        let existing = self.fetch_one(Read::ByKey, sql, args![subscriber_id]).await?;
        existing
            .map(Inserted::Existing)
            .ok_or_else(|| StorageError::Corrupt("a merchant neither enrolled nor found".into()))
    }

    /// The subscriber's merchant, if they enrolled as one.
    pub async fn merchant_of(&self, subscriber_id: SubscriberId) -> StorageResult<Option<MerchantRow>> {
        let sql = sql!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE subscriber_id = $1");
        self.fetch_one(Read::ByKey, sql, args![subscriber_id]).await
    }

    /// The merchant when it belongs to the subscriber; another subscriber's is `None`.
    pub async fn merchant(
        &self,
        subscriber_id: SubscriberId,
        merchant_id: MerchantId,
    ) -> StorageResult<Option<MerchantRow>> {
        let sql = sql!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE id = $1 AND subscriber_id = $2");
        self.fetch_one(Read::ByKey, sql, args![merchant_id, subscriber_id]).await
    }

    /// Adds the location with its event (and the request's replay); its id.
    pub async fn add_location(&self, location: NewLocation, replay: Option<Replay>) -> StorageResult<LocationId> {
        let id = dispatch!(self,
            db => db.write(move |connection| sqlite::merchants::insert_location(connection, location, replay)).await,
            db => postgres::merchants::insert_location(db, location, replay).await,
        )?;
        self.announce(&Change::Location(id));
        Ok(id)
    }

    /// Changes or removes the location, recording its event in the same transaction; `false`
    /// when it is not there (any more). Other instances hear of it: discovery there finds it as
    /// it is now, or no longer.
    pub async fn change_location(&self, change: LocationChange) -> StorageResult<bool> {
        let location_id = match &change.kind {
            LocationChangeKind::Update(row) => row.id,
            LocationChangeKind::Remove { location_id, .. } => *location_id,
        };
        let changed = dispatch!(self,
            db => db.write(move |connection| sqlite::merchants::change_location(connection, change)).await,
            db => postgres::merchants::change_location(db, change).await,
        )?;
        if changed {
            self.announce(&Change::LocationChanged(location_id));
        }
        Ok(changed)
    }

    /// The merchant's locations, oldest first.
    pub async fn locations(&self, merchant_id: MerchantId) -> StorageResult<Vec<LocationRow>> {
        let sql = sql!("SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.merchant_id = $1 ORDER BY l.id");
        self.fetch_all(sql, args![merchant_id]).await
    }

    /// The location when it belongs to the merchant.
    pub async fn location_of(
        &self,
        merchant_id: MerchantId,
        location_id: LocationId,
    ) -> StorageResult<Option<LocationRow>> {
        let sql = sql!("SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.id = $1 AND l.merchant_id = $2");
        self.fetch_one(Read::ByKey, sql, args![location_id, merchant_id]).await
    }

    /// The location when it is one of the subscriber's merchant's (read without knowing the
    /// merchant first: one look-up).
    pub async fn subscribers_location(
        &self,
        subscriber_id: SubscriberId,
        location_id: LocationId,
    ) -> StorageResult<Option<LocationRow>> {
        let sql = sql!(
            "SELECT {LOCATION_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
             WHERE l.id = $1 AND m.subscriber_id = $2"
        );
        self.fetch_one(Read::ByKey, sql, args![location_id, subscriber_id]).await
    }

    /// One of the merchant's locations, picked by `pick` (any number: the locations are counted
    /// round, in id order); `None` when it has none.
    pub async fn pick_location(&self, merchant_id: MerchantId, pick: u64) -> StorageResult<Option<LocationRow>> {
        let sql = sql!(
            "SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.merchant_id = $1 ORDER BY l.id LIMIT 1
             OFFSET (SELECT COALESCE($2 % NULLIF(COUNT(*), 0), 0) FROM locations WHERE merchant_id = $1)"
        );
        self.fetch_one(Read::Scan, sql, args![merchant_id, non_negative(pick)]).await
    }

    /// One of every enrolled location, with its merchant, picked by `pick` (as
    /// [`Store::pick_location`]): where a simulated purchase happens. `None` when nobody enrolled
    /// one.
    pub async fn pick_any_location(&self, pick: u64) -> StorageResult<Option<(LocationRow, MerchantRow)>> {
        let sql = sql!(
            "SELECT {LOCATION_COLUMNS}, {M_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
             ORDER BY l.id LIMIT 1
             OFFSET (SELECT COALESCE($1 % NULLIF(COUNT(*), 0), 0) FROM locations)"
        );
        self.fetch_one(Read::Scan, sql, args![non_negative(pick)]).await
    }
}
