//! Webhook endpoints (`/webhooks`): a subscriber's servers receive its events as signed POSTs.
//!
//! - Each endpoint's secret is derived from the service's webhook key, the endpoint and a
//!   generation number ([`secret`]): the database holds no secret, and a secret is shown only in
//!   the answers that create or rotate it. A rotation keeps the previous one signing for 24 h.
//! - [`destination`]: where an endpoint may point (SSRF rules), checked on save and on delivery.
//! - [`delivery`]: the worker that sends queued events, retries with backoff for 3 days and
//!   logs every attempt. Events are queued in the transaction that records them
//!   (`storage::events`).

mod answer;
pub mod delivery;
pub mod destination;

use axum::Json;
use axum::extract::{Path, State};
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use chrono::Utc;
use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;
use std::time::Duration;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::rules::webhooks as rules;
use subscriber_protocol::versions::ApiVersion;
use subscriber_protocol::webhook_signature::SECRET_PREFIX;
use subscriber_protocol::{AttemptId, SubscriberId};
use subscriber_protocol::{
    CreateWebhookRequest, DeliveryStatus, DroppedDeliveries, Environment, ErrorBody, RecoverWebhookRequest, Success,
    UpdateWebhookRequest, Webhook, WebhookDeleted, WebhookDelivery, WebhookDeliveryPage, WebhookList, WebhookQueue,
    WebhookQueued, WebhookRecovered, WebhookStatus,
};
use subscriber_protocol::{UnixMillis, WebhookId};
use utoipa_axum::routes;

use crate::error::{ApiError, Validation};
use crate::events::{parse_public_id, public_id};
use crate::http::extract::{ApiJson, ApiQuery, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::http::routes::Routes;
use crate::paging;
use crate::state::AppState;
use crate::storage::webhooks::{LoggedAttempt, NewWebhook, Resend, TEST_SENDS, TestSend, WebhookChange, WebhookRow};
use crate::versions::{self, RequestVersion};
use destination::Policy;
use subscriber_protocol::WebhookTestData;

/// Endpoints one subscriber may have.
pub const MAX_ENDPOINTS: usize = 20;
/// How long the secret before a rotation keeps signing.
pub const ROTATION_OVERLAP: Duration = Duration::from_secs(24 * 3600);

pub fn routes(api: Routes) -> Routes {
    api.api_creating(routes!(create))
        .api(routes!(list))
        .api(routes!(one))
        .api(routes!(update))
        .api(routes!(remove))
        .api(routes!(rotate_secret))
        .api(routes!(send_test))
        .api(routes!(deliveries))
        .api(routes!(resend))
        .api(routes!(recover))
}

/// The endpoint's secret of a generation. Its 32 bytes are HMAC-SHA256 under the service's
/// webhook key of a label, the endpoint id and the generation. From the endpoint's
/// `standard_secret_from` generation on (every endpoint made since Standard Webhooks), it is
/// `whsec_` + standard base64 of those bytes, and the bytes are the signing key of both header
/// styles. Generations before (endpoints made earlier, until rotated) keep the form they were
/// shown in: `whsec_` + unpadded URL-safe base64 of the same bytes, and their signing key is
/// that whole text as UTF-8 (`webhook_signature::signing_key` tells the two apart).
pub fn secret(key: &[u8], webhook: &WebhookRow, generation: i64) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key"));
    mac.update(b"subscriber-data webhook secret v1\0");
    mac.update(&webhook.id.get().to_be_bytes());
    mac.update(&generation.to_be_bytes());
    let bytes = mac.finalize().into_bytes();
    if generation >= webhook.standard_secret_from {
        format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes))
    } else {
        format!("{SECRET_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
    }
}

/// The endpoint's current secret.
fn current_secret(key: &[u8], webhook: &WebhookRow) -> String {
    secret(key, webhook, webhook.secret_generation)
}

/// The secrets that sign a delivery at `now`: the current one, and the previous one during
/// the overlap after a rotation.
pub fn signing_secrets(key: &[u8], webhook: &WebhookRow, now: UnixSeconds) -> Vec<String> {
    let mut secrets = vec![current_secret(key, webhook)];
    if webhook.previous_until.is_some_and(|until| until > now) && webhook.secret_generation > 1 {
        secrets.push(secret(key, webhook, webhook.secret_generation - 1));
    }
    secrets
}

pub fn policy(state: &AppState) -> Policy {
    Policy { allow_private: state.environment() == Environment::Sandbox && state.config.webhooks_allow_private }
}

