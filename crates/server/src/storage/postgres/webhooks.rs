use futures::FutureExt;
use subscriber_protocol::EventId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixMillis;
use subscriber_protocol::WebhookId;

use super::events::record_other;
use super::rows::first;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, query, query_one, query_opt, unsigned};
use crate::storage::StorageResult;
use crate::storage::events::WEBHOOK_TEST;
use crate::storage::idempotency::Replay;
use crate::storage::rows::FromRow;
use crate::storage::rows::webhooks::{MOVE_TEST_WINDOW, RESEND, ROOM, TEST_WINDOW};
use crate::storage::webhooks::{
    Attempt, COLUMNS, ClaimAsk, ClaimCandidate, ClaimOrder, DueDelivery, EndpointQueue, HeldClaim, NewWebhook,
    QUEUE_COLUMNS_AT, Resend, TestSend, TestWindow, WebhookRow,
};

/// Under the subscriber's lock, so two creations cannot both pass the cap.
pub async fn insert(
    db: &Database,
    new: NewWebhook,
    max: usize,
    replay: Option<Replay>,
) -> StorageResult<Option<WebhookRow>> {
    let max = i64::try_from(max).unwrap_or(i64::MAX);
    db.write(move |client| {
        async move {
            let subscribers = vec![new.subscriber_id];
            let (locked, inserted) = futures::future::join(
                execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                query_opt(
                    client,
                    &format!(
                        "INSERT INTO webhooks (subscriber_id, url, events, description, created_at, api_version)
                         SELECT $1, $2, $3, $4, $5, $7
                         WHERE (SELECT COUNT(*) FROM webhooks WHERE subscriber_id = $1) < $6
                         RETURNING {COLUMNS}"
                    ),
                    &[
                        &new.subscriber_id,
                        &new.url,
                        &new.events,
                        &new.description,
                        &new.created_at,
                        &max,
                        &new.api_version,
                    ],
                ),
            )
            .await;
            locked?;
            let Some(row) = inserted? else { return Ok(None) };
            let row = WebhookRow::from_row(&row)?;
            super::idempotency::store_replay(client, replay, row.id.get(), new.created_at).await?;
            Ok(Some(row))
        }
        .boxed()
    })
    .await
}

async fn queue_again(
    client: &Client,
    subscriber_id: SubscriberId,
    webhook_id: WebhookId,
    event_id: EventId,
    now_ms: UnixMillis,
) -> StorageResult<Resend> {
    let room = query_one(client, ROOM.numbered(), &[&webhook_id, &event_id]).await?;
    let (pending, pending_max, waiting): (i64, i64, bool) = (room.try_get(0)?, room.try_get(1)?, room.try_get(2)?);
    if pending >= pending_max && !waiting {
        return Ok(Resend::QueueFull);
    }
    let queued = execute(client, RESEND.numbered(), &[&webhook_id, &subscriber_id, &event_id, &now_ms]).await? == 1;
    Ok(if queued { Resend::Queued } else { Resend::NoEvent })
}

/// Under the subscriber's lock (taken first by `record_other`'s write), so two sends cannot
/// both pass the window's count: the window is moved, the event recorded, then queued.
pub async fn send_test(
    db: &Database,
    subscriber_id: SubscriberId,
    webhook_id: WebhookId,
    data: String,
    now_ms: UnixMillis,
) -> StorageResult<TestSend> {
    db.write(move |client| {
        async move {
            let subscribers = vec![subscriber_id];
            execute(client, LOCK_SUBSCRIBERS, &[&subscribers]).await?;
            let row = query_one(client, TEST_WINDOW.numbered(), &[&webhook_id]).await?;
            let window = TestWindow {
                pending: row.try_get(0)?,
                pending_max: row.try_get(1)?,
                since: row.try_get(2)?,
                sent: row.try_get(3)?,
            };
            let (since, sent) = match window.send(now_ms) {
                Ok(moved) => moved,
                Err(refused) => return Ok(refused),
            };
            execute(client, MOVE_TEST_WINDOW.numbered(), &[&webhook_id, &since, &sent]).await?;
            let (event_id, _) =
                record_other(client, subscriber_id, WEBHOOK_TEST, &data, now_ms.whole_seconds()).await?;
            execute(client, RESEND.numbered(), &[&webhook_id, &subscriber_id, &event_id, &now_ms]).await?;
            Ok(TestSend::Queued(event_id))
        }
        .boxed()
    })
    .await
}

