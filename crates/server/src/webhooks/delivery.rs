//! The delivery worker: sends queued events to webhook endpoints, one instance at a time (a
//! lease), endpoint by endpoint in event order, several endpoints at once.
//!
//! A 2xx within 10 s is delivered. Anything else is retried after about 10 s, 1 min, 5 min,
//! 30 min, 2 h, then every 6 h, for 3 days from the event; the queue is in the database, so a
//! restart resumes it (a delivery cut off by a crash is sent again: at least once). An
//! endpoint whose deliveries have all failed for 3 days is disabled.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use futures::StreamExt;
use subscriber_protocol::webhook_signature;

use super::destination::{self, GuardedResolver};
use crate::lease::Lease;
use crate::state::AppState;
use crate::storage;
use crate::storage::webhooks::{Attempt, DueDelivery};

/// How long a receiver has to answer.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Seconds before each retry; the last repeats.
const BACKOFF_SECONDS: [i64; 6] = [10, 60, 300, 1800, 7200, 21_600];
/// How long a delivery is retried, and how long an endpoint may fail before it is disabled.
const GIVE_UP_SECONDS: i64 = 3 * 24 * 3600;
/// How often the worker looks for due deliveries when it has nothing to do.
const IDLE_POLL: Duration = Duration::from_millis(250);
/// Deliveries taken from the queue at once, and endpoints served at once.
const BATCH: u32 = 200;
const CONCURRENT_ENDPOINTS: usize = 16;
/// The most of a receiver's answer the log keeps, as the error of a failed attempt.
const ERROR_TEXT_MAX: usize = 200;

pub async fn run(state: AppState) {
    let client = match reqwest::Client::builder()
        .timeout(TIMEOUT)
        .connect_timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        // Never through HTTP(S)_PROXY or ALL_PROXY: a proxy would be the only address the
        // resolver's check sees, and it would reach loopback and private addresses for us.
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver {
            policy: super::policy(&state),
            resolver: destination::Resolver::from_system(),
        }))
        .user_agent(concat!("SubscriberData-Webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(error = %error, "webhook deliveries are off: no HTTP client");
            return;
        }
    };
    let mut lease = Lease::new("webhook delivery");
    loop {
        tokio::time::sleep(IDLE_POLL).await;
        if !lease.held(&state.db).await {
            continue;
        }
        match deliver_due(&state, &client).await {
            Ok(0) => {}
            Ok(sent) => tracing::debug!(sent, "webhook deliveries attempted"),
            Err(error) => tracing::warn!(error = %error, "webhook deliveries not attempted"),
        }
    }
}

/// Attempts every delivery due now; returns how many it attempted.
pub async fn deliver_due(state: &AppState, client: &reqwest::Client) -> Result<usize, storage::StorageError> {
    let now_ms = Utc::now().timestamp_millis();
    let (waiting, next) = state.db.delivery_queue().await?;
    #[allow(clippy::cast_precision_loss)]
    metrics::gauge!("subscriber_webhook_queue_depth").set(waiting as f64);
    if next.is_none_or(|due| due > now_ms) {
        return Ok(0);
    }
    let due = state.db.due_deliveries(now_ms, BATCH).await?;
    let mut by_endpoint: BTreeMap<i64, Vec<DueDelivery>> = BTreeMap::new();
    for delivery in due {
        by_endpoint.entry(delivery.webhook.id).or_default().push(delivery);
    }
    let attempted = futures::stream::iter(by_endpoint.into_values())
        .map(|deliveries| async move {
            let mut attempted = 0;
            for delivery in deliveries {
                let delivered = deliver(state, client, &delivery).await;
                attempted += 1;
                // In order per endpoint: a failure holds back the endpoint's later events
                // until the next round, where they are tried after it.
                if !delivered {
                    break;
                }
            }
            attempted
        })
        .buffer_unordered(CONCURRENT_ENDPOINTS)
        .collect::<Vec<usize>>()
        .await;
    Ok(attempted.into_iter().sum())
}

