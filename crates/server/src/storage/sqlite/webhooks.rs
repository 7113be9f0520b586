use rusqlite::{Connection, OptionalExtension, Row, params};

use super::events::record_other;
use crate::storage::StorageResult;
use crate::storage::events::WEBHOOK_TEST;
use crate::storage::idempotency::Replay;
use crate::storage::webhooks::{
    Attempt, AttemptEntry, COLUMNS, Change, DueDelivery, EndpointQueue, LoggedAttempt, NewWebhook, QUEUE_COLUMNS_AT,
    WebhookRow,
};

fn from_row(row: &Row<'_>) -> rusqlite::Result<WebhookRow> {
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
        standard_secret_from: row.get(12)?,
    })
}

pub fn insert(
    connection: &Connection,
    new: &NewWebhook,
    max: usize,
    replay: Option<Replay>,
) -> StorageResult<Option<WebhookRow>> {
    if list(connection, new.subscriber_id)?.len() >= max {
        return Ok(None);
    }
    let mut statement = connection.prepare_cached(&format!(
        "INSERT INTO webhooks (subscriber_id, url, events, description, created_at, api_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING {COLUMNS}"
    ))?;
    let row = statement.query_row(
        params![new.subscriber_id, new.url, new.events, new.description, new.created_at, new.api_version],
        from_row,
    )?;
    super::idempotency::store_replay(connection, replay, row.id, new.created_at)?;
    Ok(Some(row))
}

pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<WebhookRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM webhooks WHERE subscriber_id = ?1 ORDER BY id"))?;
    let rows = statement.query_map([subscriber_id], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<WebhookRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1 AND subscriber_id = ?2"))?;
    Ok(statement.query_row(params![id, subscriber_id], from_row).optional()?)
}

pub fn update(
    connection: &Connection,
    subscriber_id: i64,
    id: i64,
    change: &Change,
) -> StorageResult<Option<WebhookRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "UPDATE webhooks SET url = COALESCE(?3, url), events = COALESCE(?4, events),
             description = COALESCE(?5, description),
             enabled = COALESCE(?6, enabled),
             -- Enabled again by its subscriber: no reason to show, and a fresh start of the failure clock.
             disabled_reason = CASE WHEN ?6 IS NULL THEN disabled_reason ELSE NULL END,
             failing_since = CASE WHEN ?6 = 1 THEN NULL ELSE failing_since END,
             api_version = COALESCE(?7, api_version)
         WHERE id = ?1 AND subscriber_id = ?2 RETURNING {COLUMNS}"
    ))?;
    Ok(statement
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
        .optional()?)
}

pub fn delete(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<bool> {
    Ok(connection
        .prepare_cached("DELETE FROM webhooks WHERE id = ?1 AND subscriber_id = ?2")?
        .execute(params![id, subscriber_id])?
        == 1)
}

pub fn rotate(
    connection: &Connection,
    subscriber_id: i64,
    id: i64,
    previous_until: i64,
) -> StorageResult<Option<WebhookRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "UPDATE webhooks SET secret_generation = secret_generation + 1, previous_until = ?3
         WHERE id = ?1 AND subscriber_id = ?2 RETURNING {COLUMNS}"
    ))?;
    Ok(statement.query_row(params![id, subscriber_id, previous_until], from_row).optional()?)
}

pub fn send_test(
    connection: &Connection,
    subscriber_id: i64,
    webhook_id: i64,
    data: &str,
    now_ms: i64,
) -> StorageResult<i64> {
    let event_id = record_other(connection, subscriber_id, WEBHOOK_TEST, data, now_ms / 1000)?;
    resend(connection, subscriber_id, webhook_id, event_id, now_ms)?;
    Ok(event_id)
}