fn render(row: &WebhookRow, secret: Option<String>) -> Result<Webhook, ApiError> {
    let events: Vec<String> = serde_json::from_str(&row.events).map_err(ApiError::internal)?;
    let now = UnixSeconds::now();
    Ok(Webhook {
        webhook_id: row.id,
        url: row.url.clone(),
        events,
        description: row.description.clone().filter(|description| !description.is_empty()),
        status: if row.enabled { WebhookStatus::Enabled } else { WebhookStatus::Disabled },
        disabled_reason: row.disabled_reason.clone().filter(|_| !row.enabled),
        created_at: paging::checked_time(row.created_at)?,
        secret,
        previous_secret_expires_at: row
            .previous_until
            .filter(|until| *until > now)
            .map(paging::checked_time)
            .transpose()?,
        api_version: api_version(row),
        queue: None,
    })
}

/// The version an endpoint's events are written in.
pub fn api_version(row: &WebhookRow) -> ApiVersion {
    ApiVersion::parse(&row.api_version).unwrap_or(ApiVersion::INITIAL)
}

/// The URL, checked for form and for where it points.
async fn checked_url(state: &AppState, url: &str, validation: &mut Validation) -> Option<String> {
    let (scheme, host) = rules::url(validation, url)?;
    let Ok(parsed) = reqwest::Url::parse(url.trim()) else {
        validation.reject("url", "is not a valid URL");
        return None;
    };
    let port = parsed.port_or_known_default().unwrap_or(443);
    let addresses = destination::Resolver::from_system().resolve(&host, port).await;
    if let Some(refusal) = destination::refusal(policy(state), &scheme, &host, &addresses) {
        validation.reject("url", refusal);
        return None;
    }
    Some(parsed.to_string())
}

fn events_json(events: &[String]) -> Result<String, ApiError> {
    serde_json::to_string(events).map_err(ApiError::internal)
}

async fn owned(state: &AppState, subscriber_id: SubscriberId, webhook_id: WebhookId) -> Result<WebhookRow, ApiError> {
    state.db.webhook(subscriber_id, webhook_id).await?.ok_or_else(|| not_found(webhook_id))
}

fn not_found(webhook_id: WebhookId) -> ApiError {
    ApiError::not_found(format!("no webhook endpoint {webhook_id} of this subscriber"))
}

/// Adds a webhook endpoint
///
/// The answer shows the endpoint's signing secret (`whsec_…`) once: keep it to verify
/// `Subscriber-Signature`. The URL must be https and point to a public address; a sandbox
/// started with `--webhooks-allow-private` also takes loopback and private addresses, over
/// http too. The endpoint's events are written in the version of this request (`apiVersion`);
/// `PATCH` moves it.
#[utoipa::path(post, path = "/webhooks", tag = "webhooks", operation_id = "createWebhook",
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "The endpoint, with its secret (shown once).", body = Success<Webhook>),
        (status = 400, description = "The URL or an event type is not valid.", body = ErrorBody),
        (status = 409, description = "The subscriber has the most endpoints it may (20).", body = ErrorBody),
    ))]
async fn create(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    asked: RequestVersion,
    ApiJson(request): ApiJson<CreateWebhookRequest>,
) -> Result<Response, ApiError> {
    // Before the URL's host is looked up: a subscriber at the cap makes the service resolve
    // nothing. (Checked again when the endpoint is added, against concurrent creations.)
    refuse_at_cap(&state, auth.subscriber_id).await?;
    let mut validation = Validation::new();
    let url = checked_url(&state, &request.url, &mut validation).await;
    let events = rules::events(&mut validation, &request.events);
    let description = request.description.as_deref().and_then(|text| rules::description(&mut validation, text));
    let (url, events) = validation.finish((url, events))?;
    let (Some(url), Some(events)) = (url, events) else {
        return Err(ApiError::invalid("the endpoint is not valid"));
    };
    let new = NewWebhook {
        subscriber_id: auth.subscriber_id,
        url,
        events: events_json(&events)?,
        description: description.filter(|text| !text.is_empty()),
        created_at: UnixSeconds::now(),
        api_version: asked.version.as_str().to_owned(),
    };
    // A retry replays the same answer, secret included (the replay is sealed with the key file).
    let (template, signing) = (new.clone(), state.keys.webhook_signing.clone());
    let replay = idempotent.replay(move |id| {
        let row = WebhookRow::created(id, template.clone());
        let secret = current_secret(&signing, &row);
        render(&row, Some(secret)).ok()
    });
    let row = state.db.create_webhook(new, MAX_ENDPOINTS, replay).await?.ok_or_else(at_cap)?;
    tracing::info!(webhook_id = row.id.get(), "webhook endpoint added");
    let secret = current_secret(&state.keys.webhook_signing, &row);
    Ok(idempotent.created(render(&row, Some(secret))?))
}

