//! Places of open event streams, held in the database so a subscriber's cap of streams holds
//! across instances (PostgreSQL, migration 0005). On SQLite one instance serves the file and its
//! in-process count is the whole truth: every place is granted there.

use std::time::Duration;
use subscriber_protocol::SubscriberId;

use super::{StorageResult, Store, dispatch, postgres};

/// How long a place stays held without a renewal: its instance renews it well before.
pub const HELD_FOR: Duration = Duration::from_secs(30);

impl Store {
    /// Takes one of the subscriber's `max` places for the stream `holder`: `false` when every
    /// place is held by a live stream.
    pub async fn take_stream_place(
        &self,
        subscriber_id: SubscriberId,
        holder: String,
        max: usize,
    ) -> StorageResult<bool> {
        dispatch!(self,
            _db => Ok(true),
            db => postgres::stream_places::take(db, subscriber_id, &holder, max, HELD_FOR).await,
        )
    }

    /// Keeps the places of the streams `holders` (this instance's open ones) held.
    pub async fn renew_stream_places(&self, holders: Vec<String>) -> StorageResult<()> {
        dispatch!(self,
            _db => Ok(()),
            db => postgres::stream_places::renew(db, &holders, HELD_FOR).await,
        )
    }

    /// Frees the place of the stream `holder` (it ended).
    pub async fn free_stream_place(&self, holder: String) -> StorageResult<()> {
        dispatch!(self,
            _db => Ok(()),
            db => postgres::stream_places::free(db, &holder).await,
        )
    }
}
