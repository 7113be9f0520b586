use rusqlite::{Connection, OptionalExtension, params};
use subscriber_protocol::{EventId, SubscriberId, UnixMillis, WebhookId};

use super::events::record_other;
use super::rows::first;
use crate::storage::events::WEBHOOK_TEST;
use crate::storage::idempotency::Replay;
use crate::storage::rows::webhooks::{MOVE_TEST_WINDOW, RESEND, ROOM, TEST_WINDOW};
use crate::storage::rows::{Columns, FromRow};
use crate::storage::webhooks::{
    Attempt, COLUMNS, ClaimAsk, ClaimCandidate, ClaimOrder, DueDelivery, EndpointQueue, HeldClaim, NewWebhook,
    QUEUE_COLUMNS_AT, Resend, TestSend, TestWindow, WebhookRow,
};
use crate::storage::{StorageError, StorageResult};

pub fn insert(
    connection: &Connection,
    new: &NewWebhook,
    max: usize,
    replay: Option<Replay>,
) -> StorageResult<Option<WebhookRow>> {
    let endpoints: i64 = connection
        .prepare_cached("SELECT COUNT(*) FROM webhooks WHERE subscriber_id = ?1")?
        .query_row([new.subscriber_id], |row| row.get(0))?;
    if usize::try_from(endpoints).unwrap_or(usize::MAX) >= max {
        return Ok(None);
    }
    let sql = format!(
        "INSERT INTO webhooks (subscriber_id, url, events, description, created_at, api_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING {COLUMNS}"
    );
    let args = params![new.subscriber_id, new.url, new.events, new.description, new.created_at, new.api_version];
    let row: WebhookRow =
        first(connection, sql.as_str(), args)?.ok_or_else(|| super::corrupt("an insert returned no row"))?;
    super::idempotency::store_replay(connection, replay, row.id.get(), new.created_at)?;
    Ok(Some(row))
}

pub fn send_test(
    connection: &Connection,
    subscriber_id: SubscriberId,
    webhook_id: WebhookId,
    data: &str,
    now_ms: UnixMillis,
) -> StorageResult<TestSend> {
    let window = connection.prepare_cached(TEST_WINDOW.sqlite())?.query_row([webhook_id], |row| {
        Ok(TestWindow { pending: row.get(0)?, pending_max: row.get(1)?, since: row.get(2)?, sent: row.get(3)? })
    })?;
    let (since, sent) = match window.send(now_ms) {
        Ok(moved) => moved,
        Err(refused) => return Ok(refused),
    };
    connection.prepare_cached(MOVE_TEST_WINDOW.sqlite())?.execute(params![webhook_id, since, sent])?;
    let event_id = record_other(connection, subscriber_id, WEBHOOK_TEST, data, now_ms.whole_seconds())?;
    resend(connection, subscriber_id, webhook_id, event_id, now_ms)?;
    Ok(TestSend::Queued(event_id))
}

