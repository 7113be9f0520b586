use futures::FutureExt;
use tokio_postgres::Row;

use super::events::record_other;
use super::idempotency::OwnedParams;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, query, query_one, query_opt, unsigned};
use crate::storage::StorageResult;
use crate::storage::changes::Change;
use crate::storage::idempotency::Replay;
use crate::storage::persons::{AnswerPlan, COLUMNS, Decide, NewPerson, PersonRow, QuestionSetRow, SET_COLUMNS};

fn from_row(row: &Row) -> StorageResult<PersonRow> {
    Ok(PersonRow {
        id: row.try_get(0)?,
        subscriber_id: row.try_get(1)?,
        first_name: row.try_get(2)?,
        last_name: row.try_get(3)?,
        email: row.try_get(4)?,
        created_at: row.try_get(5)?,
        country_code: row.try_get(6)?,
        failed_attempts: unsigned(row, 7)?,
        locked_until: row.try_get(8)?,
        verified_at: row.try_get(9)?,
    })
}

fn set_from_row(row: &Row) -> StorageResult<QuestionSetRow> {
    Ok(QuestionSetRow {
        id: row.try_get(0)?,
        person_id: row.try_get(1)?,
        issued_at: row.try_get(2)?,
        expires_at: row.try_get(3)?,
        answered_at: row.try_get(4)?,
        questions: row.try_get(5)?,
    })
}

const INSERT: &str = "INSERT INTO persons (subscriber_id, first_name, last_name, email, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id";

pub async fn insert(db: &Database, person: NewPerson, replay: Option<Replay>) -> StorageResult<i64> {
    let NewPerson { subscriber_id, first_name, last_name, email, created_at } = person;
    let params: OwnedParams =
        vec![Box::new(subscriber_id), Box::new(first_name), Box::new(last_name), Box::new(email), Box::new(created_at)];
    super::idempotency::insert_keeping_replay(db, INSERT, params, created_at, replay).await
}

pub async fn get(db: &Database, subscriber_id: i64, id: i64) -> StorageResult<Option<PersonRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {COLUMNS} FROM persons WHERE id = $1 AND subscriber_id = $2"),
        &[&id, &subscriber_id],
    )
    .await?
    .map(|row| from_row(&row))
    .transpose()
}

/// One statement: each person with its latest set.
pub async fn list(db: &Database, subscriber_id: i64) -> StorageResult<Vec<(PersonRow, Option<QuestionSetRow>)>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        &format!(
            "SELECT p.*, s.* FROM (SELECT {COLUMNS} FROM persons WHERE subscriber_id = $1) p
             LEFT JOIN LATERAL (SELECT {SET_COLUMNS} FROM person_question_sets q WHERE q.person_id = p.id
                                ORDER BY q.id DESC LIMIT 1) s ON TRUE
             ORDER BY p.id DESC"
        ),
        &[&subscriber_id],
    )
    .await?;
    rows.iter()
        .map(|row| {
            let person = from_row(row)?;
            let set_id: Option<i64> = row.try_get(10)?;
            let latest = match set_id {
                Some(id) => Some(QuestionSetRow {
                    id,
                    person_id: row.try_get(11)?,
                    issued_at: row.try_get(12)?,
                    expires_at: row.try_get(13)?,
                    answered_at: row.try_get(14)?,
                    questions: row.try_get(15)?,
                }),
                None => None,
            };
            Ok((person, latest))
        })
        .collect()
}

pub async fn latest_question_set(db: &Database, person_id: i64) -> StorageResult<Option<QuestionSetRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {SET_COLUMNS} FROM person_question_sets WHERE person_id = $1 ORDER BY id DESC LIMIT 1"),
        &[&person_id],
    )
    .await?
    .map(|row| set_from_row(&row))
    .transpose()
}

async fn record_failures(client: &Client, id: i64, count: i64, lock_until: Option<i64>) -> StorageResult<()> {
    execute(
        client,
        "UPDATE persons SET failed_attempts = failed_attempts + $3, locked_until = $2 WHERE id = $1",
        &[&id, &lock_until, &count],
    )
    .await?;
    Ok(())
}

