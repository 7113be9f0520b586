use futures::FutureExt;
use tokio_postgres::Row;

use super::events::record_other;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, flag, query, query_one, query_opt, unsigned, unsigned_opt};
use crate::storage::StorageResult;
use crate::storage::events::WEBHOOK_TEST;
use crate::storage::idempotency::Replay;
use crate::storage::webhooks::{
    Attempt, AttemptEntry, COLUMNS, Change, DueDelivery, EndpointQueue, LoggedAttempt, NewWebhook, QUEUE_COLUMNS_AT,
    WebhookRow,
};

fn from_row(row: &Row) -> StorageResult<WebhookRow> {
    Ok(WebhookRow {
        id: row.try_get(0)?,
        subscriber_id: row.try_get(1)?,
        url: row.try_get(2)?,
        events: row.try_get(3)?,
        description: row.try_get(4)?,
        enabled: flag(row, 5)?,
        disabled_reason: row.try_get(6)?,
        secret_generation: row.try_get(7)?,
        previous_until: row.try_get(8)?,
        created_at: row.try_get(9)?,
        failing_since: row.try_get(10)?,
        api_version: row.try_get(11)?,
        standard_secret_from: row.try_get(12)?,
    })
}

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
            let row = from_row(&row)?;
            super::idempotency::store_replay(client, replay, row.id, new.created_at).await?;
            Ok(Some(row))
        }
        .boxed()
    })
    .await
}

pub async fn list(db: &Database, subscriber_id: i64) -> StorageResult<Vec<WebhookRow>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        &format!("SELECT {COLUMNS} FROM webhooks WHERE subscriber_id = $1 ORDER BY id"),
        &[&subscriber_id],
    )
    .await?;
    rows.iter().map(from_row).collect()
}

pub async fn get(db: &Database, subscriber_id: i64, id: i64) -> StorageResult<Option<WebhookRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {COLUMNS} FROM webhooks WHERE id = $1 AND subscriber_id = $2"),
        &[&id, &subscriber_id],
    )
    .await?
    .map(|row| from_row(&row))
    .transpose()
}

pub async fn update(db: &Database, subscriber_id: i64, id: i64, change: Change) -> StorageResult<Option<WebhookRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!(
            "UPDATE webhooks SET url = COALESCE($3, url), events = COALESCE($4, events),
                 description = COALESCE($5, description),
                 enabled = COALESCE($6, enabled),
                 -- Enabled again by its subscriber: no reason to show, and a fresh start of the failure clock.
                 disabled_reason = CASE WHEN $6::BIGINT IS NULL THEN disabled_reason ELSE NULL END,
                 failing_since = CASE WHEN $6 = 1 THEN NULL ELSE failing_since END,
                 api_version = COALESCE($7, api_version)
             WHERE id = $1 AND subscriber_id = $2 RETURNING {COLUMNS}"
        ),
        &[
            &id,
            &subscriber_id,
            &change.url,
            &change.events,
            &change.description,
            &change.enabled.map(i64::from),
            &change.api_version,
        ],
    )
    .await?
    .map(|row| from_row(&row))
    .transpose()
}

pub async fn delete(db: &Database, subscriber_id: i64, id: i64) -> StorageResult<bool> {
    let client = db.client().await?;
    Ok(execute(&client, "DELETE FROM webhooks WHERE id = $1 AND subscriber_id = $2", &[&id, &subscriber_id]).await?
        == 1)
}

pub async fn rotate(
    db: &Database,
    subscriber_id: i64,
    id: i64,
    previous_until: i64,
) -> StorageResult<Option<WebhookRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!(
            "UPDATE webhooks SET secret_generation = secret_generation + 1, previous_until = $3
             WHERE id = $1 AND subscriber_id = $2 RETURNING {COLUMNS}"
        ),
        &[&id, &subscriber_id, &previous_until],
    )
    .await?
    .map(|row| from_row(&row))
    .transpose()
}

const RESEND: &str = "INSERT INTO webhook_deliveries (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at, created_at)
     SELECT $1, r.event_id, r.subscriber_id, 'pending', 0, $4, $4
     FROM event_recipients r WHERE r.subscriber_id = $2 AND r.event_id = $3
     ON CONFLICT (webhook_id, event_id) DO UPDATE SET status = 'pending', next_attempt_at = $4, created_at = $4";

