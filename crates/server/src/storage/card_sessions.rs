//! One-time card-entry pages: found by the hash of their link's token, never by the token.

use super::events::StoredEvent;
use super::rows::card_sessions::COLUMNS;
use super::rows::idempotency::Replay;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageError, StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardSessionId, SubscriberId};

pub use super::rows::card_sessions::{CardSessionRow, NewTokenPage};

impl Store {
    /// Opens a page for the subscriber (and keeps the request's replay); its id.
    pub async fn open_card_session(&self, page: NewTokenPage, replay: Option<Replay>) -> StorageResult<CardSessionId> {
        let NewTokenPage { subscriber_id, token_hash, created_at, expires_at, return_url, labels } = page;
        let sql = sql!(
            "INSERT INTO card_sessions
                 (subscriber_id, token_hash, created_at, expires_at, return_url, client_user_id, metadata)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id"
        );
        let [client_user_id, metadata] = super::rows::labels::args(&labels);
        let args = args![subscriber_id, token_hash, created_at, expires_at, return_url, client_user_id, metadata];
        self.insert_keeping_replay(sql, args, created_at, replay).await.map(CardSessionId)
    }

    /// The session when it belongs to the subscriber.
    pub async fn card_session(
        &self,
        subscriber_id: SubscriberId,
        id: CardSessionId,
    ) -> StorageResult<Option<CardSessionRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM card_sessions WHERE id = $1 AND subscriber_id = $2");
        self.fetch_one(Read::ByKey, sql, args![id, subscriber_id]).await
    }

    pub async fn card_session_by_token(&self, token_hash: Vec<u8>) -> StorageResult<Option<CardSessionRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM card_sessions WHERE token_hash = $1");
        self.fetch_one(Read::ByKey, sql, args![token_hash]).await
    }

    /// Records `card_session.expired` for session `id` of `subscriber_id` when it is past its
    /// expiry at `now`, not completed, and not recorded before (the mark and the event are one
    /// write, so two readers cannot both record it); whether this call recorded it.
    pub async fn record_card_session_expiry(
        &self,
        subscriber_id: SubscriberId,
        id: CardSessionId,
        now: UnixSeconds,
        event: StoredEvent,
    ) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::card_sessions::record_expiry(connection, subscriber_id, id, now, event)).await,
            db => postgres::card_sessions::record_expiry(db, subscriber_id, id, now, event).await,
        )
    }

    /// Counts a rejected submission; at `max_attempts` the session closes (expires now).
    /// Returns the attempts counted so far.
    pub async fn record_card_session_failure(
        &self,
        id: CardSessionId,
        max_attempts: u32,
        now: UnixSeconds,
    ) -> StorageResult<u32> {
        let sql = sql!(
            "UPDATE card_sessions SET failed_attempts = failed_attempts + 1,
                 expires_at = CASE WHEN failed_attempts + 1 >= $2 AND expires_at > $3 THEN $3 ELSE expires_at END
             WHERE id = $1 RETURNING failed_attempts"
        );
        self.execute_returning(sql, args![id, max_attempts, now])
            .await?
            .ok_or_else(|| StorageError::Corrupt(format!("no card session {id} to count a failure of")))
    }
}
