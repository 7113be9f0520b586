//! The event log (`events`): every change a subscriber can observe, written in the transaction
//! that makes the change. Event ids only grow, and the events of one subscriber commit in id
//! order (see the module documentation of `storage`): an id is the SSE id of the transaction
//! streams ("every event after id N for this card" is a complete answer to a resuming stream),
//! the order of `GET /events`, and the position of an incremental sync.
//!
//! Recording an event also lists its recipients (`event_recipients`) and queues it for each of
//! their webhook endpoints that wants its type (`webhook_deliveries`), in the same transaction.

use subscriber_protocol::{EventData, EventType};

use super::transactions::{Owner, TransactionRow};
use super::{StorageError, StorageResult, Store, dispatch, postgres, sqlite};

/// The two events of a point-of-sale transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A new point-of-sale transaction (pending).
    Created,
    /// The transaction stopped being pending.
    Settled,
}

impl EventKind {
    pub fn event_type(self) -> EventType {
        match self {
            Self::Created => EventType::TransactionCreated,
            Self::Settled => EventType::TransactionUpdated,
        }
    }

    pub(super) fn parse(text: &str) -> StorageResult<Self> {
        match EventType::parse(text) {
            Some(EventType::TransactionCreated) => Ok(Self::Created),
            Some(EventType::TransactionUpdated) => Ok(Self::Settled),
            _ => Err(StorageError::Corrupt(format!("unknown transaction event type {text:?}"))),
        }
    }
}

pub const TRANSACTION_CREATED: &str = EventType::TransactionCreated.as_str();
pub const TRANSACTION_UPDATED: &str = EventType::TransactionUpdated.as_str();
/// Sent to the one endpoint it tests, not to every endpoint that wants all events.
pub const WEBHOOK_TEST: &str = EventType::WebhookTest.as_str();

/// An event other than a transaction's, as the log stores it: its type and its data (JSON).
/// Built only from the catalogue's [`EventData`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub(super) event_type: &'static str,
    pub(super) data: String,
}

impl StoredEvent {
    pub fn new(event: &EventData) -> Self {
        // The payloads are plain structs of numbers, strings and times: they always serialize.
        let data = event.data_json().unwrap_or_else(|_| "{}".to_owned());
        Self { event_type: event.event_type().as_str(), data }
    }
}

/// A transaction event with the transaction as it is now.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    pub id: i64,
    pub kind: EventKind,
    pub transaction: TransactionRow,
}

/// An event as the log lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedEvent {
    pub id: i64,
    pub event_type: String,
    pub created_at: i64,
    /// A transaction event's transaction (as it is now) and sides.
    pub transaction: Option<TransactionRow>,
    pub card_id: Option<i64>,
    pub merchant_id: Option<i64>,
    /// Whether the card of a transaction event is the reader's (else the merchant is).
    pub readers_card: bool,
    /// Any other event's data, as JSON text.
    pub data: Option<String>,
}

/// Which of a subscriber's events a page of the log shows.
#[derive(Debug, Clone, Default)]
pub struct LogFilter {
    pub event_type: Option<String>,
    /// Unix seconds, inclusive.
    pub since: Option<i64>,
    /// Start below this event id (the previous page's last).
    pub before_id: Option<i64>,
}

impl Store {
    /// Up to `limit` transaction events of the owner with an id above `after_id` that
    /// `subscriber_id` received, oldest first.
    pub async fn transaction_events_after(
        &self,
        subscriber_id: i64,
        owner: Owner,
        after_id: i64,
        limit: u32,
    ) -> StorageResult<Vec<EventRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::events::after(connection, subscriber_id, owner, after_id, limit)).await,
            db => postgres::events::after(db, subscriber_id, owner, after_id, limit).await,
        )
    }

    /// The id of the owner's newest transaction event, 0 when it has none.
    pub async fn newest_transaction_event(&self, owner: Owner) -> StorageResult<i64> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::events::newest_of(connection, owner)).await,
            db => postgres::events::newest_of(db, owner).await,
        )
    }

    /// Up to `limit` of the subscriber's events, newest first.
    pub async fn events(&self, subscriber_id: i64, filter: LogFilter, limit: u32) -> StorageResult<Vec<LoggedEvent>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::events::list(connection, subscriber_id, &filter, limit)).await,
            db => postgres::events::list(db, subscriber_id, &filter, limit).await,
        )
    }

    /// One of the subscriber's events.
    pub async fn event(&self, subscriber_id: i64, id: i64) -> StorageResult<Option<LoggedEvent>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::events::get(connection, subscriber_id, id)).await,
            db => postgres::events::get(db, subscriber_id, id).await,
        )
    }

    /// Forgets events older than `before` (seconds) and delivery attempts logged before it;
    /// a stream resuming from one of those events gets what is left.
    pub async fn purge_events(&self, before: i64) -> StorageResult<u64> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::events::purge(connection, before)).await,
            db => postgres::events::purge(db, before).await,
        )
    }
}