async fn queue_again(
    client: &Client,
    subscriber_id: i64,
    webhook_id: i64,
    event_id: i64,
    now_ms: i64,
) -> StorageResult<bool> {
    Ok(execute(client, RESEND, &[&webhook_id, &subscriber_id, &event_id, &now_ms]).await? == 1)
}

pub async fn send_test(
    db: &Database,
    subscriber_id: i64,
    webhook_id: i64,
    data: String,
    now_ms: i64,
) -> StorageResult<i64> {
    db.write(move |client| {
        async move {
            let (event_id, _) = record_other(client, subscriber_id, WEBHOOK_TEST, &data, now_ms / 1000).await?;
            queue_again(client, subscriber_id, webhook_id, event_id, now_ms).await?;
            Ok(event_id)
        }
        .boxed()
    })
    .await
}

pub async fn resend(
    db: &Database,
    subscriber_id: i64,
    webhook_id: i64,
    event_id: i64,
    now_ms: i64,
) -> StorageResult<bool> {
    let client = db.client().await?;
    queue_again(&client, subscriber_id, webhook_id, event_id, now_ms).await
}

pub async fn attempts(
    db: &Database,
    webhook_id: i64,
    before: Option<i64>,
    limit: u32,
) -> StorageResult<Vec<LoggedAttempt>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        "SELECT a.id, a.event_id, COALESCE(e.type, ''), a.attempt, a.status = 'delivered', a.response_status,
                a.duration_ms, a.error, a.at, a.next_attempt_at
         FROM webhook_attempts a LEFT JOIN events e ON e.id = a.event_id
         WHERE a.webhook_id = $1 AND a.id < $2 ORDER BY a.id DESC LIMIT $3",
        &[&webhook_id, &before.unwrap_or(i64::MAX), &i64::from(limit)],
    )
    .await?;
    rows.iter()
        .map(|row| {
            Ok(LoggedAttempt {
                id: row.try_get(0)?,
                event_id: row.try_get(1)?,
                event_type: row.try_get(2)?,
                entry: AttemptEntry {
                    attempt: unsigned(row, 3)?,
                    delivered: row.try_get(4)?,
                    response_status: unsigned_opt(row, 5)?,
                    duration_ms: row.try_get(6)?,
                    error: row.try_get(7)?,
                    at: row.try_get(8)?,
                    next_attempt_at: row.try_get(9)?,
                },
            })
        })
        .collect()
}

/// The heads of the endpoints' queues that are due and free, locked `SKIP LOCKED` and held
/// until `$3` in the same statement: another instance skips them while this one's claim
/// stands, and a crashed instance's claim ends by itself.
pub async fn claim(db: &Database, now_ms: i64, claim_until: i64, limit: u32) -> StorageResult<Vec<DueDelivery>> {
    let columns = COLUMNS.split(',').map(|column| format!("w.{}", column.trim())).collect::<Vec<_>>().join(", ");
    let client = db.client().await?;
    let rows = query(
        &client,
        &format!(
            "WITH free AS (
                 SELECT d.webhook_id, d.event_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                 WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.enabled = 1
                   AND (d.locked_until IS NULL OR d.locked_until <= $1)
                   AND d.event_id = (SELECT MIN(h.event_id) FROM webhook_deliveries h
                                     WHERE h.webhook_id = d.webhook_id AND h.status = 'pending')
                   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
                                   WHERE o.webhook_id = d.webhook_id AND o.locked_until > $1)
                 ORDER BY d.next_attempt_at LIMIT $2
                 FOR UPDATE OF d SKIP LOCKED
             ), held AS (
                 UPDATE webhook_deliveries d SET locked_until = $3 FROM free
                 WHERE d.webhook_id = free.webhook_id AND d.event_id = free.event_id
                 RETURNING d.webhook_id, d.event_id, d.attempts, d.created_at
             )
             SELECT {columns}, held.event_id, held.attempts, held.created_at
             FROM held JOIN webhooks w ON w.id = held.webhook_id"
        ),
        &[&now_ms, &i64::from(limit), &claim_until],
    )
    .await?;
    rows.iter()
        .map(|row| {
            Ok(DueDelivery {
                webhook: from_row(row)?,
                event_id: row.try_get(QUEUE_COLUMNS_AT)?,
                attempts: unsigned(row, QUEUE_COLUMNS_AT + 1)?,
                created_at: row.try_get(QUEUE_COLUMNS_AT + 2)?,
            })
        })
        .collect()
}

