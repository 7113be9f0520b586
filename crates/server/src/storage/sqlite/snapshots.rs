//! Snapshots on SQLite: each part's rows read here and kept as one JSON text
//! (`{"columns": [...], "rows": [[...], ...]}`, a BLOB as `{"hex": "..."}`), put back by one
//! prepared INSERT per table, all in the writer's transaction.

use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{SnapshotId, SubscriberId};

use crate::storage::rows::sandbox::RESET;
use crate::storage::rows::snapshots::{
    CHANGED_AGAIN, CHANGED_SINCE, CLEAR_QUEUES, CLEAR_REMOVED, COUNT, COUNTED, FORGET_REPLAYS, ONE, OWNED_IDS, PARTS,
    Part, REMOVED_AGAIN, REMOVED_SINCE, Restored, SnapshotRow,
};
use crate::storage::sql::question_marks;
use crate::storage::sqlite::rows::{all, first};
use crate::storage::{StorageError, StorageResult};

/// One part as kept.
#[derive(Serialize, Deserialize)]
struct Dump {
    columns: Vec<String>,
    rows: Vec<Vec<Json>>,
}

fn corrupt(error: impl std::fmt::Display) -> StorageError {
    StorageError::Corrupt(format!("a snapshot's part: {error}"))
}

pub fn take(
    connection: &Connection,
    subscriber_id: SubscriberId,
    name: &str,
    now: UnixSeconds,
    max: i64,
) -> StorageResult<Option<SnapshotRow>> {
    let held: i64 = connection.prepare_cached(COUNT.sqlite())?.query_row([subscriber_id], |row| row.get(0))?;
    if held >= max {
        return Ok(None);
    }
    let event_seq: i64 =
        connection.prepare_cached("SELECT COALESCE(MAX(id), 0) FROM events")?.query_row([], |row| row.get(0))?;
    connection
        .prepare_cached(
            "INSERT INTO sandbox_snapshots (subscriber_id, name, created_at, event_seq) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(rusqlite::params![subscriber_id, name, now, event_seq])?;
    let id = SnapshotId(connection.last_insert_rowid());
    let (mut cards, mut transactions) = (0, 0);
    for part in &PARTS {
        let (rows, count) = dump(connection, part, subscriber_id)?;
        match part.table {
            "cards" => cards = count,
            "transactions" => transactions = count,
            _ => {}
        }
        connection
            .prepare_cached("INSERT INTO sandbox_snapshot_parts (snapshot_id, name, rows) VALUES (?1, ?2, ?3)")?
            .execute(rusqlite::params![id, part.table, rows])?;
    }
    first(connection, &COUNTED, rusqlite::params![id, cards, transactions])
}

/// The subscriber's rows of the part's table, and how many.
fn dump(connection: &Connection, part: &Part, subscriber_id: SubscriberId) -> StorageResult<(String, i64)> {
    let sql = question_marks(&format!("SELECT * FROM {} WHERE {}", part.table, part.owned));
    let mut statement = connection.prepare_cached(&sql)?;
    let columns: Vec<String> = statement.column_names().into_iter().map(str::to_owned).collect();
    let width = columns.len();
    let mut rows = Vec::new();
    let mut cursor = statement.query([subscriber_id])?;
    while let Some(row) = cursor.next()? {
        let mut values = Vec::with_capacity(width);
        for index in 0..width {
            values.push(match row.get_ref(index)? {
                ValueRef::Null => Json::Null,
                ValueRef::Integer(value) => Json::from(value),
                ValueRef::Real(value) => serde_json::Number::from_f64(value).map_or(Json::Null, Json::Number),
                ValueRef::Text(text) => Json::String(String::from_utf8_lossy(text).into_owned()),
                ValueRef::Blob(bytes) => serde_json::json!({ "hex": hex::encode(bytes) }),
            });
        }
        rows.push(values);
    }
    let count = i64::try_from(rows.len()).unwrap_or(i64::MAX);
    Ok((serde_json::to_string(&Dump { columns, rows }).map_err(corrupt)?, count))
}

/// Puts the part's rows back.
fn load(connection: &Connection, part: &Part, kept: &str) -> StorageResult<()> {
    let dump: Dump = serde_json::from_str(kept).map_err(corrupt)?;
    if dump.rows.is_empty() {
        return Ok(());
    }
    let places: Vec<String> = (1..=dump.columns.len()).map(|place| format!("?{place}")).collect();
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({}) {}",
        part.table,
        dump.columns.join(", "),
        places.join(", "),
        question_marks(part.on_conflict)
    );
    let mut statement = connection.prepare_cached(&sql)?;
    for row in dump.rows {
        if row.len() != dump.columns.len() {
            return Err(corrupt(format!("a row of {} has {} values", part.table, row.len())));
        }
        let values = row.into_iter().map(value).collect::<StorageResult<Vec<Value>>>()?;
        statement.execute(rusqlite::params_from_iter(values))?;
    }
    Ok(())
}

