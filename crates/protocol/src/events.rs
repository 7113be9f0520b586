//! Events for server integrations: the event log, webhook endpoints and their deliveries, and
//! incremental sync of a card's transactions (the contract's "Events, webhooks and
//! incremental sync").

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::CardTransaction;

/// Every event type, as `type` names it and webhook endpoints subscribe to it.
pub const EVENT_TYPES: [&str; 9] = [
    "card.enrolled",
    "transaction.created",
    "transaction.updated",
    "merchant.location.created",
    "account.linked",
    "account.failed",
    "person.verified",
    "person.locked",
    "webhook.test",
];

/// An endpoint's `events` that stands for every type.
pub const ALL_EVENTS: &str = "*";

/// One change a subscriber can observe. Its `id` is also the `id:` of the transaction streams
/// and the `Subscriber-Event-Id` header of a webhook delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `evt_` and digits; ids grow in the order events happen.
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
    /// What changed. A transaction event: `{transactionId, cardId?, merchantId?, transaction}`
    /// (the transaction as the caller's card list shows it, else as the merchant list does).
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub data: serde_json::Value,
}

/// `GET /events`: every filter optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
pub struct EventQuery {
    /// Only events of this type (`transaction.created`, …).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub event_type: Option<String>,
    /// Only events from this time on: a date (`2026-01-31`) or an RFC 3339 time. The log keeps
    /// 30 days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", param(minimum = 1, maximum = 5000))]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventPage {
    pub events: Vec<Event>,
    pub next_cursor: Option<String>,
}

/// `POST /webhooks`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreateWebhookRequest {
    pub url: String,
    /// Event types, or `["*"]` for all of them.
    pub events: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
}

/// `PATCH /webhooks/{webhookId}`: what is sent changes, the rest stays.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UpdateWebhookRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub events: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
}

/// A webhook endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub webhook_id: i64,
    pub url: String,
    pub events: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
    /// `enabled` or `disabled`.
    pub status: String,
    /// Why the service disabled it (after 3 days of failed deliveries); absent when the
    /// subscriber did, or when it is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub disabled_reason: Option<String>,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
    /// The secret is shown once: in the answer that creates it or rotates it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub secret: Option<String>,
    /// After a rotation: until when the previous secret signs too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WebhookList {
    pub webhooks: Vec<Webhook>,
}

/// `POST /webhooks/{webhookId}/test` and `…/resend`: the event queued for delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookQueued {
    pub message: String,
    pub event_id: String,
}

/// `DELETE /webhooks/{webhookId}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeleted {
    pub message: String,
    pub webhook_id: i64,
}

/// One attempt to deliver an event to an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookDelivery {
    pub event_id: String,
    pub event_type: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// `delivered` (a 2xx within 10 s) or `failed`.
    pub status: String,
    /// The receiver's HTTP status, when it answered.
    pub response_status: Option<u16>,
    pub duration_ms: u64,
    /// Why it failed, when it did.
    pub error: Option<String>,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub at: DateTime<Utc>,
    /// When the next attempt is due, while the event still waits for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub next_attempt_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WebhookDeliveryPage {
    pub deliveries: Vec<WebhookDelivery>,
    pub next_cursor: Option<String>,
}

/// `GET /card/{cardId}/transactions/sync` (Plaid-style): from no cursor the whole history in
/// pages, then from the cursor only what changed since.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransactionSync {
    pub added: Vec<CardTransaction>,
    pub modified: Vec<CardTransaction>,
    /// Ids of transactions that are gone.
    pub removed: Vec<i64>,
    /// Pass it to the next call; valid for at least a year.
    pub next_cursor: String,
    /// More changes wait: call again at once with `next_cursor`.
    pub has_more: bool,
}

/// `POST /sandbox/clock/advance`: seconds to move the caller's sandbox clock ahead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClockAdvanceRequest {
    /// 1 to 31,536,000 (a year).
    pub seconds: i64,
}

/// The most one `POST /sandbox/clock/advance` moves the clock.
pub const MAX_CLOCK_ADVANCE_SECONDS: i64 = 31_536_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClockAdvanced {
    pub message: String,
    pub seconds: i64,
    /// Pending purchases of the caller's cards or merchant that settled because of it.
    pub settled: u64,
}

/// `POST /sandbox/reset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SandboxReset {
    pub message: String,
}

/// One of the caller's recent API requests (`GET /subscriber/requests`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LoggedRequest {
    pub method: String,
    /// The path, without the query string; runs of 12 or more digits are masked.
    pub path: String,
    pub status: u16,
    /// The error's `code`, when it failed.
    pub code: Option<String>,
    pub request_id: String,
    pub latency_ms: f64,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RequestLogPage {
    /// Newest first, at most the last 100.
    pub requests: Vec<LoggedRequest>,
}