pub fn resend(
    connection: &Connection,
    subscriber_id: SubscriberId,
    webhook_id: WebhookId,
    event_id: EventId,
    now_ms: UnixMillis,
) -> StorageResult<Resend> {
    let (pending, pending_max, waiting): (i64, i64, bool) = connection
        .prepare_cached(ROOM.sqlite())?
        .query_row(params![webhook_id, event_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
    // One waiting already is moved, not added.
    if pending >= pending_max && !waiting {
        return Ok(Resend::QueueFull);
    }
    let queued =
        connection.prepare_cached(RESEND.sqlite())?.execute(params![webhook_id, subscriber_id, event_id, now_ms])?;
    Ok(if queued == 1 { Resend::Queued } else { Resend::NoEvent })
}

pub fn limit_queues(connection: &Connection, pending_max: i64) -> StorageResult<()> {
    connection
        .prepare_cached("UPDATE webhook_queue_limits SET pending_max = ?1 WHERE id = 1")?
        .execute([pending_max])?;
    Ok(())
}

/// Endpoints due and free, at most `?4` of one subscriber, in the order they fell due: an
/// index range of `webhook_queues`, whatever waits behind their heads.
const CANDIDATES: &str = "SELECT webhook_id, subscriber_id, host FROM (
         SELECT webhook_id, subscriber_id, host, due_at,
                row_number() OVER (PARTITION BY subscriber_id ORDER BY due_at, webhook_id) AS turn
         FROM webhook_queues
         WHERE due_at <= ?1 AND (claimed_until IS NULL OR claimed_until <= ?1)
           AND subscriber_id NOT IN (SELECT value FROM json_each(?2))
           AND host NOT IN (SELECT value FROM json_each(?3))
     ) WHERE turn <= ?4 ORDER BY turn, due_at, webhook_id LIMIT ?5";

/// An endpoint with the head of its queue (the first of an index of pending deliveries).
fn head_sql() -> String {
    format!(
        "SELECT {columns}, d.event_id, d.attempts, d.created_at, d.next_attempt_at
         FROM webhooks w LEFT JOIN (
             SELECT event_id, attempts, created_at, next_attempt_at
             FROM webhook_deliveries INDEXED BY webhook_deliveries_pending
             WHERE webhook_id = ?1 AND status = 'pending' ORDER BY event_id LIMIT 1
         ) d ON TRUE
         WHERE w.id = ?1",
        columns = prefixed_columns()
    )
}

/// One process delivers on SQLite: the claim is the same rule as PostgreSQL's, in one write.
/// The candidates come from `webhook_queues` (one row per endpoint due); each chosen one is
/// claimed after a look at its head (an index seek), in `order`'s order.
pub fn claim(connection: &Connection, ask: &ClaimAsk, order: ClaimOrder) -> StorageResult<Vec<DueDelivery>> {
    let skip_subscribers =
        serde_json::to_string(&ask.skip_subscribers).map_err(|error| StorageError::Corrupt(error.to_string()))?;
    let skip_hosts =
        serde_json::to_string(&ask.skip_hosts).map_err(|error| StorageError::Corrupt(error.to_string()))?;
    let candidates = connection
        .prepare_cached(CANDIDATES)?
        .query_map(params![ask.now_ms, skip_subscribers, skip_hosts, ask.per_subscriber, ask.candidates], |row| {
            Ok(ClaimCandidate { webhook_id: row.get(0)?, subscriber_id: row.get(1)?, host: row.get(2)? })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let hosts: std::collections::HashMap<WebhookId, String> =
        candidates.iter().map(|candidate| (candidate.webhook_id, candidate.host.clone())).collect();
    let mut head = connection.prepare_cached(&head_sql())?;
    let mut moved = connection.prepare_cached("UPDATE webhook_queues SET due_at = ?2 WHERE webhook_id = ?1")?;
    let mut hold = connection.prepare_cached(
        "UPDATE webhook_queues SET claimed_until = ?2, due_at = ?2, claim = claim + 1 WHERE webhook_id = ?1 RETURNING claim",
    )?;
    let mut claimed = Vec::new();
    for webhook_id in order(&candidates) {
        if claimed.len() >= usize::try_from(ask.slots).unwrap_or(usize::MAX) {
            break;
        }
        let Some(host) = hosts.get(&webhook_id) else { continue };
        let mut rows = head.query([webhook_id])?;
        let found = match rows.next()? {
            Some(row) => Some((
                WebhookRow::from_row(row)?,
                row.column::<Option<EventId>>(QUEUE_COLUMNS_AT)?,
                row.column::<Option<u32>>(QUEUE_COLUMNS_AT + 1)?,
                row.column::<Option<UnixMillis>>(QUEUE_COLUMNS_AT + 2)?,
                row.column::<Option<UnixMillis>>(QUEUE_COLUMNS_AT + 3)?,
            )),
            None => None,
        };
        drop(rows);
        let Some((webhook, event_id, attempts, created_at, next_attempt_at)) = found else { continue };
        match (event_id, attempts, created_at, next_attempt_at) {
            (Some(event_id), Some(attempts), Some(created_at), Some(next)) if webhook.enabled && next <= ask.now_ms => {
                let claim = hold.query_row(params![webhook_id, ask.claim_until], |row| row.get(0))?;
                claimed.push(DueDelivery { webhook, event_id, attempts, created_at, claim, host: host.clone() });
            }
            // Its head waits for a retry: due then.
            (Some(_), _, _, Some(next)) if webhook.enabled => {
                moved.execute(params![webhook_id, next])?;
            }
            // Nothing waits, or the endpoint is disabled: parked.
            _ => {
                moved.execute(params![webhook_id, Option::<i64>::None])?;
            }
        }
    }
    Ok(claimed)
}

fn prefixed_columns() -> String {
    COLUMNS.split(',').map(|column| format!("w.{}", column.trim())).collect::<Vec<_>>().join(", ")
}

pub fn renew(connection: &Connection, held: &[HeldClaim], until: UnixMillis) -> StorageResult<Vec<HeldClaim>> {
    let mut renew = connection.prepare_cached(
        "UPDATE webhook_queues SET claimed_until = ?3, due_at = CASE WHEN due_at IS NULL THEN NULL ELSE ?3 END
         WHERE webhook_id = ?1 AND claim = ?2 AND claimed_until IS NOT NULL",
    )?;
    let mut lost = Vec::new();
    for claim in held {
        if renew.execute(params![claim.webhook_id, claim.claim, until])? == 0 {
            lost.push(*claim);
        }
    }
    Ok(lost)
}

/// Claims of a process before this one end; their endpoints are looked at again at once.
pub fn release_claims(connection: &Connection) -> StorageResult<()> {
    connection.execute(
        "UPDATE webhook_queues SET claimed_until = NULL, due_at = CASE WHEN due_at IS NULL THEN NULL ELSE 0 END
         WHERE claimed_until IS NOT NULL",
        [],
    )?;
    Ok(())
}

pub fn depth(connection: &Connection) -> StorageResult<i64> {
    Ok(connection
        .prepare_cached("SELECT COALESCE(SUM(pending), 0) FROM webhook_queues WHERE pending > 0")?
        .query_row([], |row| row.get(0))?)
}

pub fn endpoint_queue(connection: &Connection, webhook_id: WebhookId) -> StorageResult<EndpointQueue> {
    // The hint keeps SQLite on the pending-deliveries index for the next attempt.
    let queue = first::<EndpointQueue>(
        connection,
        "SELECT q.pending, l.pending_max, w.enabled,
                (SELECT d.next_attempt_at FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending
                 WHERE d.webhook_id = q.webhook_id AND d.status = 'pending' ORDER BY d.event_id LIMIT 1),
                (SELECT a.error FROM webhook_attempts a WHERE a.webhook_id = q.webhook_id ORDER BY a.id DESC LIMIT 1),
                q.dropped, q.gap_count, q.gap_first_event_id, q.gap_last_event_id, q.gap_since, q.gap_until
         FROM webhook_queues q JOIN webhooks w ON w.id = q.webhook_id CROSS JOIN webhook_queue_limits l
         WHERE q.webhook_id = ?1",
        [webhook_id],
    )?;
    Ok(queue.unwrap_or_default())
}

pub fn recover(
    connection: &Connection,
    subscriber_id: SubscriberId,
    webhook_id: WebhookId,
    since_ms: UnixMillis,
    now_ms: UnixMillis,
) -> StorageResult<u64> {
    let queued = connection
        .prepare_cached(
            "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?4, created_at = ?4
             WHERE webhook_id = ?1 AND event_id IN (
                 SELECT event_id FROM webhook_deliveries
                 WHERE webhook_id = ?1 AND subscriber_id = ?2 AND status = 'failed' AND created_at >= ?3
                 ORDER BY event_id
                 LIMIT max(0, (SELECT l.pending_max - q.pending FROM webhook_queues q CROSS JOIN webhook_queue_limits l
                               WHERE q.webhook_id = ?1)))",
        )?
        .execute(params![webhook_id, subscriber_id, since_ms, now_ms])?;
    Ok(u64::try_from(queued).unwrap_or(0))
}

/// The attempt is logged (unless its endpoint was deleted meanwhile); the queue moves only
/// under the claim it was made with (a holder whose claim ran out leaves it to the instance that took it over).
pub fn record_attempt(connection: &Connection, attempt: &Attempt, disable_before: UnixMillis) -> StorageResult<bool> {
    connection
        .prepare_cached(
            "INSERT INTO webhook_attempts
                 (webhook_id, event_id, attempt, status, response_status, duration_ms, error, at, next_attempt_at)
             SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ?1)",
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
    let holds = connection
        .prepare_cached(
            "SELECT 1 FROM webhook_queues WHERE webhook_id = ?1 AND claim = ?2 AND claimed_until IS NOT NULL",
        )?
        .query_row(params![attempt.webhook_id, attempt.claim], |_| Ok(()))
        .optional()?
        .is_some();
    if !holds {
        return Ok(false);
    }
    let status = match (attempt.entry.delivered, attempt.entry.next_attempt_at) {
        (true, _) => "delivered",
        (false, Some(_)) => "pending",
        (false, None) => "failed",
    };
    connection
        .prepare_cached(
            "UPDATE webhook_deliveries SET status = ?3, attempts = ?4, next_attempt_at = ?5
             WHERE webhook_id = ?1 AND event_id = ?2",
        )?
        .execute(params![
            attempt.webhook_id,
            attempt.event_id,
            status,
            attempt.entry.attempt,
            attempt.entry.next_attempt_at
        ])?;
    let disabled = failure_clock(connection, attempt, disable_before)?;
    // Free, due when its (new) head is; parked if disabled.
    connection
        .prepare_cached(
            "UPDATE webhook_queues SET claimed_until = NULL,
                 due_at = CASE WHEN (SELECT enabled FROM webhooks WHERE id = ?1) = 1
                               THEN (SELECT d.next_attempt_at FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending
                                     WHERE d.webhook_id = ?1 AND d.status = 'pending' ORDER BY d.event_id LIMIT 1)
                          END
             WHERE webhook_id = ?1",
        )?
        .execute([attempt.webhook_id])?;
    Ok(disabled)
}

/// The endpoint's failure clock after an attempt: stopped by a delivery, started by a failure;
/// a `410` or 3 days of failures disable it. Whether it was disabled now.
fn failure_clock(connection: &Connection, attempt: &Attempt, disable_before: UnixMillis) -> StorageResult<bool> {
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

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, params};

    use super::*;
    use crate::storage::rows::webhooks::{ATTEMPTS, AttemptEntry, LoggedAttempt, NEXT_DUE};
    use crate::storage::sqlite::rows::all;
    use crate::storage::webhooks::{ClaimOrder, TEST_SEND_WINDOW, TEST_SENDS};
    use subscriber_protocol::UnixSeconds;

    const MINUTE: i64 = 60_000;

    fn database() -> Connection {
        let mut connection = Connection::open_in_memory().expect("database");
        super::super::migrate(&mut connection).expect("migrated");
        connection
    }

    fn subscriber(connection: &Connection, email: &str) -> SubscriberId {
        connection
            .query_row(
                "INSERT INTO subscribers (email, client_id, public_key, secret_hash, created_at)
                 VALUES (?1, ?1, ?1, 'h', 0) RETURNING id",
                [email],
                |row| row.get(0),
            )
            .expect("a subscriber")
    }

    fn endpoint(connection: &Connection, subscriber_id: SubscriberId, url: &str) -> WebhookId {
        let new = NewWebhook {
            subscriber_id,
            url: url.to_owned(),
            events: "[\"*\"]".to_owned(),
            description: None,
            created_at: UnixSeconds(0),
            api_version: "2026-11-21".to_owned(),
        };
        insert(connection, &new, 20, None).expect("stored").expect("under the cap").id
    }

    /// An event every endpoint of the subscriber wants, queued at `now_ms`.
    fn event(connection: &Connection, subscriber_id: SubscriberId, now_ms: i64) -> EventId {
        record_other(connection, subscriber_id, "merchant.location.created", "{}", UnixSeconds(now_ms / 1000))
            .expect("recorded")
    }

    fn ask(now_ms: i64) -> ClaimAsk {
        ClaimAsk {
            now_ms: UnixMillis(now_ms),
            claim_until: UnixMillis(now_ms + 5_000),
            slots: 64,
            per_subscriber: 8,
            candidates: 64,
            ..ClaimAsk::default()
        }
    }

    fn in_order() -> ClaimOrder {
        Box::new(|candidates| candidates.iter().map(|candidate| candidate.webhook_id).collect())
    }

    fn outcome(delivery: &DueDelivery, delivered: bool, at: i64, next_attempt_at: Option<i64>) -> Attempt {
        Attempt {
            webhook_id: delivery.webhook.id,
            event_id: delivery.event_id,
            claim: delivery.claim,
            entry: AttemptEntry {
                attempt: delivery.attempts + 1,
                delivered,
                response_status: Some(if delivered { 200 } else { 500 }),
                duration_ms: 1,
                error: None,
                at: UnixMillis(at),
                next_attempt_at: next_attempt_at.map(UnixMillis),
            },
            disable: None,
        }
    }

    fn queue_row(connection: &Connection, webhook_id: WebhookId) -> (i64, Option<i64>, Option<i64>) {
        connection
            .query_row(
                "SELECT pending, due_at, claimed_until FROM webhook_queues WHERE webhook_id = ?1",
                [webhook_id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .expect("a queue row")
    }

    /// 0014 gives every endpoint there before it its queue row: what waits, due at once
    /// (the first claim reads the heads), a disabled one parked.
    #[test]
    fn endpoints_made_before_0014_get_their_queues() {
        let mut connection = Connection::open_in_memory().expect("database");
        super::super::migrations().to_version(&mut connection, 13).expect("migrated to 0013");
        connection
            .execute_batch(
                "INSERT INTO subscribers (id, email, client_id, public_key, secret_hash, created_at)
                     VALUES (1, 'a@example.com', 'c', 'p', 'h', 0);
                 INSERT INTO webhooks (id, subscriber_id, url, events, created_at, enabled)
                     VALUES (1, 1, 'https://Hooks.example.com:8443/in?x=1', '[\"*\"]', 0, 1),
                            (2, 1, 'http://127.0.0.1:9/b', '[\"*\"]', 0, 0);
                 INSERT INTO events (id, type, created_at, data) VALUES (1, 'webhook.test', 0, '{}'),
                     (2, 'webhook.test', 0, '{}'), (3, 'webhook.test', 0, '{}');
                 INSERT INTO webhook_deliveries (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at,
                                                 created_at, locked_until)
                     VALUES (1, 1, 1, 'delivered', 1, NULL, 0, NULL), (1, 2, 1, 'pending', 2, 90000, 0, 5000),
                            (1, 3, 1, 'pending', 0, 0, 0, NULL), (2, 3, 1, 'pending', 0, 0, 0, NULL);",
            )
            .expect("rows made before 0014");
        super::super::migrate(&mut connection).expect("migrated to the latest");
        let queues: Vec<(i64, String, i64, Option<i64>)> = connection
            .prepare("SELECT webhook_id, host, pending, due_at FROM webhook_queues ORDER BY webhook_id")
            .expect("a statement")
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("read");
        assert_eq!(
            queues,
            [(1, "hooks.example.com:8443".to_owned(), 2, Some(0)), (2, "127.0.0.1:9".to_owned(), 1, None)]
        );
        let claimed = claim(&connection, &ask(1000), in_order()).expect("claimed");
        assert!(claimed.is_empty(), "the head waits for its retry");
        assert_eq!(queue_row(&connection, WebhookId(1)).1, Some(90_000));
    }

    /// The claim reads `webhook_queues` through its index of due times and each head through
    /// the index of pending deliveries: it never scans deliveries.
    #[test]
    fn a_claim_reads_one_row_per_endpoint_due() {
        let connection = database();
        let plan = |sql: &str| {
            let mut statement = connection.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).expect("a plan");
            statement
                .query_map(params![0, "[]", "[]", 8, 64], |row| row.get::<_, String>(3))
                .expect("rows")
                .collect::<Result<Vec<_>, _>>()
                .expect("read")
                .join("\n")
        };
        let candidates = plan(CANDIDATES);
        assert!(candidates.contains("webhook_queues USING INDEX webhook_queues_due"), "{candidates}");
        assert!(!candidates.contains("webhook_deliveries"), "{candidates}");
        let head = {
            let mut statement = connection.prepare(&format!("EXPLAIN QUERY PLAN {}", head_sql())).expect("a plan");
            statement
                .query_map([1], |row| row.get::<_, String>(3))
                .expect("rows")
                .collect::<Result<Vec<_>, _>>()
                .expect("read")
                .join("\n")
        };
        assert!(head.contains("webhook_deliveries USING INDEX webhook_deliveries_pending"), "{head}");
        assert!(!head.contains("SCAN webhook_deliveries") && !head.contains("TEMP B-TREE"), "{head}");
    }

    /// What `Store::next_delivery_due` reads.
    fn next_due(connection: &Connection, now_ms: i64) -> Option<i64> {
        let due: Option<Option<i64>> = first(connection, &NEXT_DUE, [now_ms]).expect("read");
        due.flatten()
    }

    /// How many attempts `Store::delivery_attempts` reads (up to 10).
    fn attempts(connection: &Connection, webhook_id: WebhookId) -> usize {
        let logged: Vec<LoggedAttempt> =
            all(connection, &ATTEMPTS, params![webhook_id, i64::MAX, 10]).expect("the log");
        logged.len()
    }

    /// What `Store::update_webhook` does to `enabled` (the queue's triggers follow it).
    fn set_enabled(connection: &Connection, webhook_id: WebhookId, enabled: bool) {
        connection
            .execute(
                "UPDATE webhooks SET enabled = ?2, disabled_reason = NULL,
                     failing_since = CASE WHEN ?2 = 1 THEN NULL ELSE failing_since END
                 WHERE id = ?1",
                params![webhook_id, enabled],
            )
            .expect("changed");
    }

    /// Rows behind a head waiting for its retry, and rows of a disabled endpoint, are never
    /// candidates: the first endpoint is due again at its head's retry, the second parked
    /// until enabled.
    #[test]
    fn rows_behind_a_head_in_backoff_and_of_a_disabled_endpoint_stay_out_of_claims() {
        let connection = database();
        let subscriber_id = subscriber(&connection, "stuck@example.com");
        let backing_off = endpoint(&connection, subscriber_id, "http://127.0.0.1:9/a");
        let head = event(&connection, subscriber_id, 0);
        for n in 1..50 {
            event(&connection, subscriber_id, n);
        }
        let disabled = endpoint(&connection, subscriber_id, "http://127.0.0.1:9/b");
        for n in 50..100 {
            event(&connection, subscriber_id, n);
        }
        assert_eq!(queue_row(&connection, backing_off).0, 100);
        assert_eq!(queue_row(&connection, disabled).0, 50);
        set_enabled(&connection, disabled, false);
        assert_eq!(queue_row(&connection, disabled).1, None, "parked");

        let claimed = claim(&connection, &ask(1000), in_order()).expect("claimed");
        assert_eq!(claimed.len(), 1, "{claimed:?}");
        assert_eq!((claimed[0].webhook.id, claimed[0].host.as_str()), (backing_off, "127.0.0.1:9"));
        let retry_at = 10 * MINUTE;
        record_attempt(&connection, &outcome(&claimed[0], false, 2000, Some(retry_at)), UnixMillis(0))
            .expect("recorded");
        assert_eq!(queue_row(&connection, backing_off), (100, Some(retry_at), None));
        assert!(claim(&connection, &ask(5 * MINUTE), in_order()).expect("claimed").is_empty());
        assert_eq!(next_due(&connection, 5 * MINUTE), Some(retry_at));
        // A new event behind the waiting head changes nothing.
        event(&connection, subscriber_id, 6 * MINUTE);
        assert_eq!(queue_row(&connection, backing_off).1, Some(retry_at));

        set_enabled(&connection, disabled, true);
        let resumed = claim(&connection, &ask(7 * MINUTE), in_order()).expect("claimed");
        assert_eq!(resumed.iter().map(|delivery| delivery.webhook.id).collect::<Vec<_>>(), [disabled], "resumed");
        record_attempt(&connection, &outcome(&resumed[0], true, 7 * MINUTE, None), UnixMillis(0)).expect("recorded");
        let again = claim(&connection, &ask(retry_at), in_order()).expect("claimed");
        let again: Vec<(WebhookId, EventId)> =
            again.iter().map(|delivery| (delivery.webhook.id, delivery.event_id)).collect();
        assert!(again.contains(&(backing_off, head)), "its head, at its retry: {again:?}");
        assert_eq!(depth(&connection).expect("read"), 101 + 49);
    }

    /// A full queue drops what comes next, kept as failed and never attempted, and records the
    /// run; the queue tells it; `recover` takes the dropped back as far as the queue has room.
    #[test]
    fn a_full_queue_drops_records_the_gap_and_recover_takes_it_back() {
        let connection = database();
        limit_queues(&connection, 3).expect("limited");
        let subscriber_id = subscriber(&connection, "full@example.com");
        let webhook_id = endpoint(&connection, subscriber_id, "http://127.0.0.1:9/full");
        let events: Vec<EventId> = (0..6).map(|n| event(&connection, subscriber_id, n * 1000)).collect();
        let queue = endpoint_queue(&connection, webhook_id).expect("read");
        assert_eq!((queue.length, queue.limit), (3, 3));
        let dropped = queue.dropped.expect("a gap");
        assert_eq!((dropped.count, dropped.total), (3, 3));
        assert_eq!((dropped.first_event_id, dropped.last_event_id), (events[3], events[5]));
        assert_eq!((dropped.since, dropped.until), (UnixMillis(3000), UnixMillis(5000)));
        assert_eq!(
            send_test(&connection, subscriber_id, webhook_id, "{}", UnixMillis(6000)).expect("refused"),
            TestSend::QueueFull
        );
        assert_eq!(
            resend(&connection, subscriber_id, webhook_id, events[4], UnixMillis(6000)).expect("refused"),
            Resend::QueueFull
        );

        // Two delivered: room for two of the three dropped, in event order.
        for at in [10_000, 11_000] {
            let claimed = claim(&connection, &ask(at), in_order()).expect("claimed");
            record_attempt(&connection, &outcome(&claimed[0], true, at, None), UnixMillis(0)).expect("recorded");
        }
        assert_eq!(
            recover(&connection, subscriber_id, webhook_id, UnixMillis(0), UnixMillis(12_000)).expect("recovered"),
            2
        );
        let pending: Vec<EventId> = connection
            .prepare("SELECT event_id FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'pending' ORDER BY event_id")
            .expect("a statement")
            .query_map([webhook_id], |row| row.get(0))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("read");
        assert_eq!(pending, [events[2], events[3], events[4]]);
        // Queued again: the next drop opens a new run.
        event(&connection, subscriber_id, 13_000);
        let dropped = endpoint_queue(&connection, webhook_id).expect("read").dropped.expect("a gap");
        assert_eq!((dropped.count, dropped.total), (1, 4));
    }

    /// A claim that ran out is taken over with the same event first; the old holder's renewal
    /// is refused and its outcome, logged, moves nothing.
    #[test]
    fn a_claim_that_ran_out_is_taken_over_and_its_old_holder_moves_nothing() {
        let connection = database();
        let subscriber_id = subscriber(&connection, "handover@example.com");
        let webhook_id = endpoint(&connection, subscriber_id, "http://127.0.0.1:9/h");
        let first_event = event(&connection, subscriber_id, 0);
        event(&connection, subscriber_id, 0);
        let first = claim(&connection, &ask(1000), in_order()).expect("claimed").remove(0);
        assert!(claim(&connection, &ask(2000), in_order()).expect("claimed").is_empty(), "held");
        let held = [HeldClaim { webhook_id, claim: first.claim }];
        assert!(renew(&connection, &held, UnixMillis(9000)).expect("renewed").is_empty());
        assert!(claim(&connection, &ask(8000), in_order()).expect("claimed").is_empty(), "renewed until 9 s");
        let second = claim(&connection, &ask(9001), in_order()).expect("claimed").remove(0);
        assert_eq!(second.event_id, first_event, "the same event, first");
        assert_eq!(renew(&connection, &held, UnixMillis(20_000)).expect("refused"), held, "lost");
        assert!(!record_attempt(&connection, &outcome(&first, true, 9500, None), UnixMillis(0)).expect("logged"));
        assert_eq!(queue_row(&connection, webhook_id), (2, Some(14_001), Some(14_001)), "untouched");
        record_attempt(&connection, &outcome(&second, true, 9600, None), UnixMillis(0)).expect("recorded");
        assert_eq!(queue_row(&connection, webhook_id).0, 1);
        assert_eq!(attempts(&connection, webhook_id), 2, "both logged");
    }

    /// An endpoint takes at most `TEST_SENDS` test sends a window; the next window takes more.
    #[test]
    fn test_sends_are_limited_per_endpoint() {
        let connection = database();
        let subscriber_id = subscriber(&connection, "tests@example.com");
        let webhook_id = endpoint(&connection, subscriber_id, "http://127.0.0.1:9/t");
        for n in 0..TEST_SENDS {
            let sent = send_test(&connection, subscriber_id, webhook_id, "{}", UnixMillis(1000 + n)).expect("sent");
            assert!(matches!(sent, TestSend::Queued(_)), "{sent:?}");
        }
        let refused = send_test(&connection, subscriber_id, webhook_id, "{}", UnixMillis(2000)).expect("refused");
        let window_ends = UnixMillis(1000).plus(TEST_SEND_WINDOW);
        assert_eq!(refused, TestSend::TooMany { retry_at: window_ends });
        let other = endpoint(&connection, subscriber_id, "http://127.0.0.1:9/u");
        assert!(matches!(
            send_test(&connection, subscriber_id, other, "{}", UnixMillis(2000)).expect("sent"),
            TestSend::Queued(_)
        ));
        let later = send_test(&connection, subscriber_id, webhook_id, "{}", window_ends).expect("sent");
        assert!(matches!(later, TestSend::Queued(_)), "{later:?}");
    }

    /// A delivery queued by any write (here an event's, which nothing announces) wakes the
    /// worker when the write commits.
    #[tokio::test]
    async fn a_delivery_queued_by_any_write_wakes_the_worker() {
        let dir = tempfile::tempdir().expect("a folder");
        let woken = std::sync::Arc::new(tokio::sync::Notify::new());
        let db = super::super::Database::open(
            &dir.path().join("wake.sqlite3"),
            std::sync::Arc::clone(&woken),
            crate::storage::outage::Timeouts::default(),
        )
        .expect("a database");
        let subscriber_id =
            db.write(|connection| Ok(subscriber(connection, "wake@example.com"))).await.expect("stored");
        db.write(move |connection| Ok(endpoint(connection, subscriber_id, "http://127.0.0.1:9/w")))
            .await
            .expect("stored");
        // Adding an endpoint makes its queue's row (a trigger does): that woke it already.
        let _ = tokio::time::timeout(std::time::Duration::from_millis(50), woken.notified()).await;
        db.write(move |connection| Ok(event(connection, subscriber_id, 0))).await.expect("recorded");
        tokio::time::timeout(std::time::Duration::from_secs(1), woken.notified()).await.expect("woken");
    }
}
