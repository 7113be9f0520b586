//! Webhook endpoints, their delivery queue and the log of attempts.
//!
//! Delivery times (`next_attempt_at`, `created_at` of a delivery, an attempt's `at`,
//! `failing_since`) are milliseconds; an endpoint's `created_at` and `previous_until` seconds.

use super::sql::{Connection, OptionalExtension, Row, Transaction, params};

use super::StorageResult;

#[derive(Debug, Clone, PartialEq)]
pub struct WebhookRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub url: String,
    /// JSON array of event types.
    pub events: String,
    pub description: Option<String>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub secret_generation: i64,
    pub previous_until: Option<i64>,
    pub created_at: i64,
    pub failing_since: Option<i64>,
    /// The API version its events are written in (`YYYY-MM-DD`).
    pub api_version: String,
}

const COLUMNS: &str = "id, subscriber_id, url, events, description, enabled, disabled_reason, secret_generation, \
     previous_until, created_at, failing_since, api_version";

fn from_row(row: &Row<'_>) -> super::StorageResult<WebhookRow> {
    Ok(WebhookRow {
        id: row.get(0)?,
        subscriber_id: row.get(1)?,
        url: row.get(2)?,
        events: row.get(3)?,
        description: row.get(4)?,
        enabled: row.get(5)?,
        disabled_reason: row.get(6)?,
        secret_generation: row.get(7)?,
        previous_until: row.get(8)?,
        created_at: row.get(9)?,
        failing_since: row.get(10)?,
        api_version: row.get(11)?,
    })
}

pub struct NewWebhook<'a> {
    pub subscriber_id: i64,
    pub url: &'a str,
    pub events: &'a str,
    pub description: Option<&'a str>,
    pub created_at: i64,
    pub api_version: &'a str,
}

pub fn insert(transaction: &Transaction<'_>, new: &NewWebhook<'_>) -> StorageResult<WebhookRow> {
    let mut statement = transaction.prepare_cached(&format!(
        "INSERT INTO webhooks (subscriber_id, url, events, description, created_at, api_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         RETURNING {COLUMNS}"
    ))?;
    statement.query_row(
        params![new.subscriber_id, new.url, new.events, new.description, new.created_at, new.api_version],
        from_row,
    )
}

pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<WebhookRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM webhooks WHERE subscriber_id = ?1 ORDER BY id"))?;
    let rows = statement.query_map([subscriber_id], from_row)?;
    rows.collect::<Result<_, _>>()
}

pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<WebhookRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1 AND subscriber_id = ?2"))?;
    statement.query_row(params![id, subscriber_id], from_row).optional()
}

/// What a PATCH changes; `None` keeps the value.
#[derive(Debug, Default)]
pub struct Change {
    pub url: Option<String>,
    pub events: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
    pub api_version: Option<String>,
}

pub fn update(
    transaction: &Transaction<'_>,
    subscriber_id: i64,
    id: i64,
    change: &Change,
) -> StorageResult<Option<WebhookRow>> {
    let mut statement = transaction.prepare_cached(&format!(
        "UPDATE webhooks SET url = COALESCE(?3, url), events = COALESCE(?4, events),
             description = COALESCE(?5, description),
             enabled = COALESCE(?6, enabled),
             -- Enabled again by its subscriber: no reason to show, and a fresh start of the failure clock.
             disabled_reason = CASE WHEN ?6 IS NULL THEN disabled_reason ELSE NULL END,
             failing_since = CASE WHEN ?6 = 1 THEN NULL ELSE failing_since END,
             api_version = COALESCE(?7, api_version)
         WHERE id = ?1 AND subscriber_id = ?2 RETURNING {COLUMNS}"
    ))?;
    statement
        .query_row(
            params![
                id,
                subscriber_id,
                change.url,
                change.events,
                change.description,
                change.enabled,
                change.api_version
            ],
            from_row,
        )
        .optional()
}

pub fn delete(transaction: &Transaction<'_>, subscriber_id: i64, id: i64) -> StorageResult<bool> {
    Ok(transaction.execute("DELETE FROM webhooks WHERE id = ?1 AND subscriber_id = ?2", params![id, subscriber_id])?
        == 1)
}

/// A new secret generation; the one before keeps signing until `previous_until`.
pub fn rotate(
    transaction: &Transaction<'_>,
    subscriber_id: i64,
    id: i64,
    previous_until: i64,
) -> StorageResult<Option<WebhookRow>> {
    let mut statement = transaction.prepare_cached(&format!(
        "UPDATE webhooks SET secret_generation = secret_generation + 1, previous_until = ?3
         WHERE id = ?1 AND subscriber_id = ?2 RETURNING {COLUMNS}"
    ))?;
    statement.query_row(params![id, subscriber_id, previous_until], from_row).optional()
}

/// A queued delivery that is due.
#[derive(Debug, Clone, PartialEq)]
pub struct DueDelivery {
    pub webhook: WebhookRow,
    pub event_id: i64,
    pub attempts: u32,
    pub created_at: i64,
}

