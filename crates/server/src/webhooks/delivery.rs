//! The delivery worker: sends queued events to webhook endpoints. Every instance runs one;
//! they share the queue in the database (`Store::claim_deliveries`: on PostgreSQL `FOR UPDATE
//! SKIP LOCKED`, and a claim that ends by itself if its instance dies).
//!
//! Endpoints are isolated: per endpoint one attempt at a time, in event order (its later
//! events wait behind its oldest undelivered one); across endpoints up to
//! [`CONCURRENT_ATTEMPTS`] at once, each attempt a task of its own, so a slow receiver holds
//! only its own endpoint. A new event wakes the worker at once (`Store::deliveries_queued`);
//! otherwise it sleeps until the next attempt is due, at most [`MAX_SLEEP`].
//!
//! A 2xx within 15 s (connection and whole answer) is delivered. Anything else is retried after
//! about 10 s, 1 min, 5 min, 30 min, 2 h, then every 6 h (each ±20%), for 3 days from the
//! event; a `429` or `503` with `Retry-After` is retried when it says (at most 1 h); `410 Gone`
//! disables the endpoint. The queue is in the database, so a restart resumes it (a delivery cut
//! off by a crash is sent again: at least once). An endpoint whose deliveries have all failed
//! for 3 days is disabled.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use rand::Rng;
use subscriber_protocol::webhook_signature;
use tokio::sync::Semaphore;

use super::destination::{self, GuardedResolver};
use crate::state::AppState;
use crate::storage;
use crate::storage::webhooks::{Attempt, AttemptEntry, DueDelivery};

/// How long a receiver has to connect and answer whole.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// Seconds before each retry; the last repeats.
const BACKOFF_SECONDS: [i64; 6] = [10, 60, 300, 1800, 7200, 21_600];
/// Each retry's delay is moved by up to this share, either way, so that failures do not
/// retry in step.
const JITTER: f64 = 0.2;
/// How long a delivery is retried, and how long an endpoint may fail before it is disabled.
const GIVE_UP_SECONDS: i64 = 3 * 24 * 3600;
/// The longest a `Retry-After` may hold an endpoint back.
const RETRY_AFTER_MAX: Duration = Duration::from_secs(3600);
/// Attempts in flight at once, each to a different endpoint.
pub const CONCURRENT_ATTEMPTS: usize = 64;
/// How long a claim holds a delivery: longer than an attempt takes, so that only a crashed
/// instance's claims run out.
const CLAIM: Duration = Duration::from_secs(30);
/// The longest the worker sleeps without looking at the queue (a wake-up lost between
/// instances costs at most this).
const MAX_SLEEP: Duration = Duration::from_secs(1);
/// The shortest, so that a due delivery some other instance is claiming is not spun on.
const MIN_SLEEP: Duration = Duration::from_millis(20);
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
    if let Err(error) = state.db.release_delivery_claims().await {
        tracing::warn!(error = %error, "earlier webhook delivery claims not released: they run out");
    }
    let slots = Arc::new(Semaphore::new(CONCURRENT_ATTEMPTS));
    loop {
        let now_ms = Utc::now().timestamp_millis();
        if let Err(error) = start_due(&state, &client, &slots, now_ms).await {
            tracing::warn!(error = %error, "webhook deliveries not claimed");
        }
        let wait = if slots.available_permits() == 0 {
            // Every slot busy: an attempt that ends wakes the worker.
            MAX_SLEEP
        } else {
            match state.db.delivery_queue(Utc::now().timestamp_millis()).await {
                Ok((waiting, next)) => {
                    #[allow(clippy::cast_precision_loss)]
                    metrics::gauge!("subscriber_webhook_queue_depth").set(waiting as f64);
                    next.map_or(MAX_SLEEP, |due| {
                        let until = u64::try_from(due.saturating_sub(Utc::now().timestamp_millis())).unwrap_or(0);
                        Duration::from_millis(until).clamp(MIN_SLEEP, MAX_SLEEP)
                    })
                }
                Err(error) => {
                    tracing::warn!(error = %error, "webhook queue not read");
                    MAX_SLEEP
                }
            }
        };
        tokio::select! {
            () = state.db.deliveries_queued() => {}
            () = tokio::time::sleep(wait) => {}
        }
    }
}

