use rusqlite::{Connection, params};
use subscriber_protocol::PersonId;
use subscriber_protocol::QuestionSetId;
use subscriber_protocol::SubscriberId;

use super::events::record_other;
use super::rows::{all, execute, first};
use crate::storage::StorageResult;
use crate::storage::rows::persons::{
    AnswerPlan, CLEAR_LOCK, CLOSE_UNANSWERED, Decide, GET, ISSUE, MARK_ANSWERED, PersonRow, RECORD_FAILURES,
    SET_COUNTRY, SETS, VERIFIED,
};

pub fn issue<R>(
    connection: &Connection,
    subscriber_id: SubscriberId,
    person_id: PersonId,
    decide: Decide<R>,
) -> StorageResult<Option<(R, Option<QuestionSetId>)>> {
    let Some(person) = first::<PersonRow>(connection, &GET, params![person_id, subscriber_id])? else {
        return Ok(None);
    };
    let sets = all(connection, &SETS, [person_id])?;
    let (plan, answer) = decide(&person, &sets)?;
    if plan.clear_lock {
        execute(connection, &CLEAR_LOCK, [person_id])?;
    }
    if let Some(at) = plan.close_unanswered_at {
        let closed = execute(connection, &CLOSE_UNANSWERED, params![person_id, at])?;
        let closed = i64::try_from(closed).unwrap_or(i64::MAX);
        execute(connection, &RECORD_FAILURES, params![person_id, plan.lock_until, closed])?;
    }
    if let Some(event) = &plan.locked_event {
        let at = plan.close_unanswered_at.unwrap_or_default();
        record_other(connection, subscriber_id, event.event_type, &event.data, at)?;
    }
    let mut set_id = None;
    if let Some((issued_at, expires_at, questions)) = &plan.issue {
        set_id = first::<QuestionSetId>(connection, &ISSUE, params![person_id, issued_at, expires_at, questions])?;
        if let Some(country_code) = &plan.country_code {
            execute(connection, &SET_COUNTRY, params![person_id, country_code])?;
        }
    }
    Ok(Some((answer, set_id)))
}

pub fn answer(
    connection: &Connection,
    subscriber_id: SubscriberId,
    person_id: PersonId,
    plan: &AnswerPlan,
) -> StorageResult<bool> {
    if execute(connection, &MARK_ANSWERED, params![plan.set_id, plan.now])? != 1 {
        return Ok(false);
    }
    if plan.clear_lock {
        execute(connection, &CLEAR_LOCK, [person_id])?;
    }
    if plan.passed {
        execute(connection, &VERIFIED, params![person_id, plan.now])?;
    } else {
        execute(connection, &RECORD_FAILURES, params![person_id, plan.lock_until, 1])?;
    }
    if let Some(event) = &plan.event {
        record_other(connection, subscriber_id, event.event_type, &event.data, plan.now)?;
    }
    Ok(true)
}