/// Up to `limit` deliveries due at `now_ms`, endpoint by endpoint, oldest event first.
pub fn due(connection: &Connection, now_ms: i64, limit: u32) -> StorageResult<Vec<DueDelivery>> {
    let columns = COLUMNS.split(',').map(|column| format!("w.{}", column.trim())).collect::<Vec<_>>().join(", ");
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {columns}, d.event_id, d.attempts, d.created_at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND w.enabled = 1
         ORDER BY d.webhook_id, d.event_id LIMIT ?2"
    ))?;
    let rows = statement.query_map(params![now_ms, limit], |row| {
        Ok(DueDelivery {
            webhook: from_row(row)?,
            event_id: row.get(12)?,
            attempts: row.get(13)?,
            created_at: row.get(14)?,
        })
    })?;
    rows.collect::<Result<_, _>>()
}

/// Deliveries waiting for an attempt (of enabled endpoints).
pub fn waiting(connection: &Connection) -> StorageResult<i64> {
    connection.query_row(
        "SELECT COUNT(*) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND w.enabled = 1",
        params![],
        |row| row.get(0),
    )
}

/// When the next queued delivery is due, if one is.
pub fn next_due(connection: &Connection) -> StorageResult<Option<i64>> {
    connection.query_row(
        "SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND w.enabled = 1",
        params![],
        |row| row.get(0),
    )
}

/// One attempt's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub webhook_id: i64,
    pub event_id: i64,
    pub attempt: u32,
    pub delivered: bool,
    pub response_status: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub at: i64,
    /// When to try again; `None` when this attempt ends the delivery.
    pub next_attempt_at: Option<i64>,
}

/// Logs an attempt and moves the queue on: delivered, failed for good, or due again. A run of
/// failures that began before `disable_before` disables the endpoint. Returns whether it did.
pub fn record_attempt(transaction: &Transaction<'_>, attempt: &Attempt, disable_before: i64) -> StorageResult<bool> {
    transaction
        .prepare_cached(
            "INSERT INTO webhook_attempts
                 (webhook_id, event_id, attempt, status, response_status, duration_ms, error, at, next_attempt_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            attempt.webhook_id,
            attempt.event_id,
            attempt.attempt,
            if attempt.delivered { "delivered" } else { "failed" },
            attempt.response_status,
            attempt.duration_ms,
            attempt.error,
            attempt.at,
            attempt.next_attempt_at,
        ])?;
    let status = match (attempt.delivered, attempt.next_attempt_at) {
        (true, _) => "delivered",
        (false, Some(_)) => "pending",
        (false, None) => "failed",
    };
    transaction
        .prepare_cached(
            "UPDATE webhook_deliveries SET status = ?3, attempts = ?4, next_attempt_at = ?5
             WHERE webhook_id = ?1 AND event_id = ?2",
        )?
        .execute(params![attempt.webhook_id, attempt.event_id, status, attempt.attempt, attempt.next_attempt_at])?;
    if attempt.delivered {
        transaction
            .prepare_cached("UPDATE webhooks SET failing_since = NULL WHERE id = ?1")?
            .execute([attempt.webhook_id])?;
        return Ok(false);
    }
    transaction
        .prepare_cached("UPDATE webhooks SET failing_since = COALESCE(failing_since, ?2) WHERE id = ?1")?
        .execute(params![attempt.webhook_id, attempt.at])?;
    let disabled = transaction
        .prepare_cached(
            "UPDATE webhooks SET enabled = 0,
                 disabled_reason = 'every delivery failed for 3 days: fix the endpoint, then enable it again'
             WHERE id = ?1 AND enabled = 1 AND failing_since < ?2",
        )?
        .execute(params![attempt.webhook_id, disable_before])?;
    Ok(disabled == 1)
}

/// Queues the event for the endpoint again, now (a resend); `false` when the subscriber has no
/// such event.
pub fn resend(
    transaction: &Transaction<'_>,
    subscriber_id: i64,
    webhook_id: i64,
    event_id: i64,
    now_ms: i64,
) -> StorageResult<bool> {
    let queued = transaction
        .prepare_cached(
            "INSERT INTO webhook_deliveries (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at, created_at)
             SELECT ?1, r.event_id, r.subscriber_id, 'pending', 0, ?4, ?4
             FROM event_recipients r WHERE r.subscriber_id = ?2 AND r.event_id = ?3
             ON CONFLICT (webhook_id, event_id) DO UPDATE SET status = 'pending', next_attempt_at = ?4, created_at = ?4",
        )?
        .execute(params![webhook_id, subscriber_id, event_id, now_ms])?;
    Ok(queued == 1)
}

/// A logged attempt, with the event's type.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedAttempt {
    pub id: i64,
    pub event_id: i64,
    pub event_type: String,
    pub attempt: u32,
    pub delivered: bool,
    pub response_status: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub at: i64,
    pub next_attempt_at: Option<i64>,
}

