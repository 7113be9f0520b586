//! Billable request counts by subscriber, day and route.

use super::{StorageResult, Store, dispatch, postgres, sqlite};

/// `(subscriber_id, day, endpoint)` and how many requests to add.
pub type UsageCount = ((i64, String, String), u64);

impl Store {
    /// Adds the counts (a batch gathered in memory).
    pub async fn add_usage(&self, counts: Vec<UsageCount>) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::usage::add(connection, &counts)).await,
            db => postgres::usage::add(db, counts).await,
        )
    }

    /// (day, endpoint, count), newest day first.
    pub async fn usage(&self, subscriber_id: i64) -> StorageResult<Vec<(String, String, u64)>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::usage::list(connection, subscriber_id)).await,
            db => postgres::usage::list(db, subscriber_id).await,
        )
    }
}
