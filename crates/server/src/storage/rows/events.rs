//! Events' rows: what the log keeps of every change a subscriber can observe (see the event
//! operations, `storage::events`).

use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, EventData, EventId, EventType, MerchantId};

use super::transactions::{T_COLUMNS, TransactionRow, WIDTH};
use super::{Column, Columns, FromRow};
use crate::storage::{StorageError, StorageResult};

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

    pub(in crate::storage) fn parse(text: &str) -> StorageResult<Self> {
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
    pub(in crate::storage) event_type: &'static str,
    pub(in crate::storage) data: String,
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
    pub id: EventId,
    pub kind: EventKind,
    pub transaction: TransactionRow,
}

/// An event as the log lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedEvent {
    pub id: EventId,
    pub event_type: String,
    pub created_at: UnixSeconds,
    /// A transaction event's transaction (as it is now) and sides.
    pub transaction: Option<TransactionRow>,
    pub card_id: Option<CardId>,
    pub merchant_id: Option<MerchantId>,
    /// Whether the card of a transaction event is the reader's (else the merchant is).
    pub readers_card: bool,
    /// Any other event's data, as JSON text.
    pub data: Option<String>,
    /// Sent by the sandbox on request (`POST /sandbox/events`): no object changed.
    pub sandbox: bool,
}

/// Which of a subscriber's events a page of the log shows.
#[derive(Debug, Clone, Default)]
pub struct LogFilter {
    pub event_type: Option<String>,
    /// Unix seconds, inclusive.
    pub since: Option<UnixSeconds>,
    /// Start below this event id (the previous page's last).
    pub before_id: Option<EventId>,
}

impl Column for EventKind {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.text(index)?.map(Self::parse).transpose()
    }
}

/// [`T_COLUMNS`], then the event's `id, type`.
impl FromRow for EventRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self { id: row.column(WIDTH)?, kind: row.column(WIDTH + 1)?, transaction: TransactionRow::from_row(row)? })
    }
}

/// What the log lists of an event of `e` received by `r` (with `t`, the transaction of a
/// transaction event, joined), as [`LoggedEvent`] reads it.
pub(in crate::storage) fn logged_columns() -> String {
    format!(
        "SELECT e.id, e.type, e.created_at, e.card_id, e.merchant_id, e.data, t.id IS NOT NULL,
             COALESCE((SELECT CASE WHEN c.subscriber_id = r.subscriber_id THEN 1 ELSE 0 END
                       FROM cards c WHERE c.id = e.card_id), 0),
             e.sandbox, {T_COLUMNS}
         FROM event_recipients r JOIN events e ON e.id = r.event_id
         LEFT JOIN transactions t ON t.id = e.transaction_id"
    )
}

/// The columns [`logged_columns`] gives before the transaction's.
const LOGGED_PREFIX: usize = 9;

impl FromRow for LoggedEvent {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        let has_transaction: bool = row.column(6)?;
        let transaction =
            if has_transaction { Some(TransactionRow::from_row(&row.skip(LOGGED_PREFIX))?) } else { None };
        Ok(Self {
            id: row.column(0)?,
            event_type: row.column(1)?,
            created_at: row.column(2)?,
            card_id: row.column(3)?,
            merchant_id: row.column(4)?,
            data: row.column(5)?,
            readers_card: row.column(7)?,
            sandbox: row.column(8)?,
            transaction,
        })
    }
}
