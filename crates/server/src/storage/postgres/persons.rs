use futures::FutureExt;
use subscriber_protocol::PersonId;
use subscriber_protocol::QuestionSetId;
use subscriber_protocol::SubscriberId;

use super::events::record_other;
use super::rows::{all, execute, first};
use super::{Database, LOCK_SUBSCRIBERS};
use crate::storage::StorageResult;
use crate::storage::notices::Change;
use crate::storage::rows::persons::{
    AnswerPlan, CLEAR_LOCK, CLOSE_UNANSWERED, Decide, GET, ISSUE, MARK_ANSWERED, PersonRow, RECORD_FAILURES,
    SET_COUNTRY, SETS, VERIFIED,
};

/// Locks the subscriber, reads the person and its sets (one round trip), applies the plan.
pub async fn issue<R: Send + 'static>(
    db: &Database,
    subscriber_id: SubscriberId,
    person_id: PersonId,
    decide: Decide<R>,
) -> StorageResult<Option<(R, Option<QuestionSetId>)>> {
    let (outcome, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![subscriber_id];
                let (locked, person, sets) = futures::future::join3(
                    super::execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    first::<PersonRow>(client, &GET, &[&person_id, &subscriber_id]),
                    all(client, &SETS, &[&person_id]),
                )
                .await;
                locked?;
                let Some(person) = person? else { return Ok((None, 0)) };
                let (plan, answer) = decide(&person, &sets?)?;
                if plan.clear_lock {
                    execute(client, &CLEAR_LOCK, &[&person_id]).await?;
                }
                if let Some(at) = plan.close_unanswered_at {
                    let closed = execute(client, &CLOSE_UNANSWERED, &[&person_id, &at]).await?;
                    let closed = i64::try_from(closed).unwrap_or(i64::MAX);
                    execute(client, &RECORD_FAILURES, &[&person_id, &plan.lock_until, &closed]).await?;
                }
                let mut queued = 0;
                if let Some(event) = &plan.locked_event {
                    let at = plan.close_unanswered_at.unwrap_or_default();
                    queued += record_other(client, subscriber_id, event.event_type, &event.data, at).await?.1;
                }
                let mut set_id = None;
                if let Some((issued_at, expires_at, questions)) = &plan.issue {
                    set_id =
                        first::<QuestionSetId>(client, &ISSUE, &[&person_id, issued_at, expires_at, questions]).await?;
                    if let Some(country_code) = &plan.country_code {
                        execute(client, &SET_COUNTRY, &[&person_id, country_code]).await?;
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

pub async fn answer(
    db: &Database,
    subscriber_id: SubscriberId,
    person_id: PersonId,
    plan: AnswerPlan,
) -> StorageResult<bool> {
    let (answered, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![subscriber_id];
                let (locked, marked) = futures::future::join(
                    super::execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    execute(client, &MARK_ANSWERED, &[&plan.set_id, &plan.now]),
                )
                .await;
                locked?;
                if marked? != 1 {
                    return Ok((false, 0));
                }
                if plan.clear_lock {
                    execute(client, &CLEAR_LOCK, &[&person_id]).await?;
                }
                if plan.passed {
                    execute(client, &VERIFIED, &[&person_id, &plan.now]).await?;
                } else {
                    execute(client, &RECORD_FAILURES, &[&person_id, &plan.lock_until, &1_i64]).await?;
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
