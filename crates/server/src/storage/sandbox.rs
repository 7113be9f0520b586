//! The sandbox's controls over a subscriber's own data: its clock and a reset.

use super::notices::Change;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::{LocationId, SubscriberId};

/// What a reset removed that lives outside the database too.
#[derive(Debug, Default)]
pub struct Removed {
    /// Enrolled locations, findable by discovery until now.
    pub location_ids: Vec<LocationId>,
}

impl Store {
    /// Moves the subscriber's pending deadlines `seconds` earlier, as if its clock ran ahead:
    /// purchases settle, open card-entry pages, bank links and identity questions expire, and
    /// locks run out that much sooner.
    /// Returns how many deadlines moved.
    pub async fn advance_clock(&self, subscriber_id: SubscriberId, seconds: i64) -> StorageResult<u64> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::sandbox::advance_clock(connection, subscriber_id, seconds)).await,
            db => postgres::sandbox::advance_clock(db, subscriber_id, seconds).await,
        )
    }

    /// Deletes everything of the subscriber's but the account itself (and its usage, which is
    /// billing): cards and their transactions, the merchant and its locations, bank accounts,
    /// persons, webhook endpoints and events. A purchase between this subscriber and another one
    /// stays on the other side's list, without this side.
    pub async fn reset_sandbox(&self, subscriber_id: SubscriberId) -> StorageResult<Removed> {
        let removed = dispatch!(self,
            db => db.write(move |connection| sqlite::sandbox::reset(connection, subscriber_id)).await,
            db => postgres::sandbox::reset(db, subscriber_id).await,
        )?;
        self.announce(&Change::reset(subscriber_id, &removed.location_ids));
        Ok(removed)
    }
}
