//! Events for server integrations: the event log, webhook endpoints and their deliveries, and
//! incremental sync of a card's transactions (the contract's "Events, webhooks and
//! incremental sync").

use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

use crate::{CardTransaction, EventData, EventType, TransactionId, WebhookId};

/// An endpoint's `events` that stands for every type.
pub const ALL_EVENTS: &str = "*";

/// One change a subscriber can observe. Its `id` is also the `id:` of the transaction streams
/// and the `Subscriber-Event-Id` header of a webhook delivery. On the wire
/// `{id, type, createdAt, data}`: `type` and `data` come from [`EventData`], the catalogue.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `evt_` and digits; ids grow in the order events happen.
    pub id: String,
    /// When it happened (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// What happened: the `type` and its `data`.
    #[serde(flatten)]
    pub payload: EventData,
    /// `true` on an event the sandbox sent on request (`POST /sandbox/events`): nothing
    /// changed. Absent on every other event.
    pub sandbox: Option<bool>,
}

impl Event {
    /// The event's type.
    pub fn event_type(&self) -> EventType {
        self.payload.event_type()
    }
}

/// Filters and paging of the event log: every filter optional.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, optional_fields))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
pub struct EventQuery {
    /// Only events of this type (`transaction.created`, …).
    #[serde(rename = "type")]
    pub event_type: Option<String>,
    /// Only events from this time on: a date (`2026-01-31`) or an RFC 3339 time. The log keeps
    /// 30 days.
    pub since: Option<String>,
    /// The most events on a page.
    #[cfg_attr(feature = "openapi", param(minimum = 1, maximum = 5000))]
    pub limit: Option<u32>,
    /// Where the page starts: the `nextCursor` of the page before.
    pub cursor: Option<String>,
}

/// A page of the event log, newest first.
#[apply(wire!)]
pub struct EventPage {
    /// This page's events.
    pub events: Vec<Event>,
    /// Pass it as `cursor` for the next page; null on the last page.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// A new webhook endpoint. It receives its events written in the version of the request that
/// adds it (`PATCH` moves it).
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct CreateWebhookRequest {
    /// Where events are sent, as signed POSTs.
    pub url: String,
    /// The event types to send, or `["*"]` for all of them.
    pub events: Vec<String>,
    /// A note for the subscriber's own use.
    pub description: Option<String>,
}

/// A change of a webhook endpoint: what is sent changes, the rest stays.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct UpdateWebhookRequest {
    /// A new address for the events.
    pub url: Option<String>,
    /// The event types to send from now on, or `["*"]`.
    pub events: Option<Vec<String>>,
    /// `false` stops deliveries; `true` starts them again (and clears a failure the service
    /// disabled the endpoint for).
    pub enabled: Option<bool>,
    /// A new note; empty clears it.
    pub description: Option<String>,
    /// The version the endpoint's events are written in from now on.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::versions::ApiVersion>))]
    pub api_version: Option<String>,
}

/// Whether an endpoint receives events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum WebhookStatus {
    Enabled,
    Disabled,
}

/// A webhook endpoint of the caller.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct Webhook {
    /// The endpoint's id.
    pub webhook_id: WebhookId,
    /// Where events are sent.
    pub url: String,
    /// The event types sent, or `["*"]` for all.
    pub events: Vec<String>,
    /// The subscriber's note.
    pub description: Option<String>,
    /// Whether it receives events.
    pub status: WebhookStatus,
    /// Why the service disabled it (after 3 days of failed deliveries); absent when the
    /// subscriber did, or when it is enabled.
    pub disabled_reason: Option<String>,
    /// When the endpoint was added (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// The signing secret (`whsec_…`), shown once: in the answer that creates it or rotates it.
    pub secret: Option<String>,
    /// After a rotation: until when the previous secret signs too.
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
    /// The version the endpoint's events are written in.
    pub api_version: crate::versions::ApiVersion,
    /// Its delivery queue: shown by `GET /webhooks/{webhook_id}` only.
    pub queue: Option<crate::WebhookQueue>,
}

/// The caller's webhook endpoints, oldest first.
#[apply(wire!)]
pub struct WebhookList {
    /// Every endpoint (secrets are not shown).
    pub webhooks: Vec<Webhook>,
}

/// An event queued for delivery to one endpoint.
#[apply(wire!)]
pub struct WebhookQueued {
    /// `Test event queued` or `Delivery queued`.
    pub message: String,
    /// The event queued (`evt_…`).
    pub event_id: String,
}

/// A deleted webhook endpoint.
#[apply(wire!)]
pub struct WebhookDeleted {
    /// `Webhook endpoint deleted`.
    pub message: String,
    /// The endpoint that was deleted.
    pub webhook_id: WebhookId,
}

/// How a delivery attempt ended: `delivered` (a 2xx answer in time) or `failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    Delivered,
    Failed,
}

