//! Enrolled cards: never the card number, only its last four digits and a keyed fingerprint
//! that recognises it enrolled twice.

use super::idempotency::Replay;
use super::transactions::TransactionRow;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

/// What is kept of an enrolled card: stored as enrolled, read back as stored.
#[derive(Debug, Clone)]
pub struct EnrolledCard {
    pub last_four: u16,
    pub brand: String,
    pub first_name: String,
    pub last_name: String,
    pub exp_month: u32,
    pub exp_year: u32,
    pub country_code: String,
    pub enrolled_at: i64,
}

#[derive(Debug, Clone)]
pub struct CardRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub enrolled: EnrolledCard,
}

pub(super) const COLUMNS: &str =
    "id, subscriber_id, last_four, brand, first_name, last_name, exp_month, exp_year, country_code, enrolled_at";

/// A card to enroll, with its history and the data of its `card.enrolled` event.
pub struct NewCard {
    pub subscriber_id: i64,
    /// HMAC of the card number under the fingerprint key.
    pub fingerprint: Vec<u8>,
    pub enrolled: EnrolledCard,
    /// The sandbox's generated history (their `card_id` is set once the card has its id).
    pub history: Vec<TransactionRow>,
    /// The `card.enrolled` event's data (JSON), given the card's id.
    pub event_data: Box<dyn FnOnce(i64) -> super::events::StoredEvent + Send>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    Created(i64),
    /// The subscriber already enrolled this card, under this id.
    Duplicate(i64),
}

impl Inserted {
    pub fn card_id(self) -> i64 {
        match self {
            Self::Created(id) | Self::Duplicate(id) => id,
        }
    }
}

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
    /// submission of the same page, however close, finds it closed).
    pub async fn enroll_card_from_session(
        &self,
        session_id: i64,
        card: NewCard,
        now: i64,
    ) -> StorageResult<Option<Inserted>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::cards::enroll_from_session(connection, session_id, card, now)).await,
            db => postgres::cards::enroll_from_session(db, session_id, card, now).await,
        )
    }

    /// The card when it belongs to the subscriber; another subscriber's card is `None`.
    pub async fn card(&self, subscriber_id: i64, card_id: i64) -> StorageResult<Option<CardRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::cards::get(connection, subscriber_id, card_id)).await,
            db => postgres::cards::get(db, subscriber_id, card_id).await,
        )
    }

    /// The subscriber's cards, newest first.
    pub async fn cards(&self, subscriber_id: i64) -> StorageResult<Vec<CardRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::cards::list(connection, subscriber_id)).await,
            db => postgres::cards::list(db, subscriber_id).await,
        )
    }

    /// The card at position `pick % count` of every enrolled card, as (id, last four): a
    /// buyer for the sandbox's simulated purchases. `None` when no card is enrolled.
    pub async fn pick_card(&self, pick: u64) -> StorageResult<Option<(i64, u16)>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::cards::pick(connection, pick)).await,
            db => postgres::cards::pick(db, pick).await,
        )
    }
}