fn at_cap() -> ApiError {
    ApiError::conflict(format!("a subscriber has at most {MAX_ENDPOINTS} webhook endpoints"))
}

/// 409 when the subscriber already has [`MAX_ENDPOINTS`] endpoints.
async fn refuse_at_cap(state: &AppState, subscriber_id: SubscriberId) -> Result<(), ApiError> {
    let endpoints = state.db.webhooks(subscriber_id).await?;
    if endpoints.len() >= MAX_ENDPOINTS { Err(at_cap()) } else { Ok(()) }
}

/// 409 when the subscriber has more than [`MAX_ENDPOINTS`] endpoints (kept from before the
/// cap): it changes no URL, as it adds none, until it is under.
async fn refuse_over_cap(state: &AppState, subscriber_id: SubscriberId) -> Result<(), ApiError> {
    let endpoints = state.db.webhooks(subscriber_id).await?;
    if endpoints.len() > MAX_ENDPOINTS { Err(at_cap()) } else { Ok(()) }
}

/// The caller's webhook endpoints
///
/// Every endpoint, oldest first, without secrets (a secret is shown once, when it is made).
#[utoipa::path(get, path = "/webhooks", tag = "webhooks", operation_id = "listWebhooks",
    responses((status = 200, description = "The endpoints (secrets are not shown).", body = Success<WebhookList>)))]
async fn list(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<WebhookList>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let rows = state.db.webhooks(subscriber_id).await?;
    let webhooks = rows.iter().map(|row| render(row, None)).collect::<Result<_, _>>()?;
    Ok(Json(Success::new(WebhookList { webhooks })))
}

/// One of the caller's webhook endpoints, with its delivery queue
///
/// Without its secret, which is shown once, when it is made. `queue` says how many deliveries
/// wait (at most `queueLimit`), when the next attempt is due, why the last one failed, and
/// which events were dropped because the queue was full.
#[utoipa::path(get, path = "/webhooks/{webhook_id}", tag = "webhooks", operation_id = "getWebhook",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The endpoint.", body = Success<Webhook>),
        (status = 404, description = "No such endpoint of the caller.", body = ErrorBody),
    ))]
async fn one(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(webhook_id): IdPath<WebhookId>,
) -> Result<Json<Success<Webhook>>, ApiError> {
    let row = owned(&state, auth.subscriber_id, webhook_id).await?;
    let queue = state.db.endpoint_queue(row.id).await?;
    let dropped = queue
        .dropped
        .map(|run| {
            Ok::<_, ApiError>(DroppedDeliveries {
                count: u64::try_from(run.count).unwrap_or_default(),
                total: u64::try_from(run.total).unwrap_or_default(),
                first_event_id: public_id(run.first_event_id),
                last_event_id: public_id(run.last_event_id),
                since: millis_time(run.since)?,
                until: millis_time(run.until)?,
            })
        })
        .transpose()?;
    let queue = WebhookQueue {
        queue_length: u64::try_from(queue.length).unwrap_or_default(),
        next_attempt_at: queue.next_attempt_at.map(millis_time).transpose()?,
        last_error: queue.last_error,
        queue_limit: u64::try_from(queue.limit).unwrap_or_default(),
        dropped,
    };
    Ok(Json(Success::new(Webhook { queue: Some(queue), ..render(&row, None)? })))
}

/// Changes a webhook endpoint: its URL, events, description, version, or whether it is enabled
///
/// Enabling an endpoint the service disabled (after 3 days of failures) starts it afresh.
/// `apiVersion` moves the version its events are written in, from the next delivery on.
#[utoipa::path(patch, path = "/webhooks/{webhook_id}", tag = "webhooks", operation_id = "updateWebhook",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1)),
    request_body = UpdateWebhookRequest,
    responses(
        (status = 200, description = "The endpoint as it is now.", body = Success<Webhook>),
        (status = 400, description = "A field is not valid.", body = ErrorBody),
        (status = 404, description = "No such endpoint of the caller.", body = ErrorBody),
        (status = 409, description = "A new URL while the subscriber has more endpoints than it may (20).",
            body = ErrorBody),
    ))]