/// Up to `limit` attempts of the endpoint below the attempt id `before` (newest first).
pub fn attempts(
    connection: &Connection,
    webhook_id: i64,
    before: Option<i64>,
    limit: u32,
) -> StorageResult<Vec<LoggedAttempt>> {
    let mut statement = connection.prepare_cached(
        "SELECT a.id, a.event_id, COALESCE(e.type, ''), a.attempt, a.status = 'delivered', a.response_status,
                a.duration_ms, a.error, a.at, a.next_attempt_at
         FROM webhook_attempts a LEFT JOIN events e ON e.id = a.event_id
         WHERE a.webhook_id = ?1 AND a.id < ?2 ORDER BY a.id DESC LIMIT ?3",
    )?;
    let rows = statement.query_map(params![webhook_id, before.unwrap_or(i64::MAX), limit], |row| {
        Ok(LoggedAttempt {
            id: row.get(0)?,
            event_id: row.get(1)?,
            event_type: row.get(2)?,
            attempt: row.get(3)?,
            delivered: row.get(4)?,
            response_status: row.get(5)?,
            duration_ms: row.get(6)?,
            error: row.get(7)?,
            at: row.get(8)?,
            next_attempt_at: row.get(9)?,
        })
    })?;
    rows.collect::<Result<_, _>>()
}

/// Forgets attempts logged before `before_ms`.
pub fn purge_attempts(transaction: &Transaction<'_>, before_ms: i64) -> StorageResult<usize> {
    transaction.execute("DELETE FROM webhook_attempts WHERE at < ?1", [before_ms])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{Db, StorageError, events, subscribers};

    const HOUR_MS: i64 = 3_600_000;

    /// A subscriber with one endpoint for every event, and one event queued for it.
    async fn queued(db: &Db) -> (i64, i64) {
        db.write(|transaction| {
            let subscriber = subscribers::NewSubscriber {
                email: "hooks@example.com",
                client_id: "client",
                public_key: "public",
                secret_hash: "hash",
                created_at: 0,
            };
            let subscriber_id = subscribers::insert(transaction, &subscriber)?
                .ok_or_else(|| StorageError::Corrupt("subscriber exists".to_owned()))?;
            let new = NewWebhook {
                subscriber_id,
                url: "http://127.0.0.1:9/",
                events: "[\"*\"]",
                description: None,
                created_at: 0,
                api_version: "2026-11-21",
            };
            let webhook = insert(transaction, &new)?;
            let event_id = events::record_other(transaction, subscriber_id, "card.enrolled", "{}", 0)?;
            Ok((webhook.id, event_id))
        })
        .await
        .expect("an endpoint and an event")
    }

    fn failed(webhook_id: i64, event_id: i64, attempt: u32, at: i64) -> Attempt {
        Attempt {
            webhook_id,
            event_id,
            attempt,
            delivered: false,
            response_status: Some(500),
            duration_ms: 1,
            error: Some("the receiver answered 500".to_owned()),
            at,
            next_attempt_at: Some(at + HOUR_MS),
        }
    }

    /// Failures for less than 3 days keep the endpoint; the first failure past them disables
    /// it, with the reason shown; a delivery in between starts the clock again.
    #[tokio::test]
    async fn an_endpoint_failing_for_three_days_is_disabled() {
        let dir = tempfile::tempdir().expect("a folder");
        let db = Db::open(&dir.path().join("hooks.sqlite3").into()).expect("a database");
        let (webhook_id, event_id) = queued(&db).await;
        let three_days = 72 * HOUR_MS;
        let record = |attempt: Attempt, now: i64| {
            let db = db.clone();
            async move {
                db.write(move |transaction| record_attempt(transaction, &attempt, now - three_days))
                    .await
                    .expect("logged")
            }
        };
        assert!(!record(failed(webhook_id, event_id, 1, 0), 0).await);
        assert!(!record(failed(webhook_id, event_id, 2, 71 * HOUR_MS), 71 * HOUR_MS).await, "not yet 3 days");
        let delivered = Attempt {
            delivered: true,
            response_status: Some(200),
            error: None,
            next_attempt_at: None,
            ..failed(webhook_id, event_id, 3, 72 * HOUR_MS)
        };
        assert!(!record(delivered, 72 * HOUR_MS).await);
        assert!(
            !record(failed(webhook_id, event_id, 4, 100 * HOUR_MS), 100 * HOUR_MS).await,
            "the clock started again"
        );
        assert!(record(failed(webhook_id, event_id, 5, 173 * HOUR_MS), 173 * HOUR_MS).await, "3 days of failures");
        let row = db.read(move |connection| get(connection, 1, webhook_id)).await.expect("read").expect("the endpoint");
        assert!(!row.enabled);
        assert!(row.disabled_reason.is_some_and(|reason| reason.contains("3 days")));
        let attempts = db.read(move |connection| attempts(connection, webhook_id, None, 10)).await.expect("the log");
        assert_eq!(attempts.len(), 5, "every attempt logged");
    }
}
