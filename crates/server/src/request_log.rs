//! Each subscriber's recent API requests (method, path, status, error code, request id,
//! latency), for `GET /subscriber/requests` and the dashboard's Developers area: what the
//! request logs of payment dashboards show a developer debugging an integration.
//!
//! Kept in this process's memory only, bounded three ways:
//! - per subscriber, at most [`KEPT_PER_SUBSCRIBER`] requests and [`BYTES_PER_SUBSCRIBER`]
//!   bytes, no body, no query string, and at most 1 KiB of the path, any card number in it
//!   masked ([`crate::redact::client_path`]);
//! - in time: a request is kept `--request-log-seconds` (a day), then forgotten, and a
//!   subscriber with none left takes no room;
//! - in subscribers: at most `--request-log-subscribers` have requests kept at once. When
//!   that many have, a further subscriber's requests are not kept until some of theirs
//!   expire (and the log says so).
//!
//! Each subscriber's requests push out only its own older ones: no subscriber, however busy
//! and however many accounts it holds, empties another's log. With several instances each
//! keeps its own. The layer that records requests is `http::request_log`.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use subscriber_protocol::LoggedRequest;

/// Requests kept per subscriber.
pub const KEPT_PER_SUBSCRIBER: usize = 100;
/// Bytes kept per subscriber (an entry with a short path is about 250): 100 ordinary requests,
/// or fewer with long paths.
pub const BYTES_PER_SUBSCRIBER: usize = 32 * 1024;
/// The longest between two sweeps of expired requests.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// The shortest between two sweeps when the log is full and a further subscriber asks for
/// room (a sweep visits every kept subscriber).
const SWEEP_WHEN_FULL_EVERY: Duration = Duration::from_secs(1);

/// The subscriber a request was authenticated as, set on the response by the token check.
#[derive(Debug, Clone, Copy)]
pub struct AuthenticatedAs(pub i64);

/// The `code` of an error response, set on the response by the error's rendering.
#[derive(Debug, Clone)]
pub struct ErrorCode(pub String);

#[derive(Default)]
struct Kept {
    /// Oldest first, each with when it was kept.
    requests: VecDeque<(Instant, LoggedRequest)>,
    bytes: usize,
}

impl Kept {
    fn pop_oldest(&mut self) {
        if let Some((_, oldest)) = self.requests.pop_front() {
            self.bytes -= size_of(&oldest);
        }
    }

    /// Forgets the requests kept before `cutoff`.
    fn expire(&mut self, cutoff: Option<Instant>) {
        let Some(cutoff) = cutoff else { return };
        while self.requests.front().is_some_and(|(at, _)| *at < cutoff) {
            self.pop_oldest();
        }
    }
}

struct Subscribers {
    kept: HashMap<i64, Kept>,
    last_sweep: Instant,
    /// When the log last said it was full (at most once a [`SWEEP_EVERY`]).
    said_full_at: Option<Instant>,
}

pub struct RequestLog {
    subscribers: Mutex<Subscribers>,
    subscribers_at_most: usize,
    kept_for: Duration,
}

/// The memory an entry holds: the struct and the text it owns.
fn size_of(request: &LoggedRequest) -> usize {
    std::mem::size_of::<LoggedRequest>()
        + request.method.len()
        + request.path.len()
        + request.request_id.len()
        + request.code.as_ref().map_or(0, String::len)
}

impl RequestLog {
    /// A log keeping requests of at most `subscribers_at_most` subscribers, each for `kept_for`.
    pub fn new(subscribers_at_most: usize, kept_for: Duration) -> Self {
        Self {
            subscribers: Mutex::new(Subscribers {
                kept: HashMap::new(),
                last_sweep: Instant::now(),
                said_full_at: None,
            }),
            subscribers_at_most: subscribers_at_most.max(1),
            kept_for,
        }
    }

    /// Keeps `request` as the subscriber's newest, dropping its oldest beyond the bounds.
    pub fn record(&self, subscriber_id: i64, request: LoggedRequest) {
        self.record_at(subscriber_id, request, Instant::now());
    }

    fn cutoff(&self, now: Instant) -> Option<Instant> {
        now.checked_sub(self.kept_for)
    }

