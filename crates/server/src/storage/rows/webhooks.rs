//! Webhook endpoints' rows.

use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::sql;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::WebhookId;
use subscriber_protocol::{AttemptId, EventId, UnixMillis};

#[derive(Debug, Clone, PartialEq)]
pub struct WebhookRow {
    pub id: WebhookId,
    pub subscriber_id: SubscriberId,
    pub url: String,
    /// JSON array of event types.
    pub events: String,
    pub description: Option<String>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub secret_generation: i64,
    pub previous_until: Option<UnixSeconds>,
    pub created_at: UnixSeconds,
    pub failing_since: Option<UnixSeconds>,
    /// The API version its events are written in (`YYYY-MM-DD`).
    pub api_version: String,
    /// The first secret generation in the Standard Webhooks form; the ones before are in the
    /// form endpoints had before it (`webhooks::secret`).
    pub standard_secret_from: i64,
}

pub const COLUMNS: &str = "id, subscriber_id, url, events, description, enabled, disabled_reason, secret_generation, \
     previous_until, created_at, failing_since, api_version, standard_secret_from";
/// The columns after [`COLUMNS`] in a row of the queue.
pub const QUEUE_COLUMNS_AT: usize = 13;

impl FromRow for WebhookRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            url: row.column(2)?,
            events: row.column(3)?,
            description: row.column(4)?,
            enabled: row.column(5)?,
            disabled_reason: row.column(6)?,
            secret_generation: row.column(7)?,
            previous_until: row.column(8)?,
            created_at: row.column(9)?,
            failing_since: row.column(10)?,
            api_version: row.column(11)?,
            standard_secret_from: row.column(12)?,
        })
    }
}

/// What the log keeps of an attempt: the one recorded and the one listed.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptEntry {
    /// 1 for the first attempt at a delivery.
    pub attempt: u32,
    pub delivered: bool,
    pub response_status: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub at: UnixMillis,
    /// When to try again; `None` when this attempt ends the delivery.
    pub next_attempt_at: Option<UnixMillis>,
}

/// A logged attempt, with the event's type.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedAttempt {
    pub id: AttemptId,
    pub event_id: EventId,
    pub event_type: String,
    pub entry: AttemptEntry,
}

impl FromRow for LoggedAttempt {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            event_id: row.column(1)?,
            event_type: row.column(2)?,
            entry: AttemptEntry {
                attempt: row.column(3)?,
                delivered: row.column(4)?,
                response_status: row.column(5)?,
                duration_ms: row.column(6)?,
                error: row.column(7)?,
                at: row.column(8)?,
                next_attempt_at: row.column(9)?,
            },
        })
    }
}

sql! {
    /// Queues event `$3` of subscriber `$2` for endpoint `$1` (again), due at `$4` (one
    /// waiting already is moved, not added). The caller has looked at the queue's [`ROOM`].
    pub(in crate::storage) static RESEND = "INSERT INTO webhook_deliveries (webhook_id, event_id, subscriber_id, status,
            attempts, next_attempt_at, created_at)
         SELECT $1, r.event_id, r.subscriber_id, 'pending', 0, $4, $4
         FROM event_recipients r WHERE r.subscriber_id = $2 AND r.event_id = $3
         ON CONFLICT (webhook_id, event_id) DO UPDATE SET status = 'pending', next_attempt_at = $4, created_at = $4";
}

sql! {
    /// Endpoint `$1`'s queue length, its limit, and whether event `$2` already waits in it.
    pub(in crate::storage) static ROOM = "SELECT q.pending, l.pending_max,
            EXISTS (SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2 AND status = 'pending')
         FROM webhook_queues q CROSS JOIN webhook_queue_limits l WHERE q.webhook_id = $1";
}

sql! {
    /// Endpoint `$1`'s queue length, its limit, and its window of test sends (start, count).
    pub(in crate::storage) static TEST_WINDOW = "SELECT q.pending, l.pending_max, q.tests_since, q.tests_sent
         FROM webhook_queues q CROSS JOIN webhook_queue_limits l WHERE q.webhook_id = $1";
}

sql! {
    /// Endpoint `$1`'s window of test sends: since `$2`, `$3` sent.
    pub(in crate::storage) static MOVE_TEST_WINDOW =
        "UPDATE webhook_queues SET tests_since = $2, tests_sent = $3 WHERE webhook_id = $1";
}

sql! {
    /// Up to `$3` attempts of endpoint `$1` below attempt id `$2`, newest first: those of events
    /// still in the log (an erased object's events went with it, and their attempts leave the
    /// list with them).
    pub(in crate::storage) static ATTEMPTS =
        "SELECT a.id, a.event_id, e.type, a.attempt, a.status = 'delivered', a.response_status,
                a.duration_ms, a.error, a.at, a.next_attempt_at
         FROM webhook_attempts a JOIN events e ON e.id = a.event_id
         WHERE a.webhook_id = $1 AND a.id < $2 ORDER BY a.id DESC LIMIT $3";
}

sql! {
    /// When the next endpoint falls due after `$1` (milliseconds), if any does.
    pub(in crate::storage) static NEXT_DUE = "SELECT MIN(due_at) FROM webhook_queues WHERE due_at > $1";
}

/// An endpoint's queue, as its subscriber sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointQueue {
    /// Deliveries waiting for an attempt.
    pub length: i64,
    /// The most that may wait; events beyond are not queued (dropped).
    pub limit: i64,
    /// When the next attempt is due (milliseconds); `None` when nothing waits or the endpoint
    /// is disabled.
    pub next_attempt_at: Option<UnixMillis>,
    /// The error of the last attempt, if it failed.
    pub last_error: Option<String>,
    /// The latest unbroken run of dropped deliveries, if any was ever dropped.
    pub dropped: Option<DroppedRun>,
}

/// Deliveries not queued because the endpoint's queue was full: kept as failed and never
/// attempted, so `recover` queues them again.
#[derive(Debug, Clone, PartialEq)]
pub struct DroppedRun {
    /// In this run, and since the endpoint was made.
    pub count: i64,
    pub total: i64,
    pub first_event_id: EventId,
    pub last_event_id: EventId,
    /// When the first and the last of the run were dropped.
    pub since: UnixMillis,
    pub until: UnixMillis,
}

/// An endpoint's queue as both backends' statements read it: `pending, pending_max, enabled,
/// next attempt, last error, dropped, gap_count, gap_first_event_id, gap_last_event_id,
/// gap_since, gap_until`.
impl FromRow for EndpointQueue {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        let enabled: bool = row.column(2)?;
        let next_attempt_at: Option<UnixMillis> = row.column(3)?;
        let gap: (Option<EventId>, Option<EventId>, Option<UnixMillis>, Option<UnixMillis>) =
            (row.column(7)?, row.column(8)?, row.column(9)?, row.column(10)?);
        let dropped = match gap {
            (Some(first_event_id), Some(last_event_id), Some(since), Some(until)) => Some(DroppedRun {
                count: row.column(6)?,
                total: row.column(5)?,
                first_event_id,
                last_event_id,
                since,
                until,
            }),
            _ => None,
        };
        Ok(Self {
            length: row.column(0)?,
            limit: row.column(1)?,
            next_attempt_at: next_attempt_at.filter(|_| enabled),
            last_error: row.column(4)?,
            dropped,
        })
    }
}
