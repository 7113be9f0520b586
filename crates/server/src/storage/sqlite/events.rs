use rusqlite::types::Value;
use rusqlite::{Connection, params, params_from_iter};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, EventId, MerchantId, SubscriberId};

use super::rows::{all, first};
use crate::storage::StorageResult;
use crate::storage::events::NO_EVENT;
use crate::storage::rows::events::{EventKind, EventRow, LogFilter, LoggedEvent, WEBHOOK_TEST, logged_columns};
use crate::storage::rows::transactions::{Owner, TransactionRow};
use crate::storage::sql::sql;

/// Records a `kind` event for each row someone can stream (a card's or a merchant's); rows of
/// nobody here (a synthetic card at a directory merchant) get none. Returns the events in
/// id order. SQLite's one writer makes the ids of one statement a run nobody else's cut into.
pub fn record_transaction_events(
    connection: &Connection,
    kind: EventKind,
    rows: &[TransactionRow],
    now: UnixSeconds,
) -> StorageResult<Vec<EventRow>> {
    let rows: Vec<&TransactionRow> =
        rows.iter().filter(|row| row.card_id.is_some() || row.merchant_id.is_some()).collect();
    let values: Vec<Vec<Value>> = rows
        .iter()
        .map(|row| {
            vec![
                kind.event_type().as_str().to_owned().into(),
                now.get().into(),
                row.id.get().into(),
                row.card_id.map(CardId::get).into(),
                row.merchant_id.map(MerchantId::get).into(),
            ]
        })
        .collect();
    let ids = super::insert_rows(
        connection,
        "INSERT INTO events (type, created_at, transaction_id, card_id, merchant_id)",
        5,
        &values,
    )?;
    let ids: Vec<EventId> = ids.into_iter().map(EventId).collect();
    let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else { return Ok(Vec::new()) };
    connection
        .prepare_cached(
            "INSERT INTO event_recipients (subscriber_id, event_id)
             SELECT c.subscriber_id, e.id FROM events e JOIN cards c ON c.id = e.card_id WHERE e.id BETWEEN ?1 AND ?2
             UNION SELECT m.subscriber_id, e.id FROM events e JOIN merchants m ON m.id = e.merchant_id
             WHERE e.id BETWEEN ?1 AND ?2
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![first, last])?;
    connection
        .prepare_cached(
            "UPDATE transactions SET change_seq = e.id,
                 created_seq = CASE WHEN ?3 THEN e.id ELSE transactions.created_seq END
             FROM events e WHERE e.transaction_id = transactions.id AND e.id BETWEEN ?1 AND ?2",
        )?
        .execute(params![first, last, kind == EventKind::Created])?;
    queue_deliveries(connection, (first, last), kind.event_type().as_str(), now)?;
    Ok(ids.into_iter().zip(rows).map(|(id, row)| EventRow { id, kind, transaction: row.clone() }).collect())
}

/// Records an event of one subscriber with its data (JSON); returns its id.
pub fn record_other(
    connection: &Connection,
    subscriber_id: SubscriberId,
    event_type: &str,
    data: &str,
    now: UnixSeconds,
) -> StorageResult<EventId> {
    connection
        .prepare_cached("INSERT INTO events (type, created_at, data) VALUES (?1, ?2, ?3)")?
        .execute(params![event_type, now, data])?;
    let id = EventId(connection.last_insert_rowid());
    connection
        .prepare_cached("INSERT INTO event_recipients (subscriber_id, event_id) VALUES (?1, ?2)")?
        .execute(params![subscriber_id, id])?;
    if event_type != WEBHOOK_TEST {
        queue_deliveries(connection, (id, id), event_type, now)?;
    }
    Ok(id)
}

/// Queues the events (of one type, ids `first..=last`) for every enabled endpoint of their
/// recipients that wants the type. An endpoint whose queue is full gets them as dropped
/// (failed, never attempted: `webhook_queues` records the gap).
fn queue_deliveries(
    connection: &Connection,
    (first, last): (EventId, EventId),
    event_type: &str,
    now: UnixSeconds,
) -> StorageResult<()> {
    connection
        .prepare_cached(
            "INSERT INTO webhook_deliveries
                 (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at, created_at)
             SELECT w.id, r.event_id, w.subscriber_id,
                    CASE WHEN q.pending < l.pending_max THEN 'pending' ELSE 'failed' END, 0,
                    CASE WHEN q.pending < l.pending_max THEN ?2 END, ?2
             FROM event_recipients r JOIN webhooks w ON w.subscriber_id = r.subscriber_id
             JOIN webhook_queues q ON q.webhook_id = w.id CROSS JOIN webhook_queue_limits l
             WHERE r.event_id BETWEEN ?1 AND ?4 AND w.enabled = 1
               AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value IN ('*', ?3))
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![first, now.millis(), event_type, last])?;
    Ok(())
}

/// One look at the owner's index (`events_by_card`, `_by_merchant`).
pub fn newest_of(connection: &Connection, owner: Owner) -> StorageResult<EventId> {
    let (sql, owner_id) = match owner {
        Owner::Card(id) => (
            sql!(
                "SELECT CASE WHEN EXISTS (SELECT 1 FROM cards WHERE id = $1)
                        THEN COALESCE((SELECT MAX(id) FROM events WHERE card_id = $1), 0) ELSE -1 END"
            ),
            id.get(),
        ),
        Owner::Merchant(id) => (sql!("SELECT COALESCE(MAX(id), 0) FROM events WHERE merchant_id = $1"), id.get()),
    };
    Ok(first(connection, sql, [owner_id])?.unwrap_or(NO_EVENT))
}

/// The filters given, and only those, in the text: each combination is its own statement
/// (prepared once per connection), which SQLite plans with the index it fits.
pub fn list(
    connection: &Connection,
    subscriber_id: SubscriberId,
    filter: &LogFilter,
    limit: u32,
) -> StorageResult<Vec<LoggedEvent>> {
    let mut sql = format!("{} WHERE r.subscriber_id = ?", logged_columns());
    let mut values = vec![Value::Integer(subscriber_id.get())];
    if let Some(event_type) = &filter.event_type {
        sql.push_str(" AND e.type = ?");
        values.push(Value::Text(event_type.clone()));
    }
    if let Some(since) = filter.since {
        sql.push_str(" AND e.created_at >= ?");
        values.push(Value::Integer(since.get()));
    }
    if let Some(before_id) = filter.before_id {
        sql.push_str(" AND r.event_id < ?");
        values.push(Value::Integer(before_id.get()));
    }
    sql.push_str(" ORDER BY r.event_id DESC LIMIT ?");
    values.push(Value::Integer(i64::from(limit)));
    all(connection, sql.as_str(), params_from_iter(values))
}
