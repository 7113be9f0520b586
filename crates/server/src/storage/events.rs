//! The event log (`events`): every change a subscriber can observe, written in the transaction
//! that makes the change. An event's id only grows, in commit order: it is the SSE id of the
//! transaction streams ("every event after id N for this card" is a complete answer to a
//! resuming stream), the order of `GET /events`, and the position of an incremental sync.
//!
//! Recording an event also lists its recipients (`event_recipients`) and queues it for each of
//! their webhook endpoints that wants its type (`webhook_deliveries`), in the same transaction.

use super::sql::{Connection, OptionalExtension, Row, Transaction, Value, params, params_from_iter};

use super::transactions::{self, Owner, TransactionRow};
use super::{StorageError, StorageResult};

/// The two events of a point-of-sale transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A new point-of-sale transaction (pending).
    Created,
    /// The transaction stopped being pending.
    Settled,
}

impl EventKind {
    pub fn event_type(self) -> &'static str {
        match self {
            Self::Created => TRANSACTION_CREATED,
            Self::Settled => TRANSACTION_UPDATED,
        }
    }

    fn parse(text: &str) -> StorageResult<Self> {
        match text {
            TRANSACTION_CREATED => Ok(Self::Created),
            TRANSACTION_UPDATED => Ok(Self::Settled),
            other => Err(StorageError::Corrupt(format!("unknown transaction event type {other:?}"))),
        }
    }
}

pub const TRANSACTION_CREATED: &str = "transaction.created";
pub const TRANSACTION_UPDATED: &str = "transaction.updated";
/// Sent to the one endpoint it tests, not to every endpoint that wants all events.
pub const WEBHOOK_TEST: &str = "webhook.test";

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

/// Records a `kind` event for each row someone can stream (a card's or a merchant's); rows of
/// nobody here (a synthetic card at a directory merchant) get none. Returns the events in
/// id order.
pub fn record(
    transaction: &Transaction<'_>,
    kind: EventKind,
    rows: &[TransactionRow],
    now: i64,
) -> StorageResult<Vec<EventRow>> {
    let mut insert = transaction.prepare_cached(
        "INSERT INTO events (type, created_at, transaction_id, card_id, merchant_id) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut recipients = transaction.prepare_cached(
        "INSERT OR IGNORE INTO event_recipients (subscriber_id, event_id)
         SELECT subscriber_id, ?1 FROM cards WHERE id = ?2
         UNION SELECT subscriber_id, ?1 FROM merchants WHERE id = ?3",
    )?;
    let mut sequence = transaction.prepare_cached(
        "UPDATE transactions SET change_seq = ?1, created_seq = CASE WHEN ?2 THEN ?1 ELSE created_seq END WHERE id = ?3",
    )?;
    let mut events = Vec::new();
    for row in rows.iter().filter(|row| row.card_id.is_some() || row.merchant_id.is_some()) {
        insert.execute(params![kind.event_type(), now, row.id, row.card_id, row.merchant_id])?;
        let id = transaction.last_insert_rowid();
        recipients.execute(params![id, row.card_id, row.merchant_id])?;
        sequence.execute(params![id, kind == EventKind::Created, row.id])?;
        queue_deliveries(transaction, id, kind.event_type(), now)?;
        events.push(EventRow { id, kind, transaction: row.clone() });
    }
    Ok(events)
}

/// Records an event of one subscriber with its data (JSON); returns its id.
pub fn record_other(
    transaction: &Transaction<'_>,
    subscriber_id: i64,
    event_type: &str,
    data: &str,
    now: i64,
) -> StorageResult<i64> {
    transaction
        .prepare_cached("INSERT INTO events (type, created_at, data) VALUES (?1, ?2, ?3)")?
        .execute(params![event_type, now, data])?;
    let id = transaction.last_insert_rowid();
    transaction
        .prepare_cached("INSERT INTO event_recipients (subscriber_id, event_id) VALUES (?1, ?2)")?
        .execute(params![subscriber_id, id])?;
    if event_type != WEBHOOK_TEST {
        queue_deliveries(transaction, id, event_type, now)?;
    }
    Ok(id)
}

/// Records an event of the subscriber who enrolled the bank account (none when it is gone).
pub fn record_for_account(
    transaction: &Transaction<'_>,
    account_id: i64,
    event_type: &str,
    data: &str,
    now: i64,
) -> StorageResult<Option<i64>> {
    match super::bank_accounts::subscriber_of(transaction, account_id)? {
        Some(subscriber_id) => record_other(transaction, subscriber_id, event_type, data, now).map(Some),
        None => Ok(None),
    }
}

/// Queues the event for every enabled endpoint of its recipients that wants its type.
fn queue_deliveries(transaction: &Transaction<'_>, event_id: i64, event_type: &str, now: i64) -> StorageResult<()> {
    transaction
        .prepare_cached(
            "INSERT OR IGNORE INTO webhook_deliveries
                 (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at, created_at)
             SELECT w.id, r.event_id, w.subscriber_id, 'pending', 0, ?2, ?2
             FROM event_recipients r JOIN webhooks w ON w.subscriber_id = r.subscriber_id
             WHERE r.event_id = ?1 AND w.enabled = 1
               AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value IN ('*', ?3))",
        )?
        .execute(params![event_id, now.saturating_mul(1000), event_type])?;
    Ok(())
}