pub fn resend(
    connection: &Connection,
    subscriber_id: i64,
    webhook_id: i64,
    event_id: i64,
    now_ms: i64,
) -> StorageResult<bool> {
    let queued = connection
        .prepare_cached(
            "INSERT INTO webhook_deliveries (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at, created_at)
             SELECT ?1, r.event_id, r.subscriber_id, 'pending', 0, ?4, ?4
             FROM event_recipients r WHERE r.subscriber_id = ?2 AND r.event_id = ?3
             ON CONFLICT (webhook_id, event_id) DO UPDATE SET status = 'pending', next_attempt_at = ?4, created_at = ?4",
        )?
        .execute(params![webhook_id, subscriber_id, event_id, now_ms])?;
    Ok(queued == 1)
}

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
            entry: AttemptEntry {
                attempt: row.get(3)?,
                delivered: row.get(4)?,
                response_status: row.get(5)?,
                duration_ms: row.get(6)?,
                error: row.get(7)?,
                at: row.get(8)?,
                next_attempt_at: row.get(9)?,
            },
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One process delivers on SQLite: the claim is the same rule as PostgreSQL's, in one write.
pub fn claim(connection: &Connection, now_ms: i64, claim_until: i64, limit: u32) -> StorageResult<Vec<DueDelivery>> {
    let columns = COLUMNS.split(',').map(|column| format!("w.{}", column.trim())).collect::<Vec<_>>().join(", ");
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {columns}, d.event_id, d.attempts, d.created_at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND w.enabled = 1
           AND d.event_id = (SELECT MIN(h.event_id) FROM webhook_deliveries h
                             WHERE h.webhook_id = d.webhook_id AND h.status = 'pending')
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
                           WHERE o.webhook_id = d.webhook_id AND o.locked_until > ?1)
         ORDER BY d.next_attempt_at LIMIT ?2"
    ))?;
    let claimed = statement
        .query_map(params![now_ms, limit], |row| {
            Ok(DueDelivery {
                webhook: from_row(row)?,
                event_id: row.get(QUEUE_COLUMNS_AT)?,
                attempts: row.get(QUEUE_COLUMNS_AT + 1)?,
                created_at: row.get(QUEUE_COLUMNS_AT + 2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut hold = connection
        .prepare_cached("UPDATE webhook_deliveries SET locked_until = ?3 WHERE webhook_id = ?1 AND event_id = ?2")?;
    for delivery in &claimed {
        hold.execute(params![delivery.webhook.id, delivery.event_id, claim_until])?;
    }
    Ok(claimed)
}

pub fn release_claims(connection: &Connection) -> StorageResult<()> {
    connection.execute("UPDATE webhook_deliveries SET locked_until = NULL WHERE locked_until IS NOT NULL", [])?;
    Ok(())
}

pub fn queue(connection: &Connection, now_ms: i64) -> StorageResult<(i64, Option<i64>)> {
    Ok(connection
        .prepare_cached(
            "SELECT COUNT(*),
                    MIN(CASE WHEN d.event_id = (SELECT MIN(h.event_id) FROM webhook_deliveries h
                                                WHERE h.webhook_id = d.webhook_id AND h.status = 'pending')
                              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
                                              WHERE o.webhook_id = d.webhook_id AND o.locked_until > ?1)
                             THEN d.next_attempt_at END)
             FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
             WHERE d.status = 'pending' AND w.enabled = 1",
        )?
        .query_row([now_ms], |row| Ok((row.get(0)?, row.get(1)?)))?)
}

pub fn endpoint_queue(connection: &Connection, webhook_id: i64) -> StorageResult<EndpointQueue> {
    let (length, next_attempt_at) = connection
        .prepare_cached(
            "SELECT COUNT(*), MIN(next_attempt_at) FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'pending'",
        )?
        .query_row([webhook_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let last_error = connection
        .prepare_cached("SELECT error FROM webhook_attempts WHERE webhook_id = ?1 ORDER BY id DESC LIMIT 1")?
        .query_row([webhook_id], |row| row.get::<_, Option<String>>(0))
        .optional()?
        .flatten();
    Ok(EndpointQueue { length, next_attempt_at, last_error })
}

pub fn recover(
    connection: &Connection,
    subscriber_id: i64,
    webhook_id: i64,
    since_ms: i64,
    now_ms: i64,
) -> StorageResult<u64> {
    let queued = connection
        .prepare_cached(
            "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?4, created_at = ?4,
                 locked_until = NULL
             WHERE webhook_id = ?1 AND subscriber_id = ?2 AND status = 'failed' AND created_at >= ?3",
        )?
        .execute(params![webhook_id, subscriber_id, since_ms, now_ms])?;
    Ok(u64::try_from(queued).unwrap_or(0))
}

pub fn record_attempt(connection: &Connection, attempt: &Attempt, disable_before: i64) -> StorageResult<bool> {
    connection
        .prepare_cached(
            "INSERT INTO webhook_attempts
                 (webhook_id, event_id, attempt, status, response_status, duration_ms, error, at, next_attempt_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            attempt.webhook_id,
            attempt.event_id,
            attempt.entry.attempt,
            if attempt.entry.delivered { "delivered" } else { "failed" },
            attempt.entry.response_status,
            attempt.entry.duration_ms,
            attempt.entry.error,
            attempt.entry.at,
            attempt.entry.next_attempt_at,
        ])?;
    let status = match (attempt.entry.delivered, attempt.entry.next_attempt_at) {
        (true, _) => "delivered",
        (false, Some(_)) => "pending",
        (false, None) => "failed",
    };
    connection
        .prepare_cached(
            "UPDATE webhook_deliveries SET status = ?3, attempts = ?4, next_attempt_at = ?5, locked_until = NULL
             WHERE webhook_id = ?1 AND event_id = ?2",
        )?
        .execute(params![
            attempt.webhook_id,
            attempt.event_id,
            status,
            attempt.entry.attempt,
            attempt.entry.next_attempt_at
        ])?;
    if attempt.entry.delivered {
        connection
            .prepare_cached("UPDATE webhooks SET failing_since = NULL WHERE id = ?1")?
            .execute([attempt.webhook_id])?;
        return Ok(false);
    }
    if let Some(reason) = &attempt.disable {
        let disabled = connection
            .prepare_cached("UPDATE webhooks SET enabled = 0, disabled_reason = ?2 WHERE id = ?1 AND enabled = 1")?
            .execute(params![attempt.webhook_id, reason])?;
        return Ok(disabled == 1);
    }
    connection
        .prepare_cached("UPDATE webhooks SET failing_since = COALESCE(failing_since, ?2) WHERE id = ?1")?
        .execute(params![attempt.webhook_id, attempt.entry.at])?;
    let disabled = connection
        .prepare_cached(
            "UPDATE webhooks SET enabled = 0,
                 disabled_reason = 'every delivery failed for 3 days: fix the endpoint, then enable it again'
             WHERE id = ?1 AND enabled = 1 AND failing_since < ?2",
        )?
        .execute(params![attempt.webhook_id, disable_before])?;
    Ok(disabled == 1)
}
