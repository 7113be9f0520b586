//! An endpoint's delivery queue as its subscriber sees it, and the request that queues its
//! failed deliveries again (`POST /webhooks/{webhook_id}/recover`).

use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;

/// The endpoint's queue: shown by `GET /webhooks/{webhook_id}`.
#[apply(wire!)]
pub struct WebhookQueue {
    /// Deliveries waiting for an attempt.
    pub queue_length: u64,
    /// When the next attempt is due (RFC 3339, UTC); null with an empty queue.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// Why the last attempt failed; null when it was delivered, or before any.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub last_error: Option<String>,
    /// The most deliveries the queue holds: while it is full, new events are not queued for
    /// the endpoint but dropped (`dropped`).
    #[serde(default)]
    pub queue_limit: u64,
    /// Events dropped because the queue was full: the latest unbroken run of them; null when
    /// none ever was. Each stays listed as a failed delivery that was never attempted, so
    /// `POST /webhooks/{webhook_id}/recover` with `since` at or before the run's `since` queues
    /// them again, in event order, as far as the queue has room.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub dropped: Option<DroppedDeliveries>,
}

/// A run of events dropped for an endpoint whose queue was full.
#[apply(wire!)]
pub struct DroppedDeliveries {
    /// Events in this run.
    pub count: u64,
    /// Events dropped since the endpoint was made.
    pub total: u64,
    /// The first event of the run (`evt_…`).
    pub first_event_id: String,
    /// The last event of the run (`evt_…`).
    pub last_event_id: String,
    /// When the first was dropped (RFC 3339, UTC).
    pub since: DateTime<Utc>,
    /// When the last was dropped (RFC 3339, UTC).
    pub until: DateTime<Utc>,
}

/// Queue again every delivery to the endpoint that failed for good, from `since` on.
#[apply(wire!)]
pub struct RecoverWebhookRequest {
    /// RFC 3339: deliveries queued at or after this time.
    #[cfg_attr(feature = "openapi", schema(format = DateTime, example = "2026-11-24T00:00:00Z"))]
    pub since: String,
}

/// The failed deliveries queued again.
#[apply(wire!)]
pub struct WebhookRecovered {
    /// `Failed deliveries queued again`.
    pub message: String,
    /// How many.
    pub queued: u64,
}