const CLEAR_LOCK: &str = "UPDATE persons SET locked_until = NULL, failed_attempts = 0 WHERE id = $1";

/// Locks the subscriber, reads the person and its sets (one round trip), applies the plan.
pub async fn issue<R: Send + 'static>(
    db: &Database,
    subscriber_id: i64,
    person_id: i64,
    decide: Decide<R>,
) -> StorageResult<Option<(R, Option<i64>)>> {
    let (outcome, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![subscriber_id];
                let (locked, person, sets) = futures::future::join3(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    query_opt(
                        client,
                        &format!("SELECT {COLUMNS} FROM persons WHERE id = $1 AND subscriber_id = $2"),
                        &[&person_id, &subscriber_id],
                    ),
                    query(
                        client,
                        &format!("SELECT {SET_COLUMNS} FROM person_question_sets WHERE person_id = $1 ORDER BY id"),
                        &[&person_id],
                    ),
                )
                .await;
                locked?;
                let Some(person) = person? else { return Ok((None, 0)) };
                let person = from_row(&person)?;
                let sets = sets?.iter().map(set_from_row).collect::<StorageResult<Vec<_>>>()?;
                let (plan, answer) = decide(&person, &sets)?;
                if plan.clear_lock {
                    execute(client, CLEAR_LOCK, &[&person_id]).await?;
                }
                if let Some(at) = plan.close_unanswered_at {
                    let closed = execute(
                        client,
                        "UPDATE person_question_sets SET answered_at = $2 WHERE person_id = $1 AND answered_at IS NULL",
                        &[&person_id, &at],
                    )
                    .await?;
                    record_failures(client, person_id, i64::try_from(closed).unwrap_or(i64::MAX), plan.lock_until)
                        .await?;
                }
                let mut queued = 0;
                if let Some(event) = &plan.locked_event {
                    queued += record_other(
                        client,
                        subscriber_id,
                        event.event_type,
                        &event.data,
                        plan.close_unanswered_at.unwrap_or_default(),
                    )
                    .await?
                    .1;
                }
                let mut set_id = None;
                if let Some((issued_at, expires_at, questions)) = &plan.issue {
                    let row = query_one(
                        client,
                        "INSERT INTO person_question_sets (person_id, issued_at, expires_at, questions)
                         VALUES ($1, $2, $3, $4) RETURNING id",
                        &[&person_id, issued_at, expires_at, questions],
                    )
                    .await?;
                    set_id = Some(row.try_get(0)?);
                    if let Some(country_code) = &plan.country_code {
                        execute(
                            client,
                            "UPDATE persons SET country_code = $2 WHERE id = $1",
                            &[&person_id, country_code],
                        )
                        .await?;
                    }
                }
                Ok((Some((answer, set_id)), queued))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(outcome)
}

pub async fn answer(db: &Database, subscriber_id: i64, person_id: i64, plan: AnswerPlan) -> StorageResult<bool> {
    let (answered, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![subscriber_id];
                let (locked, marked) = futures::future::join(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    execute(
                        client,
                        "UPDATE person_question_sets SET answered_at = $2 WHERE id = $1 AND answered_at IS NULL",
                        &[&plan.set_id, &plan.now],
                    ),
                )
                .await;
                locked?;
                if marked? != 1 {
                    return Ok((false, 0));
                }
                if plan.clear_lock {
                    execute(client, CLEAR_LOCK, &[&person_id]).await?;
                }
                if plan.passed {
                    execute(client, "UPDATE persons SET verified_at = $2 WHERE id = $1", &[&person_id, &plan.now])
                        .await?;
                } else {
                    record_failures(client, person_id, 1, plan.lock_until).await?;
                }
                let mut queued = 0;
                if let Some(event) = &plan.event {
                    queued = record_other(client, subscriber_id, event.event_type, &event.data, plan.now).await?.1;
                }
                Ok((true, queued))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(answered)
}
