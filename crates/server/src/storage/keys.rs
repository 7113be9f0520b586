//! What the database keeps about the service's keys: only check values (see [`crate::keys`]).
//! Versions before the key file kept the keys themselves here: [`Store::stored_keys`] hands
//! them over once, and [`Store::settle_key_checks`] leaves only the checks.

use super::rows::keys::ALL;
use super::sql::args;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::UnixSeconds;

pub use super::rows::keys::KeyRow;

impl Store {
    /// Every row. Rows named `check:*` are check values, the others keys of an older version.
    pub async fn stored_keys(&self) -> StorageResult<Vec<KeyRow>> {
        self.fetch_all(&ALL, args![]).await
    }

    /// Removes keys of an older version, keeps `checks` where the database has none yet, and
    /// returns the checks it holds now: the first instance to start on a database sets them,
    /// and one started at the same moment with another key file sees they are not its own.
    pub async fn settle_key_checks(&self, checks: Vec<KeyRow>, now: UnixSeconds) -> StorageResult<Vec<KeyRow>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::keys::settle_checks(connection, &checks, now)).await,
            db => postgres::keys::settle_checks(db, checks, now).await,
        )
    }
}