pub async fn resend(
    db: &Database,
    subscriber_id: SubscriberId,
    webhook_id: WebhookId,
    event_id: EventId,
    now_ms: UnixMillis,
) -> StorageResult<Resend> {
    let client = db.client().await?;
    queue_again(&client, subscriber_id, webhook_id, event_id, now_ms).await
}

pub async fn limit_queues(db: &Database, pending_max: i64) -> StorageResult<()> {
    let client = db.client().await?;
    execute(
        &client,
        "UPDATE webhook_queue_limits SET pending_max = $1 WHERE id = 1 AND pending_max <> $1",
        &[&pending_max],
    )
    .await?;
    Ok(())
}

/// Two statements: the candidates (due, free endpoints, at most `per_subscriber` of one
/// subscriber, read without locks), then, in `order`'s order, the claim: each endpoint's row
/// locked `SKIP LOCKED` and checked again, its head read, and the first `slots` whose head is
/// due held until `claim_until`; the others moved on (their head's retry time, or parked).
pub async fn claim(db: &Database, ask: ClaimAsk, order: ClaimOrder) -> StorageResult<Vec<DueDelivery>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        "SELECT webhook_id, subscriber_id, host FROM (
             SELECT webhook_id, subscriber_id, host, due_at,
                    row_number() OVER (PARTITION BY subscriber_id ORDER BY due_at, webhook_id) AS turn
             FROM webhook_queues
             WHERE due_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
               AND subscriber_id <> ALL($2::BIGINT[]) AND host <> ALL($3::TEXT[])
         ) c WHERE turn <= $4 ORDER BY turn, due_at, webhook_id LIMIT $5",
        &[
            &ask.now_ms,
            &ask.skip_subscribers,
            &ask.skip_hosts,
            &i64::from(ask.per_subscriber),
            &i64::from(ask.candidates),
        ],
    )
    .await?;
    let candidates = rows
        .iter()
        .map(|row| {
            Ok(ClaimCandidate { webhook_id: row.try_get(0)?, subscriber_id: row.try_get(1)?, host: row.try_get(2)? })
        })
        .collect::<StorageResult<Vec<_>>>()?;
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let wanted = order(&candidates);
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let columns = COLUMNS.split(',').map(|column| format!("w.{}", column.trim())).collect::<Vec<_>>().join(", ");
    let rows = query(
        &client,
        &format!(
            "WITH wanted AS (
                 SELECT id, rank FROM unnest($1::BIGINT[]) WITH ORDINALITY AS t(id, rank)
             ), locked AS (
                 SELECT q.webhook_id, wanted.rank FROM webhook_queues q JOIN wanted ON wanted.id = q.webhook_id
                 WHERE q.due_at <= $2 AND (q.claimed_until IS NULL OR q.claimed_until <= $2)
                 ORDER BY wanted.rank
                 FOR UPDATE OF q SKIP LOCKED
             ), heads AS (
                 SELECT l.webhook_id, l.rank, e.enabled, h.event_id, h.attempts, h.created_at, h.next_attempt_at
                 FROM locked l JOIN webhooks e ON e.id = l.webhook_id
                 LEFT JOIN LATERAL (
                     SELECT d.event_id, d.attempts, d.created_at, d.next_attempt_at FROM webhook_deliveries d
                     WHERE d.webhook_id = l.webhook_id AND d.status = 'pending' ORDER BY d.event_id LIMIT 1
                 ) h ON TRUE
             ), chosen AS (
                 SELECT webhook_id FROM heads WHERE enabled = 1 AND next_attempt_at <= $2 ORDER BY rank LIMIT $4
             ), moved AS (
                 UPDATE webhook_queues q SET
                     claimed_until = CASE WHEN c.webhook_id IS NULL THEN q.claimed_until ELSE $3 END,
                     claim = q.claim + CASE WHEN c.webhook_id IS NULL THEN 0 ELSE 1 END,
                     due_at = CASE WHEN c.webhook_id IS NOT NULL THEN $3
                                   WHEN h.enabled = 0 OR h.event_id IS NULL THEN NULL
                                   WHEN h.next_attempt_at > $2 THEN h.next_attempt_at
                                   ELSE q.due_at END
                 FROM heads h LEFT JOIN chosen c ON c.webhook_id = h.webhook_id
                 WHERE q.webhook_id = h.webhook_id
                 RETURNING q.webhook_id, q.claim, q.host, c.webhook_id IS NOT NULL AS claimed
             )
             SELECT {columns}, h.event_id, h.attempts, h.created_at, m.claim, m.host
             FROM moved m JOIN heads h ON h.webhook_id = m.webhook_id JOIN webhooks w ON w.id = m.webhook_id
             WHERE m.claimed ORDER BY h.rank"
        ),
        &[&wanted, &ask.now_ms, &ask.claim_until, &i64::from(ask.slots)],
    )
    .await?;
    rows.iter()
        .map(|row| {
            Ok(DueDelivery {
                webhook: WebhookRow::from_row(row)?,
                event_id: row.try_get(QUEUE_COLUMNS_AT)?,
                attempts: unsigned(row, QUEUE_COLUMNS_AT + 1)?,
                created_at: row.try_get(QUEUE_COLUMNS_AT + 2)?,
                claim: row.try_get(QUEUE_COLUMNS_AT + 3)?,
                host: row.try_get(QUEUE_COLUMNS_AT + 4)?,
            })
        })
        .collect()
}

