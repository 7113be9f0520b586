//! The delivery worker: sends queued events to webhook endpoints. Every instance runs one;
//! they share the queue in the database (`Store::claim_deliveries`: one row per endpoint, on
//! PostgreSQL `FOR UPDATE SKIP LOCKED`, and a claim that runs out within seconds if its
//! instance dies).
//!
//! Endpoints are isolated: per endpoint one attempt at a time, in event order (its later
//! events wait behind its oldest undelivered one); across endpoints up to
//! [`CONCURRENT_ATTEMPTS`] at once, each attempt a task of its own, so a slow receiver holds
//! only its own endpoint. A new event wakes the worker at once (`Store::deliveries_queued`);
//! otherwise it sleeps until the next endpoint falls due (a retry, or another instance's
//! claim running out), at most [`MAX_SLEEP`].
//!
//! Tenants share the slots fairly ([`Fairness`]): the subscriber with the fewest attempts in
//! flight goes first (round robin over the subscribers with work due), one subscriber has at
//! most [`PER_SUBSCRIBER`] in flight and one receiver (host and port) [`PER_HOST`], and the
//! last [`RESERVED`] slots go only to subscribers with nothing in flight: however many slow
//! endpoints and queued events some accounts have, a subscriber with an event to send finds a
//! slot. These limits hold per instance.
//!
//! A claim lasts [`CLAIM`] and is renewed every [`RENEW_EVERY`] while its attempt runs (an
//! attempt may take [`TIMEOUT`]): a killed instance's endpoints are taken over by another
//! within seconds, the same event first (the same `webhook-id`), in order. A claim found lost
//! (it ran out and another instance took the endpoint) stops its attempt; its outcome would
//! move nothing.
//!
//! A 2xx within 15 s (connection and whole answer) is delivered. Anything else is retried after
//! about 10 s, 1 min, 5 min, 30 min, 2 h, then every 6 h (each ±20%), for 3 days from the
//! event; a `429` or `503` with `Retry-After` is retried when it says (at most 1 h); `410 Gone`
//! disables the endpoint. The queue is in the database, so a restart resumes it (a delivery cut
//! off by a crash is sent again: at least once). An endpoint whose deliveries have all failed
//! for 3 days is disabled.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subscriber_protocol::EventId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{Event, UnixMillis, WebhookId};

use chrono::Utc;
use parking_lot::Mutex;
use rand::Rng;
use subscriber_protocol::webhook_signature;
use tokio::sync::Notify;
use tracing::Instrument;

use super::destination::{self, GuardedResolver};
use crate::state::AppState;
use crate::storage;
use crate::storage::webhooks::{Attempt, AttemptEntry, ClaimAsk, ClaimCandidate, DueDelivery, HeldClaim};

