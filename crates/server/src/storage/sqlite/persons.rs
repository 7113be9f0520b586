use rusqlite::{Connection, OptionalExtension, Row, params};

use super::events::record_other;
use crate::storage::StorageResult;
use crate::storage::idempotency::Replay;
use crate::storage::persons::{AnswerPlan, COLUMNS, Decide, NewPerson, PersonRow, QuestionSetRow, SET_COLUMNS};

fn from_row(row: &Row<'_>) -> rusqlite::Result<PersonRow> {
    Ok(PersonRow {
        id: row.get(0)?,
        subscriber_id: row.get(1)?,
        first_name: row.get(2)?,
        last_name: row.get(3)?,
        email: row.get(4)?,
        created_at: row.get(5)?,
        country_code: row.get(6)?,
        failed_attempts: row.get(7)?,
        locked_until: row.get(8)?,
        verified_at: row.get(9)?,
    })
}

fn set_from_row(row: &Row<'_>) -> rusqlite::Result<QuestionSetRow> {
    Ok(QuestionSetRow {
        id: row.get(0)?,
        person_id: row.get(1)?,
        issued_at: row.get(2)?,
        expires_at: row.get(3)?,
        answered_at: row.get(4)?,
        questions: row.get(5)?,
    })
}

pub fn insert(connection: &Connection, person: &NewPerson, replay: Option<Replay>) -> StorageResult<i64> {
    connection
        .prepare_cached(
            "INSERT INTO persons (subscriber_id, first_name, last_name, email, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![person.subscriber_id, person.first_name, person.last_name, person.email, person.created_at])?;
    let id = connection.last_insert_rowid();
    super::idempotency::store_replay(connection, replay, id, person.created_at)?;
    Ok(id)
}

pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<PersonRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM persons WHERE id = ?1 AND subscriber_id = ?2"))?;
    Ok(statement.query_row(params![id, subscriber_id], from_row).optional()?)
}

pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<(PersonRow, Option<QuestionSetRow>)>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM persons WHERE subscriber_id = ?1 ORDER BY id DESC"))?;
    let persons = statement.query_map([subscriber_id], from_row)?.collect::<Result<Vec<_>, _>>()?;
    persons
        .into_iter()
        .map(|person| {
            let latest = latest_question_set(connection, person.id)?;
            Ok((person, latest))
        })
        .collect()
}

pub fn latest_question_set(connection: &Connection, person_id: i64) -> StorageResult<Option<QuestionSetRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {SET_COLUMNS} FROM person_question_sets WHERE person_id = ?1 ORDER BY id DESC LIMIT 1"
    ))?;
    Ok(statement.query_row([person_id], set_from_row).optional()?)
}

fn question_sets(connection: &Connection, person_id: i64) -> StorageResult<Vec<QuestionSetRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {SET_COLUMNS} FROM person_question_sets WHERE person_id = ?1 ORDER BY id"))?;
    let rows = statement.query_map([person_id], set_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn clear_lock(connection: &Connection, id: i64) -> StorageResult<()> {
    connection
        .prepare_cached("UPDATE persons SET locked_until = NULL, failed_attempts = 0 WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

fn record_failures(connection: &Connection, id: i64, count: u32, lock_until: Option<i64>) -> StorageResult<()> {
    connection
        .prepare_cached("UPDATE persons SET failed_attempts = failed_attempts + ?3, locked_until = ?2 WHERE id = ?1")?
        .execute(params![id, lock_until, count])?;
    Ok(())
}

pub fn issue<R>(
    connection: &Connection,
    subscriber_id: i64,
    person_id: i64,
    decide: Decide<R>,
) -> StorageResult<Option<(R, Option<i64>)>> {
    let Some(person) = get(connection, subscriber_id, person_id)? else { return Ok(None) };
    let sets = question_sets(connection, person_id)?;
    let (plan, answer) = decide(&person, &sets)?;
    if plan.clear_lock {
        clear_lock(connection, person_id)?;
    }
    if let Some(at) = plan.close_unanswered_at {
        let closed = connection
            .prepare_cached(
                "UPDATE person_question_sets SET answered_at = ?2 WHERE person_id = ?1 AND answered_at IS NULL",
            )?
            .execute(params![person_id, at])?;
        record_failures(connection, person_id, u32::try_from(closed).unwrap_or(u32::MAX), plan.lock_until)?;
    }
    if let Some(event) = &plan.locked_event {
        let at = plan.close_unanswered_at.unwrap_or_default();
        record_other(connection, subscriber_id, event.event_type, &event.data, at)?;
    }
    let mut set_id = None;
    if let Some((issued_at, expires_at, questions)) = &plan.issue {
        connection
            .prepare_cached(
                "INSERT INTO person_question_sets (person_id, issued_at, expires_at, questions) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![person_id, issued_at, expires_at, questions])?;
        set_id = Some(connection.last_insert_rowid());
        if let Some(country_code) = &plan.country_code {
            connection
                .prepare_cached("UPDATE persons SET country_code = ?2 WHERE id = ?1")?
                .execute(params![person_id, country_code])?;
        }
    }
    Ok(Some((answer, set_id)))
}

pub fn answer(connection: &Connection, subscriber_id: i64, person_id: i64, plan: &AnswerPlan) -> StorageResult<bool> {
    let marked = connection
        .prepare_cached("UPDATE person_question_sets SET answered_at = ?2 WHERE id = ?1 AND answered_at IS NULL")?
        .execute(params![plan.set_id, plan.now])?;
    if marked != 1 {
        return Ok(false);
    }
    if plan.clear_lock {
        clear_lock(connection, person_id)?;
    }
    if plan.passed {
        connection
            .prepare_cached("UPDATE persons SET verified_at = ?2 WHERE id = ?1")?
            .execute(params![person_id, plan.now])?;
    } else {
        record_failures(connection, person_id, 1, plan.lock_until)?;
    }
    if let Some(event) = &plan.event {
        record_other(connection, subscriber_id, event.event_type, &event.data, plan.now)?;
    }
    Ok(true)
}
