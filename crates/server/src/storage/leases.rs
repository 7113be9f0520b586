//! Leases on work one instance at a time does (see migration 0009).

use subscriber_protocol::UnixMillis;

use super::sql::{args, sql};
use super::{StorageResult, Store};

impl Store {
    /// Takes or renews the lease `name` for `holder` until `until_ms`: `true` when `holder`
    /// has it now (it held it, or its last holder let it lapse before `now_ms`).
    pub async fn hold_lease(
        &self,
        name: &'static str,
        holder: String,
        now_ms: UnixMillis,
        until_ms: UnixMillis,
    ) -> StorageResult<bool> {
        let sql = sql!(
            "INSERT INTO leases (name, holder, expires_at_ms) VALUES ($1, $2, $4)
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
             WHERE leases.holder = excluded.holder OR leases.expires_at_ms < $3"
        );
        Ok(self.execute(sql, args![name, holder, now_ms, until_ms]).await? == 1)
    }
}
