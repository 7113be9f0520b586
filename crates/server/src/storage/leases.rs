//! Leases on work one instance at a time does (see migration 0009).

use super::{StorageResult, Store, dispatch, postgres, sqlite};

impl Store {
    /// Takes or renews the lease `name` for `holder` until `until_ms`: `true` when `holder`
    /// has it now (it held it, or its last holder let it lapse before `now_ms`).
    pub async fn hold_lease(
        &self,
        name: &'static str,
        holder: String,
        now_ms: i64,
        until_ms: i64,
    ) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::leases::hold(connection, name, &holder, now_ms, until_ms)).await,
            db => postgres::leases::hold(db, name, &holder, now_ms, until_ms).await,
        )
    }
}