pub async fn queue(db: &Database, now_ms: i64) -> StorageResult<(i64, Option<i64>)> {
    let client = db.client().await?;
    let row = query_one(
        &client,
        "SELECT COUNT(*),
                MIN(CASE WHEN d.event_id = (SELECT MIN(h.event_id) FROM webhook_deliveries h
                                            WHERE h.webhook_id = d.webhook_id AND h.status = 'pending')
                          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
                                          WHERE o.webhook_id = d.webhook_id AND o.locked_until > $1)
                         THEN d.next_attempt_at END)
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND w.enabled = 1",
        &[&now_ms],
    )
    .await?;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

pub async fn endpoint_queue(db: &Database, webhook_id: i64) -> StorageResult<EndpointQueue> {
    let client = db.client().await?;
    let row = query_one(
        &client,
        "SELECT COUNT(*), MIN(next_attempt_at),
                (SELECT error FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id DESC LIMIT 1)
         FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
        &[&webhook_id],
    )
    .await?;
    Ok(EndpointQueue { length: row.try_get(0)?, next_attempt_at: row.try_get(1)?, last_error: row.try_get(2)? })
}

pub async fn recover(
    db: &Database,
    subscriber_id: i64,
    webhook_id: i64,
    since_ms: i64,
    now_ms: i64,
) -> StorageResult<u64> {
    let client = db.client().await?;
    execute(
        &client,
        "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $4, created_at = $4,
             locked_until = NULL
         WHERE webhook_id = $1 AND subscriber_id = $2 AND status = 'failed' AND created_at >= $3",
        &[&webhook_id, &subscriber_id, &since_ms, &now_ms],
    )
    .await
}

/// One statement: the log row, the queue row and the endpoint's failure clock move together.
pub async fn record_attempt(db: &Database, attempt: Attempt, disable_before: i64) -> StorageResult<bool> {
    let status = match (attempt.entry.delivered, attempt.entry.next_attempt_at) {
        (true, _) => "delivered",
        (false, Some(_)) => "pending",
        (false, None) => "failed",
    };
    let client = db.client().await?;
    let row = query_one(
        &client,
        "WITH logged AS (
             INSERT INTO webhook_attempts
                 (webhook_id, event_id, attempt, status, response_status, duration_ms, error, at, next_attempt_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ), queued AS (
             UPDATE webhook_deliveries SET status = $10, attempts = $3, next_attempt_at = $9, locked_until = NULL
             WHERE webhook_id = $1 AND event_id = $2
         ), endpoint AS (
             UPDATE webhooks w SET
                 failing_since = CASE WHEN $11 THEN NULL ELSE COALESCE(w.failing_since, $8) END,
                 enabled = CASE WHEN NOT $11 AND w.enabled = 1
                                     AND ($13::TEXT IS NOT NULL OR COALESCE(w.failing_since, $8) < $12) THEN 0
                                ELSE w.enabled END,
                 disabled_reason = CASE WHEN NOT $11 AND w.enabled = 1 AND $13::TEXT IS NOT NULL THEN $13
                     WHEN NOT $11 AND w.enabled = 1 AND COALESCE(w.failing_since, $8) < $12
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
            &i64::from(attempt.entry.attempt),
            &if attempt.entry.delivered { "delivered" } else { "failed" },
            &attempt.entry.response_status.map(i64::from),
            &attempt.entry.duration_ms,
            &attempt.entry.error,
            &attempt.entry.at,
            &attempt.entry.next_attempt_at,
            &status,
            &attempt.entry.delivered,
            &disable_before,
            &attempt.disable,
        ],
    )
    .await?;
    Ok(row.try_get(0)?)
}
