//! One-time card-entry pages: found by the hash of their link's token, never by the token.

use super::idempotency::Replay;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

/// A one-time page to open for a subscriber (a card-entry page, a bank link), found later by
/// the hash of its link's token, never by the token.
#[derive(Debug, Clone)]
pub struct NewTokenPage {
    pub subscriber_id: i64,
    pub token_hash: Vec<u8>,
    pub created_at: i64,
    pub expires_at: i64,
}

#[derive(Debug, Clone)]
pub struct CardSessionRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub created_at: i64,
    pub expires_at: i64,
    pub failed_attempts: u32,
    pub completed_at: Option<i64>,
    pub card_id: Option<i64>,
}

pub(super) const COLUMNS: &str = "id, subscriber_id, created_at, expires_at, failed_attempts, completed_at, card_id";

impl Store {
    /// Opens a page for the subscriber (and keeps the request's replay); its id.
    pub async fn open_card_session(&self, page: NewTokenPage, replay: Option<Replay>) -> StorageResult<i64> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::card_sessions::insert(connection, &page, replay)).await,
            db => postgres::card_sessions::insert(db, page, replay).await,
        )
    }

    /// The session when it belongs to the subscriber.
    pub async fn card_session(&self, subscriber_id: i64, id: i64) -> StorageResult<Option<CardSessionRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::card_sessions::get(connection, subscriber_id, id)).await,
            db => postgres::card_sessions::get(db, subscriber_id, id).await,
        )
    }

    pub async fn card_session_by_token(&self, token_hash: Vec<u8>) -> StorageResult<Option<CardSessionRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::card_sessions::find_by_token(connection, &token_hash)).await,
            db => postgres::card_sessions::find_by_token(db, &token_hash).await,
        )
    }

    /// Counts a rejected submission; at `max_attempts` the session closes (expires now).
    /// Returns the attempts counted so far.
    pub async fn record_card_session_failure(&self, id: i64, max_attempts: u32, now: i64) -> StorageResult<u32> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::card_sessions::record_failure(connection, id, max_attempts, now)).await,
            db => postgres::card_sessions::record_failure(db, id, max_attempts, now).await,
        )
    }
}