/// One attempt to deliver an event to an endpoint.
#[apply(wire!)]
pub struct WebhookDelivery {
    /// The event sent (`evt_…`).
    pub event_id: String,
    /// The event's type.
    pub event_type: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// How the attempt ended.
    pub status: DeliveryStatus,
    /// The receiver's HTTP status, when it answered; null otherwise.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub response_status: Option<u16>,
    /// How long the attempt took.
    pub duration_ms: u64,
    /// Why it failed, when it did; null otherwise.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub error: Option<String>,
    /// When the attempt was made (RFC 3339, UTC).
    pub at: DateTime<Utc>,
    /// When the next attempt is due, while the event still waits for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// A page of an endpoint's delivery attempts, newest first.
#[apply(wire!)]
pub struct WebhookDeliveryPage {
    /// This page's attempts.
    pub deliveries: Vec<WebhookDelivery>,
    /// Pass it as `cursor` for the next page; null on the last page.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// A card's transactions that changed since a cursor (Plaid-style): from no cursor the whole
/// history in pages, then only what changed.
#[apply(wire!)]
pub struct TransactionSync {
    /// Transactions that are new since the cursor.
    pub added: Vec<CardTransaction>,
    /// Transactions that changed since the cursor (settled, or a new amount).
    pub modified: Vec<CardTransaction>,
    /// Ids of transactions that are gone.
    pub removed: Vec<TransactionId>,
    /// Pass it to the next call; valid for at least a year.
    pub next_cursor: String,
    /// More changes wait: call again at once with `nextCursor`.
    pub has_more: bool,
}

/// Seconds to move the caller's sandbox clock ahead.
#[apply(wire!)]
#[derive(Default)]
pub struct ClockAdvanceRequest {
    /// 1 to 31,536,000 (a year).
    pub seconds: i64,
}

/// The most one `POST /sandbox/clock/advance` moves the clock.
pub const MAX_CLOCK_ADVANCE_SECONDS: i64 = 31_536_000;

/// The sandbox clock, moved.
#[apply(wire!)]
pub struct ClockAdvanced {
    /// What was done, in words.
    pub message: String,
    /// The seconds the clock moved.
    pub seconds: i64,
    /// Pending purchases of the caller's cards or merchant that settled because of it.
    pub settled: u64,
}

/// The caller's sandbox data, deleted.
#[apply(wire!)]
pub struct SandboxReset {
    /// What was deleted, in words.
    pub message: String,
}

/// One of the caller's recent API requests.
#[apply(wire!)]
pub struct LoggedRequest {
    /// The HTTP method.
    pub method: String,
    /// The path, without the query string; runs of 12 or more digits are masked.
    pub path: String,
    /// The route it matched, as the API reference names it (`/card/{card_id}`); null when it
    /// matched none.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub route: Option<String>,
    /// The HTTP status of the answer.
    pub status: u16,
    /// The error's `code`, when it failed; null otherwise.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub code: Option<String>,
    /// The request's id (`X-Request-Id`).
    pub request_id: String,
    /// How long the service took, in milliseconds.
    pub latency_ms: f64,
    /// When the request arrived (RFC 3339, UTC).
    pub at: DateTime<Utc>,
}

/// A page of the caller's request history, newest first.
#[apply(wire!)]
pub struct RequestLogPage {
    /// Newest first.
    pub requests: Vec<LoggedRequest>,
    /// Pass it as `cursor` for the next page; null on the last page.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// One request of the caller's history with what it sent and got back, masked: card numbers,
/// secrets, tokens and passwords never reach the history.
#[apply(wire!)]
pub struct LoggedRequestDetail {
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(value_type = LoggedRequest))]
    pub request: crate::Flat<LoggedRequest>,
    /// The query string, masked; null when there was none.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub query: Option<String>,
    /// The request's body as sent (at most 16 KiB), masked; null when it had none.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub request_body: Option<String>,
    /// The answer's body (at most 16 KiB; 2 KiB of a successful GET's, the object as it was),
    /// masked; null for a stream, an export or an erased object's request.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub response_body: Option<String>,
    /// Whether a body was longer than 16 KiB and is cut.
    pub truncated: bool,
    /// The ids the request named or got back (`cardId:12`, `id:evt_40`), as `objectId` finds them.
    pub object_ids: Vec<String>,
}

/// Filters and paging of the request history: every filter optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct RequestQuery {
    /// Only answers of this status (`404`) or class (`4xx`, `5xx`; `error` for both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", param(pattern = r"^(?:[1-5][0-9]{2}|[1-5]xx|error)$"))]
    pub status: Option<String>,
    /// Only requests of this route, as `route` names it (`/card/{card_id}`), or with this path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub route: Option<String>,
    /// Only requests that named or got back this id: a bare id (`12`, `evt_40`) or one of a
    /// kind (`cardId:12`): at most 80 characters, no spaces within (around it they are trimmed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(
        feature = "openapi",
        param(
            pattern = r"^[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*(?:[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]{1,80})?[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$"
        )
    )]
    pub object_id: Option<String>,
    /// The request with this id (`X-Request-Id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub request_id: Option<String>,
    /// Only requests from this time on: a date (`2026-01-31`) or an RFC 3339 time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub from: Option<String>,
    /// Only requests up to this time: a date (the whole day) or an RFC 3339 time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub to: Option<String>,
    /// The most requests on a page (100 unless said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", param(minimum = 1, maximum = 5000))]
    pub limit: Option<u32>,
    /// Where the page starts: the `nextCursor` of the page before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub cursor: Option<String>,
}

/// Requests kept per subscriber in the history, at most (the oldest go first).
pub const REQUEST_HISTORY_MAX_REQUESTS: u64 = 20_000;
/// Bytes of bodies kept per subscriber in the history, at most (the oldest go first).
pub const REQUEST_HISTORY_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The most of a body the history keeps.
pub const REQUEST_HISTORY_BODY_BYTES: usize = 16 * 1024;
