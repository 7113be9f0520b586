//! A person's one-time identity pages: found by the hash of their link's token, never by the
//! token. They hold no personal information: the page asks the same question sets as the API.

use super::rows::idempotency::Replay;
use super::rows::person_sessions::COLUMNS;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store};
use subscriber_protocol::PersonId;
use subscriber_protocol::PersonSessionId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

pub use super::rows::person_sessions::PersonSessionRow;

/// A page to open for one of the subscriber's persons.
pub struct NewPersonSession {
    pub subscriber_id: SubscriberId,
    pub person_id: PersonId,
    pub token_hash: Vec<u8>,
    pub created_at: UnixSeconds,
    pub expires_at: UnixSeconds,
    pub return_url: Option<String>,
}

impl Store {
    /// Opens the page (and keeps the request's replay); its id.
    pub async fn open_person_session(
        &self,
        page: NewPersonSession,
        replay: Option<Replay>,
    ) -> StorageResult<PersonSessionId> {
        let NewPersonSession { subscriber_id, person_id, token_hash, created_at, expires_at, return_url } = page;
        let sql = sql!(
            "INSERT INTO person_sessions (subscriber_id, person_id, token_hash, created_at, expires_at, return_url)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id"
        );
        let args = args![subscriber_id, person_id, token_hash, created_at, expires_at, return_url];
        self.insert_keeping_replay(sql, args, created_at, replay).await.map(PersonSessionId)
    }

    pub async fn person_session_by_token(&self, token_hash: Vec<u8>) -> StorageResult<Option<PersonSessionRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM person_sessions WHERE token_hash = $1");
        self.fetch_one(Read::ByKey, sql, args![token_hash]).await
    }

    /// Marks the page used at `now` (the person was verified or locked on it); `false` when it
    /// was already.
    pub async fn complete_person_session(&self, id: PersonSessionId, now: UnixSeconds) -> StorageResult<bool> {
        let sql = sql!("UPDATE person_sessions SET completed_at = $2 WHERE id = $1 AND completed_at IS NULL");
        Ok(self.execute(sql, args![id, now]).await? == 1)
    }
}
