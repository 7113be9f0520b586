//! Persons and the question sets issued to them.

use super::sql::{Connection, OptionalExtension, Row, Transaction, params};

use super::StorageResult;

#[derive(Debug, Clone)]
pub struct PersonRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub created_at: i64,
    pub country_code: Option<String>,
    pub failed_attempts: u32,
    pub locked_until: Option<i64>,
    pub verified_at: Option<i64>,
}

const COLUMNS: &str = "id, subscriber_id, first_name, last_name, email, created_at, country_code, failed_attempts, locked_until, verified_at";

fn from_row(row: &Row<'_>) -> super::StorageResult<PersonRow> {
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

pub struct NewPerson<'a> {
    pub subscriber_id: i64,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub email: &'a str,
    pub created_at: i64,
}

pub fn insert(transaction: &Transaction<'_>, person: &NewPerson<'_>) -> StorageResult<i64> {
    transaction.execute(
        "INSERT INTO persons (subscriber_id, first_name, last_name, email, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![person.subscriber_id, person.first_name, person.last_name, person.email, person.created_at],
    )?;
    Ok(transaction.last_insert_rowid())
}

/// The person when the subscriber onboarded it.
pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<PersonRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM persons WHERE id = ?1 AND subscriber_id = ?2"))?;
    statement.query_row(params![id, subscriber_id], from_row).optional()
}

/// Newest first.
pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<PersonRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM persons WHERE subscriber_id = ?1 ORDER BY id DESC"))?;
    let rows = statement.query_map([subscriber_id], from_row)?;
    rows.collect::<Result<_, _>>()
}

/// Forgets a lock that has run out, with the failures that caused it.
pub fn clear_lock(transaction: &Transaction<'_>, id: i64) -> StorageResult<()> {
    transaction.execute("UPDATE persons SET locked_until = NULL, failed_attempts = 0 WHERE id = ?1", [id])?;
    Ok(())
}

pub fn set_country(transaction: &Transaction<'_>, id: i64, country_code: &str) -> StorageResult<()> {
    transaction.execute("UPDATE persons SET country_code = ?2 WHERE id = ?1", params![id, country_code])?;
    Ok(())
}

pub fn mark_verified(transaction: &Transaction<'_>, id: i64, now: i64) -> StorageResult<()> {
    transaction.execute("UPDATE persons SET verified_at = ?2 WHERE id = ?1", params![id, now])?;
    Ok(())
}

/// Counts `count` failed attempts; `lock_until` is set when they reach the last one allowed.
pub fn record_failures(
    transaction: &Transaction<'_>,
    id: i64,
    count: u32,
    lock_until: Option<i64>,
) -> StorageResult<()> {
    transaction.execute(
        "UPDATE persons SET failed_attempts = failed_attempts + ?3, locked_until = ?2 WHERE id = ?1",
        params![id, lock_until, count],
    )?;
    Ok(())
}

#[derive(Debug, Clone)]
pub struct QuestionSetRow {
    pub id: i64,
    pub person_id: i64,
    pub issued_at: i64,
    pub expires_at: i64,
    /// When the set was answered, or closed unanswered because the next one was asked.
    pub answered_at: Option<i64>,
    /// JSON, as `persons::questions` writes it.
    pub questions: String,
}

fn set_from_row(row: &Row<'_>) -> super::StorageResult<QuestionSetRow> {
    Ok(QuestionSetRow {
        id: row.get(0)?,
        person_id: row.get(1)?,
        issued_at: row.get(2)?,
        expires_at: row.get(3)?,
        answered_at: row.get(4)?,
        questions: row.get(5)?,
    })
}

/// Inserts a set whose questions are made from its id (`questions_for(set_id)`).
pub fn insert_question_set(
    transaction: &Transaction<'_>,
    person_id: i64,
    issued_at: i64,
    expires_at: i64,
    questions_for: impl FnOnce(i64) -> StorageResult<String>,
) -> StorageResult<i64> {
    transaction.execute(
        "INSERT INTO person_question_sets (person_id, issued_at, expires_at, questions) VALUES (?1, ?2, ?3, '[]')",
        params![person_id, issued_at, expires_at],
    )?;
    let id = transaction.last_insert_rowid();
    let questions = questions_for(id)?;
    transaction.execute("UPDATE person_question_sets SET questions = ?2 WHERE id = ?1", params![id, questions])?;
    Ok(id)
}

/// Every set the person was issued, oldest first.
pub fn question_sets(connection: &Connection, person_id: i64) -> StorageResult<Vec<QuestionSetRow>> {
    let mut statement = connection.prepare_cached(
        "SELECT id, person_id, issued_at, expires_at, answered_at, questions FROM person_question_sets
         WHERE person_id = ?1 ORDER BY id",
    )?;
    let rows = statement.query_map([person_id], set_from_row)?;
    rows.collect::<Result<_, _>>()
}

/// Closes the person's sets that were never answered (open or expired); returns how many,
/// each of which counts as a failed attempt.
pub fn close_unanswered(transaction: &Transaction<'_>, person_id: i64, now: i64) -> StorageResult<u32> {
    let closed = transaction.execute(
        "UPDATE person_question_sets SET answered_at = ?2 WHERE person_id = ?1 AND answered_at IS NULL",
        params![person_id, now],
    )?;
    Ok(u32::try_from(closed).unwrap_or(u32::MAX))
}

/// The set issued last.
pub fn latest_question_set(connection: &Connection, person_id: i64) -> StorageResult<Option<QuestionSetRow>> {
    let mut statement = connection.prepare_cached(
        "SELECT id, person_id, issued_at, expires_at, answered_at, questions FROM person_question_sets
         WHERE person_id = ?1 ORDER BY id DESC LIMIT 1",
    )?;
    statement.query_row([person_id], set_from_row).optional()
}

/// Marks the set answered; `false` when it already was (a concurrent submission won).
pub fn mark_answered(transaction: &Transaction<'_>, set_id: i64, now: i64) -> StorageResult<bool> {
    let changed = transaction.execute(
        "UPDATE person_question_sets SET answered_at = ?2 WHERE id = ?1 AND answered_at IS NULL",
        params![set_id, now],
    )?;
    Ok(changed == 1)
}