/// How long a receiver has to connect and answer whole.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// Seconds (`--webhook-retry-unit-ms`, a second unless a test says otherwise) before each
/// retry; the last repeats.
const BACKOFF_UNITS: [u32; 6] = [10, 60, 300, 1800, 7200, 21_600];
/// Each retry's delay is moved by up to this share, either way, so that failures do not
/// retry in step.
const JITTER: f64 = 0.2;
/// How long a delivery is retried, and how long an endpoint may fail before it is disabled.
const GIVE_UP_UNITS: u32 = 3 * 24 * 3600;
/// The longest a `Retry-After` may hold an endpoint back.
const RETRY_AFTER_MAX: Duration = Duration::from_secs(3600);
/// Attempts in flight at once, each to a different endpoint.
pub const CONCURRENT_ATTEMPTS: usize = 64;
/// Attempts in flight at once for one subscriber.
pub const PER_SUBSCRIBER: usize = 8;
/// Attempts in flight at once to one receiver (host and port).
pub const PER_HOST: usize = 16;
/// Slots that only a subscriber with no attempt in flight may take.
pub const RESERVED: usize = 16;
/// How long a claim holds an endpoint unless renewed: a killed instance's endpoints are free
/// this long after its last renewal.
const CLAIM: Duration = Duration::from_secs(5);
/// How often the claims in flight are renewed.
const RENEW_EVERY: Duration = Duration::from_secs(1);
/// The longest the worker sleeps without looking at the queue (a wake-up lost between
/// instances costs at most this).
const MAX_SLEEP: Duration = Duration::from_secs(1);
/// The shortest, so that an endpoint some other instance is claiming is not spun on.
const MIN_SLEEP: Duration = Duration::from_millis(20);
/// How often the queue's depth is read for the metric.
const DEPTH_EVERY: Duration = Duration::from_secs(5);
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
    let flights = Arc::new(Mutex::new(InFlight::default()));
    let renewing = tokio::spawn(renew(state.clone(), Arc::clone(&flights)).instrument(own_task("webhook claims")));
    let _renewing = AbortOnDrop(renewing);
    let mut depth_read = Instant::now().checked_sub(DEPTH_EVERY).unwrap_or_else(Instant::now);
    loop {
        let free = CONCURRENT_ATTEMPTS.saturating_sub(flights.lock().busy());
        let claimed = match start_due(&state, &client, &flights, UnixMillis::now()).await {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(error = %error, "webhook deliveries not claimed");
                0
            }
        };
        if claimed > 0 && claimed < free {
            // Room left: more may be due (a claim looks at a bounded number of endpoints).
            continue;
        }
        if depth_read.elapsed() >= DEPTH_EVERY {
            depth_read = Instant::now();
            match state.db.delivery_queue_depth().await {
                #[allow(clippy::cast_precision_loss)]
                Ok(waiting) => metrics::gauge!("subscriber_webhook_queue_depth").set(waiting as f64),
                Err(error) => tracing::warn!(error = %error, "webhook queue not read"),
            }
        }
        let wait = if flights.lock().busy() >= CONCURRENT_ATTEMPTS {
            // Every slot busy: an attempt that ends wakes the worker.
            MAX_SLEEP
        } else {
            // Endpoints due now that were not claimed wait for a slot of their subscriber or
            // host (an attempt that ends wakes the worker) or are another instance's: the
            // next to fall due is what to wake for.
            let now = UnixMillis::now();
            match state.db.next_delivery_due(now).await {
                Ok(next) => next.map_or(MAX_SLEEP, |due| due.since(now).clamp(MIN_SLEEP, MAX_SLEEP)),
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

/// The span of a task this worker spawns: `logging::task_span`'s, on its own (not inside the
/// worker's span, which would name the task twice).
fn own_task(task: &'static str) -> tracing::Span {
    tracing::info_span!(parent: None, "task", task)
}

/// Aborts the task when dropped (the worker stopped: its renewals stop with it).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An attempt in flight, under its claim.
struct Flight {
    claim: i64,
    subscriber_id: SubscriberId,
    host: String,
    /// Told when the claim is found lost: the attempt stops.
    lost: Arc<Notify>,
}

/// This instance's attempts in flight, by endpoint, with counts per subscriber and host.
#[derive(Default)]
struct InFlight {
    endpoints: HashMap<WebhookId, Flight>,
    subscribers: HashMap<SubscriberId, usize>,
    hosts: HashMap<String, usize>,
}

impl InFlight {
    fn busy(&self) -> usize {
        self.endpoints.len()
    }

    fn start(&mut self, delivery: &DueDelivery) -> Arc<Notify> {
        let lost = Arc::new(Notify::new());
        let flight = Flight {
            claim: delivery.claim,
            subscriber_id: delivery.webhook.subscriber_id,
            host: delivery.host.clone(),
            lost: Arc::clone(&lost),
        };
        *self.subscribers.entry(flight.subscriber_id).or_default() += 1;
        *self.hosts.entry(flight.host.clone()).or_default() += 1;
        if let Some(earlier) = self.endpoints.insert(delivery.webhook.id, flight) {
            self.forget(&earlier);
        }
        lost
    }

    /// The attempt under `claim` at the endpoint ended (or stopped).
    fn end(&mut self, webhook_id: WebhookId, claim: i64) {
        if self.endpoints.get(&webhook_id).is_some_and(|flight| flight.claim == claim)
            && let Some(flight) = self.endpoints.remove(&webhook_id)
        {
            self.forget(&flight);
        }
    }

    fn forget(&mut self, flight: &Flight) {
        for count in
            [self.subscribers.get_mut(&flight.subscriber_id), self.hosts.get_mut(&flight.host)].into_iter().flatten()
        {
            *count = count.saturating_sub(1);
        }
        self.subscribers.retain(|_, count| *count > 0);
        self.hosts.retain(|_, count| *count > 0);
    }

    fn held(&self) -> Vec<HeldClaim> {
        self.endpoints
            .iter()
            .map(|(webhook_id, flight)| HeldClaim { webhook_id: *webhook_id, claim: flight.claim })
            .collect()
    }

    fn fairness(&self) -> Fairness {
        Fairness { busy: self.busy(), subscribers: self.subscribers.clone(), hosts: self.hosts.clone() }
    }
}

/// Who may take the free slots, and in what order: a snapshot of what is in flight.
#[derive(Debug, Clone, Default)]
struct Fairness {
    busy: usize,
    subscribers: HashMap<SubscriberId, usize>,
    hosts: HashMap<String, usize>,
}

impl Fairness {
    /// Whether one more attempt of a subscriber with `in_flight` attempts may start.
    fn subscriber_may(&self, in_flight: usize) -> bool {
        in_flight < PER_SUBSCRIBER && (in_flight == 0 || self.busy < CONCURRENT_ATTEMPTS - RESERVED)
    }

    /// Subscribers and hosts that may have nothing more claimed now.
    fn skipped(&self) -> (Vec<SubscriberId>, Vec<String>) {
        let subscribers =
            self.subscribers.iter().filter(|(_, count)| !self.subscriber_may(**count)).map(|(id, _)| *id).collect();
        let hosts = self.hosts.iter().filter(|(_, count)| **count >= PER_HOST).map(|(host, _)| host.clone()).collect();
        (subscribers, hosts)
    }

    /// The candidates to claim, in order: each time the subscriber with the fewest attempts
    /// in flight (counting those placed before it; the one whose work fell due first among
    /// equals), within the caps. Up to twice the free slots (the claim takes the first it
    /// can: others may be another instance's by then), so any prefix keeps the caps.
    fn order(mut self, candidates: &[ClaimCandidate]) -> Vec<WebhookId> {
        let wanted = CONCURRENT_ATTEMPTS.saturating_sub(self.busy).saturating_mul(2);
        let mut queues: Vec<(SubscriberId, VecDeque<&ClaimCandidate>)> = Vec::new();
        for candidate in candidates {
            match queues.iter_mut().find(|(subscriber_id, _)| *subscriber_id == candidate.subscriber_id) {
                Some((_, queue)) => queue.push_back(candidate),
                None => queues.push((candidate.subscriber_id, VecDeque::from([candidate]))),
            }
        }
        let mut order = Vec::new();
        while order.len() < wanted {
            let next = queues
                .iter()
                .enumerate()
                .filter(|(_, (_, queue))| !queue.is_empty())
                .min_by_key(|(index, (subscriber_id, _))| {
                    (self.subscribers.get(subscriber_id).copied().unwrap_or(0), *index)
                })
                .map(|(index, _)| index);
            let Some(index) = next else { break };
            let (subscriber_id, queue) = &mut queues[index];
            let in_flight = self.subscribers.get(subscriber_id).copied().unwrap_or(0);
            if !self.subscriber_may(in_flight) {
                queue.clear();
                continue;
            }
            let Some(candidate) = queue.pop_front() else { continue };
            let host = self.hosts.entry(candidate.host.clone()).or_default();
            if *host >= PER_HOST {
                continue;
            }
            *host += 1;
            *self.subscribers.entry(*subscriber_id).or_default() += 1;
            self.busy += 1;
            order.push(candidate.webhook_id);
        }
        order
    }
}

/// Renews this instance's claims while their attempts run; stops an attempt whose claim is
/// found lost.
async fn renew(state: AppState, flights: Arc<Mutex<InFlight>>) {
    let mut tick = tokio::time::interval(RENEW_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let held = flights.lock().held();
        if held.is_empty() {
            continue;
        }
        let until = UnixMillis::now().plus(CLAIM);
        match state.db.renew_delivery_claims(held, until).await {
            Ok(lost) => {
                let flights = flights.lock();
                for claim in lost {
                    // An attempt that ended meanwhile freed its claim itself.
                    if let Some(flight) =
                        flights.endpoints.get(&claim.webhook_id).filter(|flight| flight.claim == claim.claim)
                    {
                        tracing::warn!(
                            webhook_id = claim.webhook_id.get(),
                            "webhook delivery claim lost (it ran out and another instance took the endpoint): attempt stopped"
                        );
                        flight.lost.notify_one();
                    }
                }
            }
            Err(error) => tracing::warn!(error = %error, "webhook delivery claims not renewed"),
        }
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Claims the deliveries due now that free slots can take, fairly, and starts an attempt of
/// each; returns how many, without waiting for them.
async fn start_due(
    state: &AppState,
    client: &reqwest::Client,
    flights: &Arc<Mutex<InFlight>>,
    now_ms: UnixMillis,
) -> Result<usize, storage::StorageError> {
    let fairness = flights.lock().fairness();
    let free = CONCURRENT_ATTEMPTS.saturating_sub(fairness.busy);
    if free == 0 {
        return Ok(0);
    }
    let (skip_subscribers, skip_hosts) = fairness.skipped();
    let ask = ClaimAsk {
        now_ms,
        claim_until: now_ms.plus(CLAIM),
        slots: u32::try_from(free).unwrap_or(u32::MAX),
        skip_subscribers,
        skip_hosts,
        per_subscriber: u32::try_from(PER_SUBSCRIBER).unwrap_or(u32::MAX),
        candidates: u32::try_from(free.saturating_mul(4).clamp(32, 256)).unwrap_or(256),
    };
    let claimed = state.db.claim_deliveries(ask, Box::new(move |candidates| fairness.order(candidates))).await?;
    let count = claimed.len();
    for delivery in claimed {
        // This task is the only one starting attempts: the slots counted are still free.
        let lost = flights.lock().start(&delivery);
        let (state, client, flights) = (state.clone(), client.clone(), Arc::clone(flights));
        tokio::spawn(
            async move {
                let started = Instant::now();
                let outcome = tokio::select! {
                    outcome = attempt(&state, &client, &delivery) => outcome,
                    () = lost.notified() => None,
                };
                // No more renewals: the record below frees the claim.
                flights.lock().end(delivery.webhook.id, delivery.claim);
                if let Some(outcome) = outcome {
                    record(&state, &delivery, outcome, started).await;
                }
                // The endpoint's next event may go now, and a slot is free.
                state.db.wake_deliveries();
            }
            .instrument(own_task("webhook delivery")),
        );
    }
    Ok(count)
}

/// One attempt: the event rendered in the endpoint's version and sent. `None` when the event
/// could not be read (the claim runs out and it is tried again).
async fn attempt(state: &AppState, client: &reqwest::Client, delivery: &DueDelivery) -> Option<Outcome> {
    let webhook = &delivery.webhook;
    let (subscriber_id, event_id) = (webhook.subscriber_id, delivery.event_id);
    let outcome = match state.db.event(subscriber_id, event_id).await {
        Ok(Some(event)) => match crate::event_log::render(state, event).await.map(|event| serde_json::to_vec(&event)) {
            // The card's history could not be read: tried again later, as an event not read.
            Err(error @ crate::error::ApiError::Unavailable { .. }) => {
                tracing::warn!(error = %error, webhook_id = webhook.id.get(), event_id = event_id.get(), "webhook event not rendered: tried again later");
                return None;
            }
            Ok(Ok(body)) => {
                // Written in the endpoint's version, as its requests would read it.
                let body = match state.versions.get() {
                    Some(published) => published.answer_at::<Event>(super::api_version(webhook), body).into_owned(),
                    None => body,
                };
                send(state, client, webhook, &body, event_id).await
            }
            _ => Outcome::gone("the event could not be rendered"),
        },
        // Gone (older than the log keeps): nothing left to send.
        Ok(None) => Outcome::gone("the event no longer exists"),
        Err(error) => {
            tracing::warn!(error = %error, webhook_id = webhook.id.get(), event_id = event_id.get(), "webhook event not read: tried again later");
            return None;
        }
    };
    Some(outcome)
}

/// Logs the attempt and moves the queue on (under the attempt's claim).
async fn record(state: &AppState, delivery: &DueDelivery, outcome: Outcome, started: Instant) {
    let webhook = &delivery.webhook;
    let event_id = delivery.event_id;
    let attempt_number = delivery.attempts.saturating_add(1);
    let at = UnixMillis::now();
    let counted = if outcome.delivered { "delivered" } else { "failed" };
    metrics::counter!("subscriber_webhook_deliveries_total", "outcome" => counted).increment(1);
    let unit = Duration::from_millis(state.config.webhook_retry_unit_ms);
    let give_up = unit.saturating_mul(GIVE_UP_UNITS);
    let give_up_at = delivery.created_at.plus(give_up);
    let next_attempt_at = if outcome.delivered || outcome.final_failure {
        None
    } else {
        let delay = match outcome.retry_after {
            Some(asked) => asked.min(RETRY_AFTER_MAX),
            None => jittered(backoff(attempt_number, unit)),
        };
        Some(at.plus(delay)).filter(|next| *next <= give_up_at)
    };
    let attempt = Attempt {
        webhook_id: webhook.id,
        event_id,
        claim: delivery.claim,
        entry: AttemptEntry {
            attempt: attempt_number,
            delivered: outcome.delivered,
            response_status: outcome.status,
            duration_ms: millis(started.elapsed()),
            error: outcome.error,
            at,
            next_attempt_at,
        },
        disable: outcome.disable,
    };
    let disable_before = at.minus(give_up);
    match state.db.record_attempt(attempt, disable_before).await {
        Ok(true) => tracing::warn!(webhook_id = webhook.id.get(), "webhook endpoint disabled"),
        Ok(false) => {}
        Err(error) => tracing::warn!(error = %error, webhook_id = webhook.id.get(), "webhook attempt not logged"),
    }
    tracing::info!(
        webhook_id = webhook.id.get(),
        event_id = event_id.get(),
        attempt = attempt_number,
        delivered = outcome.delivered,
        status = outcome.status,
        "webhook delivery"
    );
}

/// The delay before retry `attempt_number + 1`, on the schedule.
fn backoff(attempt_number: u32, unit: Duration) -> Duration {
    let index = usize::try_from(attempt_number.saturating_sub(1)).unwrap_or(usize::MAX).min(BACKOFF_UNITS.len() - 1);
    unit.saturating_mul(BACKOFF_UNITS[index])
}

/// `delay` moved by a random share of up to ±[`JITTER`] (as it was, should that not fit).
fn jittered(delay: Duration) -> Duration {
    let factor = rand::rng().random_range((1.0 - JITTER)..=(1.0 + JITTER));
    Duration::try_from_secs_f64(delay.as_secs_f64() * factor).unwrap_or(delay)
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
    event_id: EventId,
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
    let now = UnixSeconds::now();
    let secrets = super::signing_secrets(&state.keys.webhook_signing, webhook, now);
    // Standard Webhooks sign the integer seconds.
    let now = now.get();
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

    fn candidate(webhook_id: WebhookId, subscriber_id: SubscriberId, host: &str) -> ClaimCandidate {
        ClaimCandidate { webhook_id, subscriber_id, host: host.to_owned() }
    }

    /// The endpoints in the order `fairness` gives them slots.
    fn slots(fairness: Fairness, candidates: &[ClaimCandidate]) -> Vec<i64> {
        fairness.order(candidates).into_iter().map(WebhookId::get).collect()
    }

    /// Subscribers take turns, the one with the fewest attempts in flight first; none passes
    /// its cap, nor does a receiver.
    #[test]
    fn slots_go_round_the_subscribers_within_the_caps() {
        // Subscriber 1 has 30 endpoints due first, 2 and 3 one each, due later.
        let mut candidates: Vec<ClaimCandidate> =
            (0..30).map(|n| candidate(WebhookId(100 + n), SubscriberId(1), "hostile:1")).collect();
        candidates.push(candidate(WebhookId(200), SubscriberId(2), "quiet:1"));
        candidates.push(candidate(WebhookId(300), SubscriberId(3), "quiet:2"));
        let order = slots(Fairness::default(), &candidates);
        assert_eq!(&order[..3], [100, 200, 300], "one each first");
        assert_eq!(order.iter().filter(|id| **id >= 100 && **id < 200).count(), PER_SUBSCRIBER);

        // Busy with the subscriber's others: it is skipped, the quiet one goes first.
        let busy = Fairness {
            busy: 7,
            subscribers: HashMap::from([(SubscriberId(1), 7)]),
            hosts: HashMap::from([("hostile:1".to_owned(), 7)]),
        };
        assert_eq!(slots(busy.clone(), &candidates)[..2], [200, 300]);
        assert_eq!(busy.skipped().0, Vec::<SubscriberId>::new());

        // One receiver shared by many subscribers: at most PER_HOST to it.
        let shared: Vec<ClaimCandidate> = (0..40)
            .map(|n| candidate(WebhookId(400 + n), SubscriberId(10 + n / 4), "shared:443"))
            .chain([candidate(WebhookId(999), SubscriberId(99), "own:443")])
            .collect();
        let order = slots(Fairness::default(), &shared);
        assert_eq!(order.iter().filter(|id| **id < 999).count(), PER_HOST);
        assert!(order.contains(&999));
    }

    /// The last slots are kept for subscribers with nothing in flight: a tenant of many accounts
    /// cannot fill them.
    #[test]
    fn the_reserved_slots_go_to_subscribers_with_nothing_in_flight() {
        let subscribers: HashMap<SubscriberId, usize> = (0..6).map(|id| (SubscriberId(id), PER_SUBSCRIBER)).collect();
        let fairness = Fairness { busy: 48, subscribers, hosts: HashMap::new() };
        let candidates = [
            candidate(WebhookId(1), SubscriberId(0), "a:1"),
            candidate(WebhookId(2), SubscriberId(50), "b:1"),
            candidate(WebhookId(3), SubscriberId(50), "b:1"),
            candidate(WebhookId(4), SubscriberId(51), "c:1"),
        ];
        let mut skipped = fairness.skipped().0;
        skipped.sort_unstable();
        assert_eq!(skipped, (0..6).map(SubscriberId).collect::<Vec<_>>());
        assert_eq!(slots(fairness, &candidates), [2, 4], "one each of those with none in flight");
    }

    #[test]
    fn retries_are_jittered_within_a_fifth() {
        for attempt in 1..10 {
            let planned = backoff(attempt, Duration::from_secs(1));
            let delay = jittered(planned);
            let (planned, delay) = (planned.as_secs_f64(), delay.as_secs_f64());
            assert!(delay >= planned * 0.8 - 1e-6 && delay <= planned * 1.2 + 1e-6, "{delay} near {planned}");
        }
        assert_eq!(backoff(9, Duration::from_millis(10)), Duration::from_millis(216_000), "the last repeats");
    }
}
