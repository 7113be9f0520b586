//! Snapshots of a subscriber's sandbox: taken, listed, put back exactly, deleted (contract:
//! "Sandbox scenarios, snapshots"). What a snapshot holds is `rows::snapshots::PARTS`.

use super::sql::args;
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{SnapshotId, SubscriberId};

use super::notices::Change;
use super::rows::snapshots::{DELETE, LIST, ONE};
pub use super::rows::snapshots::{Restored, SnapshotRow};

impl Store {
    /// The subscriber's snapshots, newest first.
    pub async fn sandbox_snapshots(&self, subscriber_id: SubscriberId) -> StorageResult<Vec<SnapshotRow>> {
        self.fetch_all(&LIST, args![subscriber_id]).await
    }

    /// The subscriber's snapshot `id`.
    pub async fn sandbox_snapshot(
        &self,
        subscriber_id: SubscriberId,
        id: SnapshotId,
    ) -> StorageResult<Option<SnapshotRow>> {
        self.fetch_one(Read::ByKey, &ONE, args![subscriber_id, id]).await
    }

    /// Takes a snapshot of everything of the subscriber's a restore puts back, read in one
    /// transaction; `None` when the subscriber has `max` already.
    pub async fn take_snapshot(
        &self,
        subscriber_id: SubscriberId,
        name: String,
        now: UnixSeconds,
        max: usize,
    ) -> StorageResult<Option<SnapshotRow>> {
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        dispatch!(self,
            db => db.write(move |connection| sqlite::snapshots::take(connection, subscriber_id, &name, now, max)).await,
            db => postgres::snapshots::take(db, subscriber_id, name, now, max).await,
        )
    }

    /// Puts the subscriber's sandbox back as snapshot `id` held it, in one transaction: what was
    /// made since is gone, what changed is as it was, sync sees both (the transactions of the
    /// subscriber's cards changed or made since are `modified` or `removed`); other subscribers'
    /// rows stay as they are. `None` when the subscriber has no such snapshot.
    pub async fn restore_snapshot(
        &self,
        subscriber_id: SubscriberId,
        id: SnapshotId,
        replays: String,
    ) -> StorageResult<Option<Restored>> {
        let restored = dispatch!(self,
            db => db.write(move |connection| sqlite::snapshots::restore(connection, subscriber_id, id, &replays)).await,
            db => postgres::snapshots::restore(db, subscriber_id, id, replays).await,
        )?;
        if let Some(restored) = &restored {
            self.announce(&Change::restored(subscriber_id, restored));
        }
        Ok(restored)
    }

    /// Deletes the subscriber's snapshot `id`; `false` when there was none.
    pub async fn delete_snapshot(&self, subscriber_id: SubscriberId, id: SnapshotId) -> StorageResult<bool> {
        Ok(self.execute(&DELETE, args![subscriber_id, id]).await? > 0)
    }
}
