//! Enrolled cards: never the card number, only its last four digits and a keyed fingerprint
//! that recognises it enrolled twice.

use super::rows::cards::COLUMNS;
use super::rows::idempotency::Replay;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::CardId;
use subscriber_protocol::CardSessionId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

pub use super::rows::cards::{CardRow, EnrolledCard, Inserted, NewCard};

/// The event of a completed card-entry session, made from the card's id.
pub type SessionEvent = Box<dyn FnOnce(CardId) -> super::events::StoredEvent + Send>;

impl Store {
    /// Enrolls the card with its history and its event, and the request's replay, in one
    /// transaction; a card the subscriber already has stores nothing.
    pub async fn enroll_card(&self, card: NewCard, replay: Option<Replay>) -> StorageResult<Inserted> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::cards::enroll(connection, card, replay)).await,
            db => postgres::cards::enroll(db, card, replay).await,
        )
    }

    /// Enrolls the card typed on the secure page of session `session_id` and completes the
    /// session, in one transaction; `None` when the session is no longer open (a second
    /// submission of the same page, however close, finds it closed). The session's own event
    /// (`completed`, made from the card's id, new or already enrolled) is recorded with them.
    pub async fn enroll_card_from_session(
        &self,
        session_id: CardSessionId,
        card: NewCard,
        now: UnixSeconds,
        completed: SessionEvent,
    ) -> StorageResult<Option<Inserted>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::cards::enroll_from_session(connection, session_id, card, now, completed)).await,
            db => postgres::cards::enroll_from_session(db, session_id, card, now, completed).await,
        )
    }

    /// The card when it belongs to the subscriber; another subscriber's card is `None`.
    pub async fn card(&self, subscriber_id: SubscriberId, card_id: CardId) -> StorageResult<Option<CardRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM cards WHERE id = $1 AND subscriber_id = $2");
        self.fetch_one(Read::ByKey, sql, args![card_id, subscriber_id]).await
    }

    /// The subscriber's cards, newest first.
    pub async fn cards(&self, subscriber_id: SubscriberId) -> StorageResult<Vec<CardRow>> {
        self.fetch_all(
            sql!("SELECT {COLUMNS} FROM cards WHERE subscriber_id = $1 ORDER BY id DESC"),
            args![subscriber_id],
        )
        .await
    }

    /// An enrolled card as (id, last four), picked by `pick` (any number: the cards are counted
    /// round, in id order): a buyer for the sandbox's simulated purchases. `None` when no card
    /// is enrolled.
    pub async fn pick_card(&self, pick: u64) -> StorageResult<Option<(CardId, u16)>> {
        let sql = sql!(
            "SELECT id, last_four FROM cards ORDER BY id LIMIT 1
             OFFSET (SELECT COALESCE($1 % NULLIF(COUNT(*), 0), 0) FROM cards)"
        );
        self.fetch_one(Read::Scan, sql, args![non_negative(pick)]).await
    }
}

/// `pick` as a non-negative 64-bit integer (what both databases compute with), its top bit
/// dropped.
pub(super) fn non_negative(pick: u64) -> i64 {
    i64::try_from(pick >> 1).unwrap_or(0)
}
