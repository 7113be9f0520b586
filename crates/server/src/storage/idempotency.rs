//! Responses of creating requests sent with an `Idempotency-Key`, replayed on a retry.

use super::rows::idempotency::{STORE, store_args};
use super::sql::{Param, Sql, args, sql};
use super::statement::Read;
use super::{StorageError, StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::UnixSeconds;

pub use super::rows::idempotency::{Replay, StoredResponse};

impl Store {
    pub async fn idempotent_response(&self, scope: String, key: String) -> StorageResult<Option<StoredResponse>> {
        let sql =
            sql!("SELECT request_hash, status, response_body FROM idempotency_keys WHERE scope = $1 AND key = $2");
        self.fetch_one(Read::ByKey, sql, args![scope, key]).await
    }

    /// Keeps the first response for a key; a second store for the same key changes nothing.
    pub async fn store_idempotent_response(
        &self,
        scope: String,
        key: String,
        response: StoredResponse,
        now: UnixSeconds,
    ) -> StorageResult<()> {
        self.execute(&STORE, store_args(&scope, &key, &response, now).map(Param::into_owned)).await?;
        Ok(())
    }

    /// Every response kept in `scope`, as (key, sealed body): what a removal reads to find the
    /// replays that carry the removed object (the bodies are sealed: only the service reads
    /// them).
    pub async fn idempotent_responses(&self, scope: String) -> StorageResult<Vec<(String, Vec<u8>)>> {
        self.fetch_all(sql!("SELECT key, response_body FROM idempotency_keys WHERE scope = $1"), args![scope]).await
    }

    /// Forgets the response kept for `key` in `scope`.
    pub async fn forget_idempotent_response(&self, scope: String, key: String) -> StorageResult<()> {
        self.execute(sql!("DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2"), args![scope, key]).await?;
        Ok(())
    }

    /// Forgets keys older than `before`.
    pub async fn purge_idempotency(&self, before: UnixSeconds) -> StorageResult<u64> {
        self.execute_maintenance(sql!("DELETE FROM idempotency_keys WHERE created_at < $1"), args![before]).await
    }

    /// Runs `insert` (an `INSERT … RETURNING id`) and keeps the creating request's replay with
    /// the new row's id, in one write (a replay is never kept for a row that is not there). The
    /// new id.
    pub(super) async fn insert_keeping_replay<const N: usize>(
        &self,
        insert: &'static Sql,
        args: [Param<'static>; N],
        now: UnixSeconds,
        replay: Option<Replay>,
    ) -> StorageResult<i64> {
        self.try_insert_keeping_replay(insert, args, now, replay)
            .await?
            .ok_or_else(|| StorageError::Corrupt("an insert returned no id".into()))
    }

    /// As [`Store::insert_keeping_replay`], for an insert that may insert nothing (`ON CONFLICT
    /// DO NOTHING`): then `None`, and no replay is kept.
    pub(super) async fn try_insert_keeping_replay<const N: usize>(
        &self,
        insert: &'static Sql,
        args: [Param<'static>; N],
        now: UnixSeconds,
        replay: Option<Replay>,
    ) -> StorageResult<Option<i64>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::idempotency::insert_keeping_replay(connection, insert, &args, now, replay)).await,
            db => postgres::idempotency::insert_keeping_replay(db, insert, args, now, replay).await,
        )
    }
}