fn value(json: Json) -> StorageResult<Value> {
    Ok(match json {
        Json::Null => Value::Null,
        Json::Bool(flag) => Value::Integer(i64::from(flag)),
        Json::Number(number) => match number.as_i64() {
            Some(integer) => Value::Integer(integer),
            None => Value::Real(number.as_f64().unwrap_or_default()),
        },
        Json::String(text) => Value::Text(text),
        Json::Object(object) => {
            let hex =
                object.get("hex").and_then(Json::as_str).ok_or_else(|| corrupt("an object that is not a BLOB"))?;
            Value::Blob(hex::decode(hex).map_err(corrupt)?)
        }
        Json::Array(_) => return Err(corrupt("an array as a value")),
    })
}

pub fn restore(
    connection: &Connection,
    subscriber_id: SubscriberId,
    snapshot_id: SnapshotId,
    replays: &str,
) -> StorageResult<Option<Restored>> {
    let Some(snapshot) = first::<SnapshotRow>(connection, &ONE, (subscriber_id, snapshot_id))? else {
        return Ok(None);
    };
    let mut owned: Vec<(String, i64)> = all(connection, &OWNED_IDS, [subscriber_id])?;
    let changed: Vec<(i64, i64)> = all(connection, &CHANGED_SINCE, (subscriber_id, snapshot_id))?;
    let reappearing: Vec<(i64, i64)> = all(connection, &REMOVED_SINCE, (subscriber_id, snapshot_id))?;

    connection.prepare_cached(FORGET_REPLAYS.sqlite())?.execute(rusqlite::params![replays, snapshot_id])?;
    connection.prepare_cached(CLEAR_REMOVED.sqlite())?.execute([subscriber_id])?;
    for statement in RESET {
        connection.prepare_cached(statement.sqlite())?.execute([subscriber_id])?;
    }
    for part in &PARTS {
        if part.table == "webhook_queues" {
            connection.prepare_cached(CLEAR_QUEUES.sqlite())?.execute([subscriber_id])?;
        }
        let kept: Option<String> = connection
            .prepare_cached("SELECT rows FROM sandbox_snapshot_parts WHERE snapshot_id = ?1 AND name = ?2")?
            .query_row(rusqlite::params![snapshot_id, part.table], |row| row.get(0))
            .optional()?;
        if let Some(kept) = kept {
            load(connection, part, &kept)?;
        }
    }

    if !changed.is_empty() || !reappearing.is_empty() {
        let seq = next_event_id(connection)?;
        for (transaction_id, card_id) in changed {
            let again = connection.prepare_cached(CHANGED_AGAIN.sqlite())?.execute(rusqlite::params![
                subscriber_id,
                transaction_id,
                seq
            ])?;
            if again == 0 {
                connection.prepare_cached(REMOVED_AGAIN.sqlite())?.execute(rusqlite::params![
                    subscriber_id,
                    transaction_id,
                    card_id,
                    seq
                ])?;
            }
        }
        for (transaction_id, _) in reappearing {
            connection.prepare_cached(CHANGED_AGAIN.sqlite())?.execute(rusqlite::params![
                subscriber_id,
                transaction_id,
                seq
            ])?;
        }
    }
    owned.extend(all::<(String, i64)>(connection, &OWNED_IDS, [subscriber_id])?);
    Ok(Some(Restored::new(snapshot, owned)))
}

/// An event id never given before nor after, as a sync position no event has (AUTOINCREMENT's
/// counter moved on by one).
fn next_event_id(connection: &Connection) -> StorageResult<i64> {
    let moved: Option<i64> = connection
        .prepare_cached("UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'events' RETURNING seq")?
        .query_row([], |row| row.get(0))
        .optional()?;
    match moved {
        Some(seq) => Ok(seq),
        None => {
            connection.prepare_cached("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', 1)")?.execute([])?;
            Ok(1)
        }
    }
}
