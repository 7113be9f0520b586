//! The generated merchant directory, and the enrolled locations that join it. What the
//! directory does with them (search, statements) is `crate::directory`.

use std::sync::Arc;
use subscriber_protocol::UnixSeconds;

use super::rows::directory::ENROLLED_COLUMNS;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::LocationId;

pub use super::rows::directory::{DirectoryMerchant, DirectoryState, Entry, Interner};

impl Store {
    /// Which directory the database holds.
    pub async fn directory_state(&self) -> StorageResult<Option<DirectoryState>> {
        let sql = sql!("SELECT seed, size, version FROM directory_state WHERE id = 1");
        self.fetch_one(Read::Scan, sql, args![]).await
    }

    /// Replaces the stored directory with `entries`.
    pub async fn replace_directory(
        &self,
        state: DirectoryState,
        entries: Arc<Vec<Entry>>,
        now: UnixSeconds,
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
        self.fetch_all(enrolled(), args![None::<i64>]).await
    }

    /// One enrolled location, as a directory merchant (`None` when it is gone).
    pub async fn enrolled_location(&self, location_id: LocationId) -> StorageResult<Option<DirectoryMerchant>> {
        self.fetch_one(Read::Scan, enrolled(), args![location_id]).await
    }

    /// The id of every enrolled location.
    pub async fn location_ids(&self) -> StorageResult<Vec<LocationId>> {
        self.fetch_all(sql!("SELECT id FROM locations"), args![]).await
    }
}

/// Every enrolled location, or the one with id `$1`.
fn enrolled() -> &'static super::sql::Sql {
    sql!(
        "SELECT {ENROLLED_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
         WHERE CAST($1 AS BIGINT) IS NULL OR l.id = $1 ORDER BY l.id"
    )
}