/// Claims the deliveries due now that free slots can take and starts an attempt of each;
/// returns without waiting for them.
async fn start_due(
    state: &AppState,
    client: &reqwest::Client,
    slots: &Arc<Semaphore>,
    now_ms: i64,
) -> Result<(), storage::StorageError> {
    let free = u32::try_from(slots.available_permits()).unwrap_or(u32::MAX);
    if free == 0 {
        return Ok(());
    }
    let claim_until = now_ms.saturating_add(i64::try_from(CLAIM.as_millis()).unwrap_or(i64::MAX));
    for delivery in state.db.claim_deliveries(now_ms, claim_until, free).await? {
        // This task is the only one taking slots: as many are free as were counted.
        let Ok(slot) = Arc::clone(slots).try_acquire_owned() else { break };
        let (state, client) = (state.clone(), client.clone());
        tokio::spawn(async move {
            deliver(&state, &client, &delivery).await;
            drop(slot);
            // The endpoint's next event may go now, and a slot is free.
            state.db.wake_deliveries();
        });
    }
    Ok(())
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
        let delay = match outcome.retry_after {
            Some(asked) => i64::try_from(asked.min(RETRY_AFTER_MAX).as_millis()).unwrap_or(i64::MAX),
            None => jittered(backoff_ms(attempt_number, unit_ms)),
        };
        Some(at.saturating_add(delay)).filter(|next| *next <= give_up_at)
    };
    let attempt = Attempt {
        webhook_id: webhook.id,
        event_id,
        entry: AttemptEntry {
            attempt: attempt_number,
            delivered: outcome.delivered,
            response_status: outcome.status,
            duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
            error: outcome.error,
            at,
            next_attempt_at,
        },
        disable: outcome.disable,
    };
    let disable_before = at.saturating_sub(GIVE_UP_SECONDS.saturating_mul(unit_ms));
    match state.db.record_attempt(attempt, disable_before).await {
        Ok(true) => tracing::warn!(webhook_id = webhook.id, "webhook endpoint disabled"),
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

/// The delay before retry `attempt_number + 1`, on the schedule, in milliseconds.
fn backoff_ms(attempt_number: u32, unit_ms: i64) -> i64 {
    let index = usize::try_from(attempt_number.saturating_sub(1)).unwrap_or(usize::MAX).min(BACKOFF_SECONDS.len() - 1);
    BACKOFF_SECONDS[index].saturating_mul(unit_ms)
}

/// `delay_ms` moved by a random share of up to ±[`JITTER`].
fn jittered(delay_ms: i64) -> i64 {
    let factor = rand::rng().random_range((1.0 - JITTER)..=(1.0 + JITTER));
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let moved = (delay_ms as f64 * factor).round() as i64;
    moved.max(0)
}

/// A `Retry-After` value: seconds, or an HTTP date (then the time until it).
fn retry_after(value: &str, now: chrono::DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    Some((at.with_timezone(&Utc) - now).to_std().unwrap_or(Duration::ZERO))
}

#[derive(Default)]
struct Outcome {
    delivered: bool,
    status: Option<u16>,
    error: Option<String>,
    /// Trying again cannot help (the event is gone).
    final_failure: bool,
    /// The receiver asked for the next attempt after this long.
    retry_after: Option<Duration>,
    /// The receiver said the endpoint is gone: disable it, with this reason.
    disable: Option<String>,
}

impl Outcome {
    fn failed(status: Option<u16>, error: String) -> Self {
        Self { status, error: Some(error), ..Self::default() }
    }

    /// A failure no retry can mend.
    fn gone(error: &str) -> Self {
        Self { error: Some(error.to_owned()), final_failure: true, ..Self::default() }
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
    let id = crate::events::public_id(event_id);
    let request = client
        .post(&webhook.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(webhook_signature::EVENT_ID_HEADER, &id)
        .header(webhook_signature::EVENT_TYPE_HEADER, event_type)
        .header(webhook_signature::HEADER, webhook_signature::header(&secrets, now, body))
        .header(webhook_signature::STANDARD_ID_HEADER, &id)
        .header(webhook_signature::STANDARD_TIMESTAMP_HEADER, now.to_string())
        .header(
            webhook_signature::STANDARD_SIGNATURE_HEADER,
            webhook_signature::standard_signature(&secrets, &id, now, body),
        )
        .body(body.to_vec());
    match request.send().await {
        Ok(response) => {
            let status = response.status();
            if status.is_success() {
                // The answer is read (up to the limit) within the timeout, then dropped.
                super::answer::read_at_most(response, super::answer::READ_MAX).await;
                return Outcome { delivered: true, status: Some(status.as_u16()), ..Outcome::default() };
            }
            let asked = matches!(status.as_u16(), 429 | 503)
                .then(|| response.headers().get(reqwest::header::RETRY_AFTER))
                .flatten()
                .and_then(|value| value.to_str().ok())
                .and_then(|value| retry_after(value, Utc::now()));
            let answer = super::answer::read_at_most(response, super::answer::READ_MAX).await;
            let mut error = format!("the receiver answered {status}");
            if status == reqwest::StatusCode::GONE {
                error.push_str(": the endpoint is disabled");
            }
            let excerpt = super::answer::excerpt(&answer, ERROR_TEXT_MAX);
            if !excerpt.is_empty() {
                error.push_str(": ");
                error.push_str(&excerpt);
            }
            let disable = (status == reqwest::StatusCode::GONE)
                .then(|| "the receiver answered 410 Gone: fix the endpoint, then enable it again".to_owned());
            Outcome { retry_after: asked, disable, ..Outcome::failed(Some(status.as_u16()), error) }
        }
        Err(error) => {
            let reason = if error.is_timeout() {
                "no answer within 15 s".to_owned()
            } else if error.is_connect() {
                "the connection failed".to_owned()
            } else {
                "the request failed".to_owned()
            };
            Outcome::failed(None, reason)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-24T08:00:00Z").expect("a time").with_timezone(&Utc);
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(retry_after("Tue, 24 Nov 2026 08:00:30 GMT", now), Some(Duration::from_secs(30)));
        assert_eq!(retry_after("Tue, 24 Nov 2026 07:00:00 GMT", now), Some(Duration::ZERO));
        assert_eq!(retry_after("soon", now), None);
    }

    #[test]
    fn retries_are_jittered_within_a_fifth() {
        for attempt in 1..10 {
            let delay = jittered(backoff_ms(attempt, 1000));
            let planned = backoff_ms(attempt, 1000);
            assert!(delay >= planned * 8 / 10 && delay <= planned * 12 / 10, "{delay} near {planned}");
        }
    }
}