/// One statement for every claim this instance holds.
pub async fn renew(db: &Database, held: Vec<HeldClaim>, until: UnixMillis) -> StorageResult<Vec<HeldClaim>> {
    let ids: Vec<WebhookId> = held.iter().map(|claim| claim.webhook_id).collect();
    let claims: Vec<i64> = held.iter().map(|claim| claim.claim).collect();
    let client = db.client().await?;
    let rows = query(
        &client,
        "UPDATE webhook_queues q SET claimed_until = $3, due_at = CASE WHEN q.due_at IS NULL THEN NULL ELSE $3 END
         FROM unnest($1::BIGINT[], $2::BIGINT[]) AS h(webhook_id, claim)
         WHERE q.webhook_id = h.webhook_id AND q.claim = h.claim AND q.claimed_until IS NOT NULL
         RETURNING q.webhook_id",
        &[&ids, &claims, &until],
    )
    .await?;
    let renewed = rows.iter().map(|row| row.try_get(0)).collect::<Result<std::collections::HashSet<i64>, _>>()?;
    Ok(held.into_iter().filter(|claim| !renewed.contains(&claim.webhook_id.get())).collect())
}

pub async fn depth(db: &Database) -> StorageResult<i64> {
    let client = db.client().await?;
    let row = query_one(&client, "SELECT COALESCE(SUM(pending), 0)::BIGINT FROM webhook_queues WHERE pending > 0", &[])
        .await?;
    Ok(row.try_get(0)?)
}

pub async fn endpoint_queue(db: &Database, webhook_id: WebhookId) -> StorageResult<EndpointQueue> {
    let client = db.client().await?;
    let queue = first::<EndpointQueue>(
        &client,
        "SELECT q.pending, l.pending_max, w.enabled,
                (SELECT d.next_attempt_at FROM webhook_deliveries d
                 WHERE d.webhook_id = q.webhook_id AND d.status = 'pending' ORDER BY d.event_id LIMIT 1),
                (SELECT a.error FROM webhook_attempts a WHERE a.webhook_id = q.webhook_id ORDER BY a.id DESC LIMIT 1),
                q.dropped, q.gap_count, q.gap_first_event_id, q.gap_last_event_id, q.gap_since, q.gap_until
         FROM webhook_queues q JOIN webhooks w ON w.id = q.webhook_id CROSS JOIN webhook_queue_limits l
         WHERE q.webhook_id = $1",
        &[&webhook_id],
    )
    .await?;
    Ok(queue.unwrap_or_default())
}

pub async fn recover(
    db: &Database,
    subscriber_id: SubscriberId,
    webhook_id: WebhookId,
    since_ms: UnixMillis,
    now_ms: UnixMillis,
) -> StorageResult<u64> {
    let client = db.client().await?;
    execute(
        &client,
        "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $4, created_at = $4
         WHERE webhook_id = $1 AND event_id IN (
             SELECT event_id FROM webhook_deliveries
             WHERE webhook_id = $1 AND subscriber_id = $2 AND status = 'failed' AND created_at >= $3
             ORDER BY event_id
             LIMIT GREATEST(0, (SELECT l.pending_max - q.pending FROM webhook_queues q CROSS JOIN webhook_queue_limits l
                                WHERE q.webhook_id = $1)))",
        &[&webhook_id, &subscriber_id, &since_ms, &now_ms],
    )
    .await
}

