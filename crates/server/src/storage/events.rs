//! The event log (`events`): every change a subscriber can observe, written in the transaction
//! that makes the change. An event's id only grows, in commit order: it is the SSE id of the
//! transaction streams ("every event after id N for this card" is a complete answer to a
//! resuming stream), the order of `GET /events`, and the position of an incremental sync.
//!
//! Recording an event also lists its recipients (`event_recipients`) and queues it for each of
//! their webhook endpoints that wants its type (`webhook_deliveries`), in the same transaction.

use super::sql::{Connection, Dialect, OptionalExtension, Params, Row, Transaction, Value, params, params_from_iter};

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
    let rows: Vec<&TransactionRow> =
        rows.iter().filter(|row| row.card_id.is_some() || row.merchant_id.is_some()).collect();
    let values: Vec<Vec<Value>> =
        rows.iter().map(|row| params![kind.event_type(), now, row.id, row.card_id, row.merchant_id].values()).collect();
    let ids = transaction
        .insert_rows("INSERT INTO events (type, created_at, transaction_id, card_id, merchant_id)", &values)?;
    let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else { return Ok(Vec::new()) };
    // Every event from `first` to `last` is one of these: writes commit one at a time.
    transaction.execute(
        "INSERT INTO event_recipients (subscriber_id, event_id)
         SELECT c.subscriber_id, e.id FROM events e JOIN cards c ON c.id = e.card_id WHERE e.id BETWEEN ?1 AND ?2
         UNION SELECT m.subscriber_id, e.id FROM events e JOIN merchants m ON m.id = e.merchant_id
         WHERE e.id BETWEEN ?1 AND ?2
         ON CONFLICT DO NOTHING",
        params![first, last],
    )?;
    transaction.execute(
        "UPDATE transactions SET change_seq = e.id,
             created_seq = CASE WHEN ?3 THEN e.id ELSE transactions.created_seq END
         FROM events e WHERE e.transaction_id = transactions.id AND e.id BETWEEN ?1 AND ?2",
        params![first, last, kind == EventKind::Created],
    )?;
    queue_deliveries(transaction, (first, last), kind.event_type(), now)?;
    super::changes::announce(transaction, super::changes::Change::Events)?;
    Ok(ids.into_iter().zip(rows).map(|(id, row)| EventRow { id, kind, transaction: row.clone() }).collect())
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
        queue_deliveries(transaction, (id, id), event_type, now)?;
    }
    super::changes::announce(transaction, super::changes::Change::Events)?;
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

/// Queues the events (of one type, ids `first..=last`) for every enabled endpoint of their
/// recipients that wants the type.
fn queue_deliveries(
    transaction: &Transaction<'_>,
    (first, last): (i64, i64),
    event_type: &str,
    now: i64,
) -> StorageResult<()> {
    // An endpoint's `events` is a JSON array of types; each engine has its own way to unnest one.
    let types = match transaction.dialect() {
        Dialect::Sqlite => "json_each(w.events)",
        Dialect::Postgres => "json_array_elements_text(CAST(w.events AS JSON)) AS t(value)",
    };
    transaction
        .prepare_cached(&format!(
            "INSERT INTO webhook_deliveries
                 (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at, created_at)
             SELECT w.id, r.event_id, w.subscriber_id, 'pending', 0, CAST(?2 AS BIGINT), CAST(?2 AS BIGINT)
             FROM event_recipients r JOIN webhooks w ON w.subscriber_id = r.subscriber_id
             WHERE r.event_id BETWEEN ?1 AND ?4 AND w.enabled = 1
               AND EXISTS (SELECT 1 FROM {types} WHERE value IN ('*', ?3))
             ON CONFLICT DO NOTHING"
        ))?
        .execute(params![first, now.saturating_mul(1000), event_type, last])?;
    Ok(())
}

/// Up to `limit` transaction events of the owner with an id above `after_id`, oldest first.
pub fn after(connection: &Connection, owner: Owner, after_id: i64, limit: u32) -> StorageResult<Vec<EventRow>> {
    let (column, owner_id) = owner_column(owner);
    transaction_events(connection, &format!("e.{column} = ?1 AND e.id > ?2"), &[owner_id, after_id], limit)
}

/// The id of the owner's newest transaction event, 0 when it has none.
pub fn newest_of(connection: &Connection, owner: Owner) -> StorageResult<i64> {
    let (column, owner_id) = owner_column(owner);
    connection.query_row(&format!("SELECT COALESCE(MAX(id), 0) FROM events WHERE {column} = ?1"), [owner_id], |row| {
        row.get(0)
    })
}

fn owner_column(owner: Owner) -> (&'static str, i64) {
    match owner {
        Owner::Card(id) => ("card_id", id),
        Owner::Merchant(id) => ("merchant_id", id),
    }
}

/// Up to `limit` transaction events (of every owner) with an id above `after_id`, oldest first.
pub fn all_after(connection: &Connection, after_id: i64, limit: u32) -> StorageResult<Vec<EventRow>> {
    transaction_events(connection, "e.id > ?1", &[after_id], limit)
}

/// Up to `limit` transaction events matching `filter` (over `?1`… for `values`), oldest first.
fn transaction_events(
    connection: &Connection,
    filter: &str,
    values: &[i64],
    limit: u32,
) -> StorageResult<Vec<EventRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {}, e.id, e.type
         FROM events e JOIN transactions t ON t.id = e.transaction_id
         WHERE {filter}
         ORDER BY e.id LIMIT ?{}",
        transaction_columns(),
        values.len() + 1
    ))?;
    let bound: Vec<Value> =
        values.iter().map(|value| Value::Integer(*value)).chain([Value::Integer(limit.into())]).collect();
    let rows = statement.query_map(bound, |row| {
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
                COALESCE((SELECT CASE WHEN c.subscriber_id = r.subscriber_id THEN 1 ELSE 0 END FROM cards c WHERE c.id = e.card_id), 0), {}
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
    rows.collect::<Result<_, _>>()
}

/// One of the subscriber's events.
pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<LoggedEvent>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT e.id, e.type, e.created_at, e.card_id, e.merchant_id, e.data, t.id IS NOT NULL,
                COALESCE((SELECT CASE WHEN c.subscriber_id = r.subscriber_id THEN 1 ELSE 0 END FROM cards c WHERE c.id = e.card_id), 0), {}
         FROM event_recipients r JOIN events e ON e.id = r.event_id
         LEFT JOIN transactions t ON t.id = e.transaction_id
         WHERE r.subscriber_id = ?1 AND r.event_id = ?2",
        transaction_columns()
    ))?;
    statement.query_row(params![subscriber_id, id], logged_from_row).optional()
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
    connection.query_row("SELECT COALESCE(MAX(id), 0) FROM events", params![], |row| row.get(0))
}

/// Forgets events older than `before` and what waits on them; a stream resuming from one of
/// them gets what is left.
pub fn purge(transaction: &Transaction<'_>, before: i64) -> StorageResult<usize> {
    transaction.execute("DELETE FROM events WHERE created_at < ?1", [before])
}
