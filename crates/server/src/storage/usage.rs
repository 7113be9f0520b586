//! Billable request counts by subscriber, day and route.

use super::sql::{args, sql};
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::SubscriberId;

pub use super::rows::usage::UsageCount;

impl Store {
    /// Adds the counts (a batch gathered in memory).
    pub async fn add_usage(&self, counts: Vec<UsageCount>) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::usage::add(connection, &counts)).await,
            db => postgres::usage::add(db, counts).await,
        )
    }

    /// (day, endpoint, count), newest day first.
    pub async fn usage(&self, subscriber_id: SubscriberId) -> StorageResult<Vec<(String, String, u64)>> {
        let sql =
            sql!("SELECT day, endpoint, count FROM usage_counts WHERE subscriber_id = $1 ORDER BY day DESC, endpoint");
        self.fetch_all(sql, args![subscriber_id]).await
    }
}