/// In one transaction: the endpoint's row locked, then its queue row (the order every writer
/// of both takes them in), the attempt logged; if the claim still stands, the delivery, the
/// failure clock and the queue moved on, its next head read by a statement of its own (which
/// sees what the statement before changed).
pub async fn record_attempt(db: &Database, attempt: Attempt, disable_before: UnixMillis) -> StorageResult<bool> {
    let status = match (attempt.entry.delivered, attempt.entry.next_attempt_at) {
        (true, _) => "delivered",
        (false, Some(_)) => "pending",
        (false, None) => "failed",
    };
    db.write(move |client| {
        async move {
            let locked =
                query_opt(client, "SELECT 1 FROM webhooks WHERE id = $1 FOR NO KEY UPDATE", &[&attempt.webhook_id])
                    .await?;
            if locked.is_none() {
                // Deleted meanwhile: nothing to log it under.
                return Ok(false);
            }
            let (held, logged) = futures::future::join(
                query_opt(
                    client,
                    "SELECT 1 FROM webhook_queues WHERE webhook_id = $1 AND claim = $2 AND claimed_until IS NOT NULL
                     FOR UPDATE",
                    &[&attempt.webhook_id, &attempt.claim],
                ),
                execute(
                    client,
                    "INSERT INTO webhook_attempts
                         (webhook_id, event_id, attempt, status, response_status, duration_ms, error, at, next_attempt_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    &[
                        &attempt.webhook_id,
                        &attempt.event_id,
                        &i64::from(attempt.entry.attempt),
                        &if attempt.entry.delivered { "delivered" } else { "failed" },
                        &attempt.entry.response_status.map(i64::from),
                        &attempt.entry.duration_ms,
                        &attempt.entry.error,
                        &attempt.entry.at,
                        &attempt.entry.next_attempt_at,
                    ],
                ),
            )
            .await;
            logged?;
            if held?.is_none() {
                return Ok(false);
            }
            let row = query_one(
                client,
                "WITH queued AS (
                     UPDATE webhook_deliveries SET status = $3, attempts = $4, next_attempt_at = $5
                     WHERE webhook_id = $1 AND event_id = $2
                 ), endpoint AS (
                     UPDATE webhooks w SET
                         failing_since = CASE WHEN $6 THEN NULL ELSE COALESCE(w.failing_since, $7) END,
                         enabled = CASE WHEN NOT $6 AND w.enabled = 1
                                             AND ($9::TEXT IS NOT NULL OR COALESCE(w.failing_since, $7) < $8) THEN 0
                                        ELSE w.enabled END,
                         disabled_reason = CASE WHEN NOT $6 AND w.enabled = 1 AND $9::TEXT IS NOT NULL THEN $9
                             WHEN NOT $6 AND w.enabled = 1 AND COALESCE(w.failing_since, $7) < $8
                             THEN 'every delivery failed for 3 days: fix the endpoint, then enable it again'
                             ELSE w.disabled_reason END
                     FROM (SELECT id, enabled AS was_enabled FROM webhooks WHERE id = $1) o
                     WHERE w.id = o.id
                     RETURNING o.was_enabled = 1 AND w.enabled = 0 AS disabled_now
                 )
                 SELECT COALESCE((SELECT disabled_now FROM endpoint), FALSE)",
                &[
                    &attempt.webhook_id,
                    &attempt.event_id,
                    &status,
                    &i64::from(attempt.entry.attempt),
                    &attempt.entry.next_attempt_at,
                    &attempt.entry.delivered,
                    &attempt.entry.at,
                    &disable_before,
                    &attempt.disable,
                ],
            )
            .await?;
            let disabled: bool = row.try_get(0)?;
            // Free, due when its (new) head is; parked if disabled.
            execute(
                client,
                "UPDATE webhook_queues SET claimed_until = NULL,
                     due_at = CASE WHEN (SELECT enabled FROM webhooks WHERE id = $1) = 1
                                   THEN (SELECT d.next_attempt_at FROM webhook_deliveries d
                                         WHERE d.webhook_id = $1 AND d.status = 'pending' ORDER BY d.event_id LIMIT 1)
                              END
                 WHERE webhook_id = $1",
                &[&attempt.webhook_id],
            )
            .await?;
            Ok(disabled)
        }
        .boxed()
    })
    .await
}
