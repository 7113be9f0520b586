use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::transactions::{from_row, from_row_at};
use crate::storage::StorageResult;
use crate::storage::events::{EventKind, EventRow, LogFilter, LoggedEvent, WEBHOOK_TEST};
use crate::storage::transactions::{Owner, T_COLUMNS, TransactionRow};

/// Records a `kind` event for each row someone can stream (a card's or a merchant's); rows of
/// nobody here (a synthetic card at a directory merchant) get none. Returns the events in
/// id order. SQLite's one writer makes the ids of one statement a run nobody else's cut into.
pub fn record_transaction_events(
    connection: &Connection,
    kind: EventKind,
    rows: &[TransactionRow],
    now: i64,
) -> StorageResult<Vec<EventRow>> {
    let rows: Vec<&TransactionRow> =
        rows.iter().filter(|row| row.card_id.is_some() || row.merchant_id.is_some()).collect();
    let values: Vec<Vec<Value>> = rows
        .iter()
        .map(|row| {
            vec![
                kind.event_type().as_str().to_owned().into(),
                now.into(),
                row.id.into(),
                row.card_id.into(),
                row.merchant_id.into(),
            ]
        })
        .collect();
    let ids = super::insert_rows(
        connection,
        "INSERT INTO events (type, created_at, transaction_id, card_id, merchant_id)",
        5,
        &values,
    )?;
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
    subscriber_id: i64,
    event_type: &str,
    data: &str,
    now: i64,
) -> StorageResult<i64> {
    connection
        .prepare_cached("INSERT INTO events (type, created_at, data) VALUES (?1, ?2, ?3)")?
        .execute(params![event_type, now, data])?;
    let id = connection.last_insert_rowid();
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
    (first, last): (i64, i64),
    event_type: &str,
    now: i64,
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
        .execute(params![first, now.saturating_mul(1000), event_type, last])?;
    Ok(())
}

pub fn after(
    connection: &Connection,
    subscriber_id: i64,
    owner: Owner,
    after_id: i64,
    limit: u32,
) -> StorageResult<Vec<EventRow>> {
    let (column, owner_id) = owner.column();
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {T_COLUMNS}, e.id, e.type
         FROM events e JOIN transactions t ON t.id = e.transaction_id
         JOIN event_recipients r ON r.event_id = e.id AND r.subscriber_id = ?4
         WHERE e.{column} = ?1 AND e.id > ?2
         ORDER BY e.id LIMIT ?3"
    ))?;
    let rows = statement.query_map(params![owner_id, after_id, limit, subscriber_id], |row| {
        Ok((row.get::<_, i64>(19)?, row.get::<_, String>(20)?, from_row(row)?))
    })?;
    let mut events = Vec::new();
    for row in rows {
        let (id, kind, transaction) = row?;
        events.push(EventRow { id, kind: EventKind::parse(&kind)?, transaction });
    }
    Ok(events)
}

pub fn newest_of(connection: &Connection, owner: Owner) -> StorageResult<i64> {
    let (column, owner_id) = owner.column();
    Ok(connection
        .prepare_cached(&format!("SELECT COALESCE(MAX(id), 0) FROM events WHERE {column} = ?1"))?
        .query_row([owner_id], |row| row.get(0))?)
}

const LOGGED: &str = "SELECT e.id, e.type, e.created_at, e.card_id, e.merchant_id, e.data, t.id IS NOT NULL,
        COALESCE((SELECT CASE WHEN c.subscriber_id = r.subscriber_id THEN 1 ELSE 0 END FROM cards c WHERE c.id = e.card_id), 0)";
const LOGGED_PREFIX: usize = 8;

fn logged_from_row(row: &Row<'_>) -> rusqlite::Result<LoggedEvent> {
    let has_transaction: bool = row.get(6)?;
    let transaction = if has_transaction { Some(from_row_at(row, LOGGED_PREFIX)?) } else { None };
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

pub fn list(
    connection: &Connection,
    subscriber_id: i64,
    filter: &LogFilter,
    limit: u32,
) -> StorageResult<Vec<LoggedEvent>> {
    let mut sql = format!(
        "{LOGGED}, {T_COLUMNS}
         FROM event_recipients r JOIN events e ON e.id = r.event_id
         LEFT JOIN transactions t ON t.id = e.transaction_id
         WHERE r.subscriber_id = ?"
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

pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<LoggedEvent>> {
    let mut statement = connection.prepare_cached(&format!(
        "{LOGGED}, {T_COLUMNS}
         FROM event_recipients r JOIN events e ON e.id = r.event_id
         LEFT JOIN transactions t ON t.id = e.transaction_id
         WHERE r.subscriber_id = ?1 AND r.event_id = ?2"
    ))?;
    Ok(statement.query_row(params![subscriber_id, id], logged_from_row).optional()?)
}

pub fn purge(connection: &Connection, before: i64) -> StorageResult<u64> {
    let attempts = connection
        .prepare_cached("DELETE FROM webhook_attempts WHERE at < ?1")?
        .execute([before.saturating_mul(1000)])?;
    let events = connection.prepare_cached("DELETE FROM events WHERE created_at < ?1")?.execute([before])?;
    Ok((attempts + events) as u64)
}