/// One attempt, logged; whether the receiver took it.
async fn deliver(state: &AppState, client: &reqwest::Client, delivery: &DueDelivery) -> bool {
    let webhook = &delivery.webhook;
    let (subscriber_id, event_id) = (webhook.subscriber_id, delivery.event_id);
    let attempt_number = delivery.attempts.saturating_add(1);
    let event = state.db.event(subscriber_id, event_id).await;
    let started = Instant::now();
    let outcome = match event {
        Ok(Some(event)) => match crate::event_log::render(event).map(|event| serde_json::to_vec(&event)) {
            Ok(Ok(body)) => {
                // Written in the endpoint's version, as its requests would read it.
                let body = match state.versions.get() {
                    Some(published) => published.event_at(super::api_version(webhook), body),
                    None => body,
                };
                send(state, client, webhook, &body, event_id).await
            }
            _ => Outcome::gone("the event could not be rendered"),
        },
        // Gone (older than the log keeps): nothing left to send.
        Ok(None) => Outcome::gone("the event no longer exists"),
        Err(error) => {
            tracing::warn!(error = %error, "webhook event not read: tried again later");
            return false;
        }
    };
    let at = Utc::now().timestamp_millis();
    let counted = if outcome.delivered { "delivered" } else { "failed" };
    metrics::counter!("subscriber_webhook_deliveries_total", "outcome" => counted).increment(1);
    let unit_ms = i64::try_from(state.config.webhook_retry_unit_ms).unwrap_or(1000);
    let give_up_at = delivery.created_at.saturating_add(GIVE_UP_SECONDS.saturating_mul(unit_ms));
    let next_attempt_at = if outcome.delivered || outcome.final_failure {
        None
    } else {
        let index =
            usize::try_from(attempt_number.saturating_sub(1)).unwrap_or(usize::MAX).min(BACKOFF_SECONDS.len() - 1);
        Some(at.saturating_add(BACKOFF_SECONDS[index].saturating_mul(unit_ms))).filter(|next| *next <= give_up_at)
    };
    let attempt = Attempt {
        webhook_id: webhook.id,
        event_id,
        attempt: attempt_number,
        delivered: outcome.delivered,
        response_status: outcome.status,
        duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        error: outcome.error,
        at,
        next_attempt_at,
    };
    let disable_before = at.saturating_sub(GIVE_UP_SECONDS.saturating_mul(unit_ms));
    match state.db.record_attempt(attempt, disable_before).await {
        Ok(true) => tracing::warn!(webhook_id = webhook.id, "webhook endpoint disabled after 3 days of failures"),
        Ok(false) => {}
        Err(error) => tracing::warn!(error = %error, "webhook attempt not logged"),
    }
    tracing::info!(
        webhook_id = webhook.id,
        event_id,
        attempt = attempt_number,
        delivered = outcome.delivered,
        status = outcome.status,
        "webhook delivery"
    );
    outcome.delivered
}

struct Outcome {
    delivered: bool,
    status: Option<u16>,
    error: Option<String>,
    /// Trying again cannot help (the event is gone).
    final_failure: bool,
}

impl Outcome {
    fn failed(status: Option<u16>, error: String) -> Self {
        Self { delivered: false, status, error: Some(error), final_failure: false }
    }

    /// A failure no retry can mend.
    fn gone(error: &str) -> Self {
        Self { delivered: false, status: None, error: Some(error.to_owned()), final_failure: true }
    }
}

async fn send(
    state: &AppState,
    client: &reqwest::Client,
    webhook: &storage::webhooks::WebhookRow,
    body: &[u8],
    event_id: i64,
) -> Outcome {
    // The rule again, on the URL as it is now: an IP address is not looked up by the resolver.
    if let Ok(url) = reqwest::Url::parse(&webhook.url)
        && let Some(host) = url.host_str()
    {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(address) = bare.parse::<std::net::IpAddr>()
            && !destination::address_allowed(super::policy(state), address)
        {
            return Outcome::failed(None, format!("{address} is not an address webhooks may reach"));
        }
        if url.scheme() != "https" && !super::policy(state).allow_private {
            return Outcome::failed(None, "the URL is not https".to_owned());
        }
    }
    let now = Utc::now().timestamp();
    let secrets = super::signing_secrets(&state.keys.webhook_signing, webhook, now);
    let event_type = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|value| value["type"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let request = client
        .post(&webhook.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(webhook_signature::EVENT_ID_HEADER, crate::events::public_id(event_id))
        .header(webhook_signature::EVENT_TYPE_HEADER, event_type)
        .header(webhook_signature::HEADER, webhook_signature::header(&secrets, now, body))
        .body(body.to_vec());
    match request.send().await {
        Ok(response) => {
            let status = response.status();
            if status.is_success() {
                Outcome { delivered: true, status: Some(status.as_u16()), error: None, final_failure: false }
            } else {
                let answer = super::answer::read_at_most(response, super::answer::READ_MAX).await;
                let mut error = format!("the receiver answered {status}");
                let excerpt = super::answer::excerpt(&answer, ERROR_TEXT_MAX);
                if !excerpt.is_empty() {
                    error.push_str(": ");
                    error.push_str(&excerpt);
                }
                Outcome::failed(Some(status.as_u16()), error)
            }
        }
        Err(error) => {
            let reason = if error.is_timeout() {
                "no answer within 10 s".to_owned()
            } else if error.is_connect() {
                "the connection failed".to_owned()
            } else {
                "the request failed".to_owned()
            };
            Outcome::failed(None, reason)
        }
    }
}