async fn update(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(webhook_id): IdPath<WebhookId>,
    ApiJson(request): ApiJson<UpdateWebhookRequest>,
) -> Result<Json<Success<Webhook>>, ApiError> {
    // Before the URL's host is looked up: another subscriber's id (or none) is 404 whatever
    // the URL, and a subscriber over the endpoint cap makes the service resolve nothing.
    owned(&state, auth.subscriber_id, webhook_id).await?;
    if request.url.is_some() {
        refuse_over_cap(&state, auth.subscriber_id).await?;
    }
    let mut validation = Validation::new();
    let url = match &request.url {
        Some(url) => checked_url(&state, url, &mut validation).await,
        None => None,
    };
    let events = request.events.as_deref().and_then(|events| rules::events(&mut validation, events));
    let description = request.description.as_deref().and_then(|text| rules::description(&mut validation, text));
    validation.finish(())?;
    let api_version = request.api_version.as_deref().map(|sent| versions::parse(sent, "apiVersion")).transpose()?;
    let change = WebhookChange {
        url,
        events: events.as_deref().map(events_json).transpose()?,
        description,
        enabled: request.enabled,
        api_version: api_version.map(|version| version.as_str().to_owned()),
    };
    let subscriber_id = auth.subscriber_id;
    let row = state.db.update_webhook(subscriber_id, webhook_id, change).await?.ok_or_else(|| not_found(webhook_id))?;
    tracing::info!(webhook_id = webhook_id.get(), enabled = row.enabled, "webhook endpoint changed");
    Ok(Json(Success::new(render(&row, None)?)))
}

/// Deletes a webhook endpoint; what was queued for it is not sent
///
/// Deliveries waiting for the endpoint are dropped; its log of attempts goes with it.
#[utoipa::path(delete, path = "/webhooks/{webhook_id}", tag = "webhooks", operation_id = "deleteWebhook",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "Deleted.", body = Success<WebhookDeleted>),
        (status = 404, description = "No such endpoint of the caller.", body = ErrorBody),
    ))]
async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(webhook_id): IdPath<WebhookId>,
) -> Result<Json<Success<WebhookDeleted>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let deleted = state.db.delete_webhook(subscriber_id, webhook_id).await?;
    if !deleted {
        return Err(not_found(webhook_id));
    }
    tracing::info!(webhook_id = webhook_id.get(), "webhook endpoint deleted");
    // A retry of the request that created it must make a new endpoint, not name this one.
    if let Err(error) =
        crate::http::idempotency::forget_replays_naming(&state, subscriber_id, "webhookId", webhook_id).await
    {
        tracing::warn!(webhook_id = webhook_id.get(), error = %error, "webhook deleted; its kept replays not forgotten");
    }
    Ok(Json(Success::new(WebhookDeleted { message: "Webhook endpoint deleted".to_owned(), webhook_id })))
}

/// Rotates an endpoint's signing secret
///
/// The answer shows the new secret once. The previous one keeps signing beside it (two `v1=`
/// in `Subscriber-Signature`) for 24 hours, so receivers can switch without losing events.
#[utoipa::path(post, path = "/webhooks/{webhook_id}/secret/rotate", tag = "webhooks",
    operation_id = "rotateWebhookSecret",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The endpoint with its new secret.", body = Success<Webhook>),
        (status = 404, description = "No such endpoint of the caller.", body = ErrorBody),
    ))]
async fn rotate_secret(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(webhook_id): IdPath<WebhookId>,
) -> Result<Json<Success<Webhook>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let until = UnixSeconds::now().plus(ROTATION_OVERLAP);
    let row =
        state.db.rotate_webhook_secret(subscriber_id, webhook_id, until).await?.ok_or_else(|| not_found(webhook_id))?;
    tracing::info!(webhook_id = webhook_id.get(), "webhook secret rotated");
    let secret = current_secret(&state.keys.webhook_signing, &row);
    Ok(Json(Success::new(render(&row, Some(secret))?)))
}

/// Sends a `webhook.test` event to the endpoint
///
/// A `webhook.test` event is recorded and queued for this endpoint only: a way to check the
/// receiver and its signature check. An endpoint takes at most 10 test sends a minute.
#[utoipa::path(post, path = "/webhooks/{webhook_id}/test", tag = "webhooks", operation_id = "testWebhook",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The test event, queued for this endpoint.", body = Success<WebhookQueued>),
        (status = 404, description = "No such endpoint of the caller.", body = ErrorBody),
        (status = 409, description = "The endpoint is disabled, or its queue is full.", body = ErrorBody),
        (status = 429, description = "The endpoint had its 10 test sends this minute: `Retry-After` says when the next may go.",
            body = ErrorBody),
    ))]
