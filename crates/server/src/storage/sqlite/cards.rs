use rusqlite::{Connection, OptionalExtension, Row, params};

use super::events::record_other;
use crate::storage::StorageResult;
use crate::storage::cards::{COLUMNS, CardRow, EnrolledCard, Inserted, NewCard};
use crate::storage::idempotency::Replay;
use crate::storage::transactions::TransactionRow;

fn from_row(row: &Row<'_>) -> rusqlite::Result<CardRow> {
    Ok(CardRow {
        id: row.get(0)?,
        subscriber_id: row.get(1)?,
        enrolled: EnrolledCard {
            last_four: row.get(2)?,
            brand: row.get(3)?,
            first_name: row.get(4)?,
            last_name: row.get(5)?,
            exp_month: row.get(6)?,
            exp_year: row.get(7)?,
            country_code: row.get(8)?,
            enrolled_at: row.get(9)?,
        },
    })
}

pub fn enroll(connection: &Connection, card: NewCard, replay: Option<Replay>) -> StorageResult<Inserted> {
    let enrolled_at = card.enrolled.enrolled_at;
    let inserted = insert(connection, card)?;
    if let Inserted::Created(card_id) = inserted {
        super::idempotency::store_replay(connection, replay, card_id, enrolled_at)?;
    }
    Ok(inserted)
}

fn insert(connection: &Connection, card: NewCard) -> StorageResult<Inserted> {
    let existing: Option<i64> = connection
        .prepare_cached("SELECT id FROM cards WHERE subscriber_id = ?1 AND fingerprint = ?2")?
        .query_row(params![card.subscriber_id, card.fingerprint], |row| row.get(0))
        .optional()?;
    if let Some(id) = existing {
        return Ok(Inserted::Duplicate(id));
    }
    connection
        .prepare_cached(
            "INSERT INTO cards (subscriber_id, fingerprint, last_four, brand, first_name, last_name,
                                exp_month, exp_year, country_code, enrolled_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            card.subscriber_id,
            card.fingerprint,
            card.enrolled.last_four,
            card.enrolled.brand,
            card.enrolled.first_name,
            card.enrolled.last_name,
            card.enrolled.exp_month,
            card.enrolled.exp_year,
            card.enrolled.country_code,
            card.enrolled.enrolled_at
        ])?;
    let card_id = connection.last_insert_rowid();
    let rows: Vec<TransactionRow> =
        card.history.into_iter().map(|row| TransactionRow { card_id: Some(card_id), ..row }).collect();
    super::transactions::insert_many(connection, &rows)?;
    let event = (card.event_data)(card_id);
    record_other(connection, card.subscriber_id, event.event_type, &event.data, card.enrolled.enrolled_at)?;
    Ok(Inserted::Created(card_id))
}

pub fn enroll_from_session(
    connection: &Connection,
    session_id: i64,
    card: NewCard,
    now: i64,
) -> StorageResult<Option<Inserted>> {
    if !super::card_sessions::is_open(connection, session_id, now)? {
        return Ok(None);
    }
    let inserted = insert(connection, card)?;
    super::card_sessions::complete(connection, session_id, inserted.card_id(), now)?;
    Ok(Some(inserted))
}

pub fn get(connection: &Connection, subscriber_id: i64, card_id: i64) -> StorageResult<Option<CardRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM cards WHERE id = ?1 AND subscriber_id = ?2"))?;
    Ok(statement.query_row(params![card_id, subscriber_id], from_row).optional()?)
}

pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<CardRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM cards WHERE subscriber_id = ?1 ORDER BY id DESC"))?;
    let rows = statement.query_map([subscriber_id], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn pick(connection: &Connection, pick: u64) -> StorageResult<Option<(i64, u16)>> {
    let count: i64 = connection.prepare_cached("SELECT COUNT(*) FROM cards")?.query_row([], |row| row.get(0))?;
    let Ok(count) = u64::try_from(count) else { return Ok(None) };
    if count == 0 {
        return Ok(None);
    }
    let offset = i64::try_from(pick % count).unwrap_or(0);
    Ok(connection
        .prepare_cached("SELECT id, last_four FROM cards ORDER BY id LIMIT 1 OFFSET ?1")?
        .query_row([offset], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}