    fn record_at(&self, subscriber_id: i64, mut request: LoggedRequest, now: Instant) {
        request.path = crate::redact::client_path(&request.path);
        let size = size_of(&request);
        let cutoff = self.cutoff(now);
        let mut subscribers = self.subscribers.lock();
        let newcomer_at_capacity =
            !subscribers.kept.contains_key(&subscriber_id) && subscribers.kept.len() >= self.subscribers_at_most;
        let since_sweep = now.duration_since(subscribers.last_sweep);
        if since_sweep >= SWEEP_EVERY.min(self.kept_for)
            || (newcomer_at_capacity && since_sweep >= SWEEP_WHEN_FULL_EVERY)
        {
            subscribers.kept.retain(|_, kept| {
                kept.expire(cutoff);
                !kept.requests.is_empty()
            });
            subscribers.last_sweep = now;
        }
        if !subscribers.kept.contains_key(&subscriber_id) && subscribers.kept.len() >= self.subscribers_at_most {
            // Full: no one's requests make room for this one's (they expire in their time).
            if subscribers.said_full_at.is_none_or(|said| now.duration_since(said) >= SWEEP_EVERY) {
                subscribers.said_full_at = Some(now);
                tracing::warn!(
                    subscribers = self.subscribers_at_most,
                    "the request log is full: requests of further subscribers are not kept until older ones expire \
                     (--request-log-subscribers)"
                );
            }
            return;
        }
        let kept = subscribers.kept.entry(subscriber_id).or_default();
        kept.expire(cutoff);
        while !kept.requests.is_empty()
            && (kept.requests.len() >= KEPT_PER_SUBSCRIBER || kept.bytes + size > BYTES_PER_SUBSCRIBER)
        {
            kept.pop_oldest();
        }
        kept.bytes += size;
        kept.requests.push_back((now, request));
    }

    /// The subscriber's requests, newest first.
    pub fn recent(&self, subscriber_id: i64) -> Vec<LoggedRequest> {
        self.recent_at(subscriber_id, Instant::now())
    }

    fn recent_at(&self, subscriber_id: i64, now: Instant) -> Vec<LoggedRequest> {
        let cutoff = self.cutoff(now);
        self.subscribers
            .lock()
            .kept
            .get(&subscriber_id)
            .map(|kept| {
                kept.requests
                    .iter()
                    .rev()
                    .filter(|(at, _)| cutoff.is_none_or(|cutoff| *at >= cutoff))
                    .map(|(_, request)| request.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str) -> LoggedRequest {
        LoggedRequest {
            method: "GET".to_owned(),
            path: path.to_owned(),
            status: 404,
            code: Some("not_found".to_owned()),
            request_id: "req_0123456789abcdef0123456789abcdef".to_owned(),
            latency_ms: 0.1,
            at: chrono::Utc::now(),
        }
    }

    const DAY: Duration = Duration::from_secs(86_400);

    #[test]
    fn each_subscriber_is_bounded_by_count_and_bytes_and_never_evicts_another() {
        let log = RequestLog::new(10_000, DAY);
        log.record(1, request("/card"));
        for _ in 0..10_000 {
            log.record(2, request(&format!("/x/{}", "a".repeat(60_000))));
        }
        for subscriber in 3..2_000 {
            log.record(subscriber, request("/card"));
        }
        assert_eq!(log.recent(1).len(), 1, "another subscriber's requests never push out this one's");
        let long = log.recent(2);
        assert!(long.iter().all(|kept| kept.path.len() <= crate::redact::PATH_MAX_BYTES));
        let bytes: usize = long.iter().map(size_of).sum();
        assert!(!long.is_empty() && bytes <= BYTES_PER_SUBSCRIBER, "{} entries, {bytes} bytes", long.len());
        for index in 0..150 {
            log.record(1, request(&format!("/card/{index}")));
        }
        let own = log.recent(1);
        assert_eq!(own.len(), KEPT_PER_SUBSCRIBER);
        assert_eq!(own[0].path, "/card/149", "newest first");
    }

    #[test]
    fn at_most_so_many_subscribers_are_kept_and_none_is_pushed_out_for_a_newcomer() {
        let log = RequestLog::new(100, DAY);
        let start = Instant::now();
        for subscriber in 0..10_000 {
            log.record_at(subscriber, request("/card"), start);
        }
        assert_eq!(log.subscribers.lock().kept.len(), 100);
        assert_eq!(log.recent_at(0, start).len(), 1, "the first stay");
        assert!(log.recent_at(5_000, start).is_empty(), "a newcomer waits for room");
        log.record_at(0, request("/card/again"), start);
        assert_eq!(log.recent_at(0, start).len(), 2, "a kept subscriber goes on being kept");
    }

    #[test]
    fn requests_expire_and_an_idle_subscriber_takes_no_room() {
        let kept_for = Duration::from_secs(600);
        let log = RequestLog::new(2, kept_for);
        let start = Instant::now();
        log.record_at(1, request("/old"), start);
        log.record_at(2, request("/card"), start);
        log.record_at(3, request("/card"), start);
        assert!(log.recent_at(3, start).is_empty(), "full");
        let later = start + kept_for + Duration::from_secs(1);
        assert!(log.recent_at(1, later).is_empty(), "expired");
        log.record_at(3, request("/new"), later);
        assert_eq!(log.recent_at(3, later).len(), 1, "the expired subscribers made room");
        assert_eq!(log.subscribers.lock().kept.len(), 1, "and were forgotten");
    }
}