async fn send_test(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(webhook_id): IdPath<WebhookId>,
) -> Result<Json<Success<WebhookQueued>>, ApiError> {
    let row = owned(&state, auth.subscriber_id, webhook_id).await?;
    refuse_disabled(&row)?;
    let subscriber_id = auth.subscriber_id;
    let data = WebhookTestData { webhook_id, message: "A test event from Subscriber Data".to_owned() };
    let now = UnixMillis::now();
    let event_id = match state.db.send_test_event(subscriber_id, webhook_id, data, now).await? {
        TestSend::Queued(event_id) => event_id,
        TestSend::TooMany { retry_at } => {
            let wait_ms = u64::try_from(retry_at.since(now).as_millis()).unwrap_or(u64::MAX);
            tracing::info!(webhook_id = webhook_id.get(), "webhook test send refused: {TEST_SENDS} this minute");
            return Err(ApiError::RateLimited { retry_after_seconds: wait_ms.div_ceil(1000).max(1) });
        }
        TestSend::QueueFull => return Err(queue_full(webhook_id)),
    };
    Ok(Json(Success::new(WebhookQueued { message: "Test event queued".to_owned(), event_id: public_id(event_id) })))
}

fn queue_full(webhook_id: WebhookId) -> ApiError {
    ApiError::conflict(format!(
        "webhook endpoint {webhook_id}'s queue is full: nothing more is queued until its receiver takes what waits \
         (GET /webhooks/{webhook_id} shows the queue)"
    ))
}

fn refuse_disabled(row: &WebhookRow) -> Result<(), ApiError> {
    if row.enabled {
        Ok(())
    } else {
        Err(ApiError::conflict(format!(
            "webhook endpoint {} is disabled: enable it (PATCH with enabled: true) first",
            row.id
        )))
    }
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveryQuery {
    /// The most attempts on a page.
    #[serde(default)]
    #[param(minimum = 1, maximum = 5000)]
    limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    #[serde(default)]
    #[param(pattern = "^[0-9]{1,18}$")]
    cursor: Option<String>,
}

/// Every attempt to deliver to the endpoint, newest first
///
/// Each attempt with its outcome, the receiver's status, how long it took, and when the next
/// attempt is due while the event still waits. Paged with `limit` and `cursor`.
#[utoipa::path(get, path = "/webhooks/{webhook_id}/deliveries", tag = "webhooks", operation_id = "listWebhookDeliveries",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1), DeliveryQuery),
    responses(
        (status = 200, description = "A page of attempts; `nextCursor` is null on the last.",
            body = Success<WebhookDeliveryPage>),
        (status = 404, description = "No such endpoint of the caller.", body = ErrorBody),
    ))]
async fn deliveries(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(webhook_id): IdPath<WebhookId>,
    ApiQuery(query): ApiQuery<DeliveryQuery>,
) -> Result<Json<Success<WebhookDeliveryPage>>, ApiError> {
    let mut validation = Validation::new();
    let limit = paging::page_limit(query.limit, &mut validation);
    let before = query.cursor.as_deref().filter(|cursor| !cursor.is_empty()).and_then(|cursor| {
        let id = cursor.parse::<AttemptId>().ok().filter(|id| id.get() > 0);
        if id.is_none() {
            validation.reject("cursor", "is not a cursor this service issued: pass next_cursor from the previous page");
        }
        id
    });
    validation.finish(())?;
    owned(&state, auth.subscriber_id, webhook_id).await?;
    let rows = state.db.delivery_attempts(webhook_id, before, limit.saturating_add(1)).await?;
    let (rows, next_cursor) = paging::split_page(rows, limit, |row| row.id.to_string());
    let deliveries = rows
        .into_iter()
        .map(|LoggedAttempt { event_id, event_type, entry, .. }| {
            Ok(WebhookDelivery {
                event_id: public_id(event_id),
                event_type,
                attempt: entry.attempt,
                status: if entry.delivered { DeliveryStatus::Delivered } else { DeliveryStatus::Failed },
                response_status: entry.response_status,
                duration_ms: u64::try_from(entry.duration_ms).unwrap_or_default(),
                error: entry.error,
                at: millis_time(entry.at)?,
                next_attempt_at: entry.next_attempt_at.map(millis_time).transpose()?,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(Json(Success::new(WebhookDeliveryPage { deliveries, next_cursor })))
}

fn millis_time(millis: UnixMillis) -> Result<chrono::DateTime<Utc>, ApiError> {
    chrono::DateTime::from_timestamp_millis(millis.get())
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("stored time {millis} ms is out of range")))
}

/// Sends one of the caller's events to the endpoint again
///
/// Queues the event for the endpoint now, as a new delivery with its own retries, whether or not it
/// was delivered before.
#[utoipa::path(post, path = "/webhooks/{webhook_id}/deliveries/{event_id}/resend", tag = "webhooks",
    operation_id = "resendWebhookDelivery",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1),
        ("event_id" = String, Path, description = "An event id (`evt_…`) of the caller.", pattern = "^evt_[0-9]{1,18}$")),
    responses(
        (status = 200, description = "The event, queued for this endpoint.", body = Success<WebhookQueued>),
        (status = 404, description = "No such endpoint or event of the caller.", body = ErrorBody),
        (status = 409, description = "The endpoint is disabled, or its queue is full.", body = ErrorBody),
    ))]