/// Up to `limit` transaction events of the owner with an id above `after_id`, oldest first.
pub fn after(connection: &Connection, owner: Owner, after_id: i64, limit: u32) -> StorageResult<Vec<EventRow>> {
    let (column, owner_id) = match owner {
        Owner::Card(id) => ("card_id", id),
        Owner::Merchant(id) => ("merchant_id", id),
    };
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {}, e.id, e.type
         FROM events e JOIN transactions t ON t.id = e.transaction_id
         WHERE e.{column} = ?1 AND e.id > ?2
         ORDER BY e.id LIMIT ?3",
        transaction_columns()
    ))?;
    let rows = statement.query_map(params![owner_id, after_id, limit], |row| {
        let transaction = transactions::from_row(row)?;
        let column_count = row.column_count();
        Ok((row.get::<i64>(column_count - 2)?, row.get::<String>(column_count - 1)?, transaction))
    })?;
    let mut events = Vec::new();
    for row in rows {
        let (id, kind, transaction) = row?;
        events.push(EventRow { id, kind: EventKind::parse(&kind)?, transaction });
    }
    Ok(events)
}

fn transaction_columns() -> String {
    transactions::COLUMNS.split(',').map(|column| format!("t.{}", column.trim())).collect::<Vec<_>>().join(", ")
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

/// Up to `limit` of the subscriber's events, newest first.
pub fn list(
    connection: &Connection,
    subscriber_id: i64,
    filter: &LogFilter,
    limit: u32,
) -> StorageResult<Vec<LoggedEvent>> {
    let mut sql = format!(
        "SELECT e.id, e.type, e.created_at, e.card_id, e.merchant_id, e.data, t.id IS NOT NULL,
                COALESCE((SELECT c.subscriber_id = r.subscriber_id FROM cards c WHERE c.id = e.card_id), 0), {}
         FROM event_recipients r JOIN events e ON e.id = r.event_id
         LEFT JOIN transactions t ON t.id = e.transaction_id
         WHERE r.subscriber_id = ?",
        transaction_columns()
    );
    let mut values = vec![Value::Integer(subscriber_id)];
    if let Some(event_type) = &filter.event_type {
        sql.push_str(" AND e.type = ?");
        values.push(Value::Text(event_type.clone()));
    }
    if let Some(since) = filter.since {
        sql.push_str(" AND e.created_at >= ?");
        values.push(Value::Integer(since));
    }
    if let Some(before_id) = filter.before_id {
        sql.push_str(" AND r.event_id < ?");
        values.push(Value::Integer(before_id));
    }
    sql.push_str(" ORDER BY r.event_id DESC LIMIT ?");
    values.push(Value::Integer(i64::from(limit)));
    let mut statement = connection.prepare_cached(&sql)?;
    let rows = statement.query_map(params_from_iter(values), logged_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One of the subscriber's events.
pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<LoggedEvent>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT e.id, e.type, e.created_at, e.card_id, e.merchant_id, e.data, t.id IS NOT NULL,
                COALESCE((SELECT c.subscriber_id = r.subscriber_id FROM cards c WHERE c.id = e.card_id), 0), {}
         FROM event_recipients r JOIN events e ON e.id = r.event_id
         LEFT JOIN transactions t ON t.id = e.transaction_id
         WHERE r.subscriber_id = ?1 AND r.event_id = ?2",
        transaction_columns()
    ))?;
    Ok(statement.query_row(params![subscriber_id, id], logged_from_row).optional()?)
}

const LOGGED_PREFIX: usize = 8;

fn logged_from_row(row: &Row<'_>) -> super::StorageResult<LoggedEvent> {
    let has_transaction: bool = row.get(6)?;
    let transaction = if has_transaction { Some(transactions::from_row_at(row, LOGGED_PREFIX)?) } else { None };
    Ok(LoggedEvent {
        id: row.get(0)?,
        event_type: row.get(1)?,
        created_at: row.get(2)?,
        card_id: row.get(3)?,
        merchant_id: row.get(4)?,
        data: row.get(5)?,
        readers_card: row.get(7)?,
        transaction,
    })
}

/// The id of the newest event, 0 when there is none yet.
pub fn newest_id(connection: &Connection) -> StorageResult<i64> {
    Ok(connection.query_row("SELECT COALESCE(MAX(id), 0) FROM events", params![], |row| row.get(0))?)
}

/// Forgets events older than `before` and what waits on them; a stream resuming from one of
/// them gets what is left.
pub fn purge(transaction: &Transaction<'_>, before: i64) -> StorageResult<usize> {
    Ok(transaction.execute("DELETE FROM events WHERE created_at < ?1", [before])?)
}
