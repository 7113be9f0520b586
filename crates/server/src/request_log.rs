//! Each subscriber's recent API requests (method, path, status, error code, request id,
//! latency), for `GET /subscriber/requests` and the dashboard's Developers area: what the
//! request logs of payment dashboards show a developer debugging an integration.
//!
//! Kept in this process's memory only: per subscriber at most [`KEPT_PER_SUBSCRIBER`] requests
//! and [`BYTES_PER_SUBSCRIBER`] bytes, no body, no query string, and at most 1 KiB of the path,
//! any card number in it masked ([`crate::redact::client_path`]). Each subscriber's requests
//! push out only its own older ones: no subscriber, however busy and however many accounts it
//! holds, empties another's log. With several instances each keeps its own. The layer that
//! records requests is `http::request_log`.

use std::collections::{HashMap, VecDeque};

use parking_lot::Mutex;
use subscriber_protocol::LoggedRequest;

/// Requests kept per subscriber.
pub const KEPT_PER_SUBSCRIBER: usize = 100;
/// Bytes kept per subscriber (an entry with a short path is about 250): 100 ordinary requests,
/// or fewer with long paths.
pub const BYTES_PER_SUBSCRIBER: usize = 32 * 1024;

/// The subscriber a request was authenticated as, set on the response by the token check.
#[derive(Debug, Clone, Copy)]
pub struct Caller(pub i64);

/// The `code` of an error response, set on the response by the error's rendering.
#[derive(Debug, Clone)]
pub struct ErrorCode(pub String);

#[derive(Default)]
struct Kept {
    requests: VecDeque<LoggedRequest>,
    bytes: usize,
}

#[derive(Default)]
pub struct RequestLog {
    subscribers: Mutex<HashMap<i64, Kept>>,
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
    /// Keeps `request` as the subscriber's newest, dropping its oldest beyond the bounds.
    pub fn record(&self, subscriber_id: i64, mut request: LoggedRequest) {
        request.path = crate::redact::client_path(&request.path);
        let size = size_of(&request);
        let mut subscribers = self.subscribers.lock();
        let kept = subscribers.entry(subscriber_id).or_default();
        while !kept.requests.is_empty()
            && (kept.requests.len() >= KEPT_PER_SUBSCRIBER || kept.bytes + size > BYTES_PER_SUBSCRIBER)
        {
            if let Some(oldest) = kept.requests.pop_front() {
                kept.bytes -= size_of(&oldest);
            }
        }
        kept.bytes += size;
        kept.requests.push_back(request);
    }

    /// The subscriber's requests, newest first.
    pub fn recent(&self, subscriber_id: i64) -> Vec<LoggedRequest> {
        self.subscribers
            .lock()
            .get(&subscriber_id)
            .map(|kept| kept.requests.iter().rev().cloned().collect())
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

    #[test]
    fn each_subscriber_is_bounded_by_count_and_bytes_and_never_evicts_another() {
        let log = RequestLog::default();
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
}