async fn resend(
    State(state): State<AppState>,
    auth: Auth,
    Path((webhook_id, event_id)): Path<(String, String)>,
) -> Result<Json<Success<WebhookQueued>>, ApiError> {
    let webhook_id = webhook_id
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .map(WebhookId)
        .ok_or_else(|| ApiError::not_found("no such webhook endpoint: ids are positive integers"))?;
    let row = owned(&state, auth.subscriber_id, webhook_id).await?;
    let no_event = || ApiError::not_found("no such event of this subscriber");
    let event = parse_public_id(&event_id).ok_or_else(no_event)?;
    refuse_disabled(&row)?;
    let subscriber_id = auth.subscriber_id;
    match state.db.resend(subscriber_id, webhook_id, event, UnixMillis::now()).await? {
        Resend::Queued => {}
        Resend::NoEvent => return Err(no_event()),
        Resend::QueueFull => return Err(queue_full(webhook_id)),
    }
    tracing::info!(webhook_id = webhook_id.get(), event_id = event.get(), "webhook delivery queued again");
    Ok(Json(Success::new(WebhookQueued { message: "Delivery queued".to_owned(), event_id: public_id(event) })))
}

/// Queues again every failed delivery to the endpoint since a time
///
/// Each delivery to the endpoint that failed for good (its retries ran out, or it was dropped
/// because the queue was full) and was queued at or after `since` (RFC 3339) is queued again
/// now, with retries of its own, in event order, as many as the queue has room for.
#[utoipa::path(post, path = "/webhooks/{webhook_id}/recover", tag = "webhooks", operation_id = "recoverWebhookDeliveries",
    params(("webhook_id" = i64, Path, description = "A webhookId of the caller.", minimum = 1)),
    request_body = RecoverWebhookRequest,
    responses(
        (status = 200, description = "How many deliveries were queued again.", body = Success<WebhookRecovered>),
        (status = 400, description = "`since` is not an RFC 3339 time.", body = ErrorBody),
        (status = 404, description = "No such endpoint of the caller.", body = ErrorBody),
        (status = 409, description = "The endpoint is disabled.", body = ErrorBody),
    ))]
async fn recover(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(webhook_id): IdPath<WebhookId>,
    ApiJson(request): ApiJson<RecoverWebhookRequest>,
) -> Result<Json<Success<WebhookRecovered>>, ApiError> {
    let mut validation = Validation::new();
    let since = chrono::DateTime::parse_from_rfc3339(request.since.trim()).ok();
    if since.is_none() {
        validation.reject("since", "is not an RFC 3339 time, such as 2026-11-24T00:00:00Z");
    }
    validation.finish(())?;
    let since = since.map_or(UnixMillis(0), |since| UnixMillis::from(since.to_utc()));
    let row = owned(&state, auth.subscriber_id, webhook_id).await?;
    refuse_disabled(&row)?;
    let queued = state.db.recover_deliveries(auth.subscriber_id, webhook_id, since, UnixMillis::now()).await?;
    tracing::info!(webhook_id = webhook_id.get(), queued, "failed webhook deliveries queued again");
    Ok(Json(Success::new(WebhookRecovered { message: "Failed deliveries queued again".to_owned(), queued })))
}
