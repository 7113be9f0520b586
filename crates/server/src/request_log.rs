//! Each subscriber's recent API requests (method, path, status, error code, request id,
//! latency), for `GET /subscriber/requests` and the dashboard's Developers area: what the
//! request logs of payment dashboards show a developer debugging an integration.
//!
//! Kept in this process's memory only: the last [`KEPT_PER_SUBSCRIBER`] requests of each
//! subscriber, no body, no query string, and the path with any run of 12+ digits masked (a card
//! number typed into a URL is never kept). With several instances each keeps its own.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use chrono::Utc;
use parking_lot::Mutex;
use subscriber_protocol::LoggedRequest;

use crate::state::AppState;

/// Requests kept per subscriber.
pub const KEPT_PER_SUBSCRIBER: usize = 100;
/// Subscribers kept at once; past it the log starts afresh (a bound on memory).
const SUBSCRIBERS_MAX: usize = 20_000;

/// The subscriber a request was authenticated as, set on the response by the token check.
#[derive(Debug, Clone, Copy)]
pub struct Caller(pub i64);

/// The `code` of an error response, set on the response by the error's rendering.
#[derive(Debug, Clone)]
pub struct ErrorCode(pub String);

#[derive(Default)]
pub struct RequestLog {
    requests: Mutex<HashMap<i64, VecDeque<LoggedRequest>>>,
}

impl RequestLog {
    pub fn record(&self, subscriber_id: i64, request: LoggedRequest) {
        let mut requests = self.requests.lock();
        if requests.len() >= SUBSCRIBERS_MAX && !requests.contains_key(&subscriber_id) {
            requests.clear();
        }
        let kept = requests.entry(subscriber_id).or_default();
        if kept.len() >= KEPT_PER_SUBSCRIBER {
            kept.pop_front();
        }
        kept.push_back(request);
    }

    /// The subscriber's requests, newest first.
    pub fn recent(&self, subscriber_id: i64) -> Vec<LoggedRequest> {
        self.requests.lock().get(&subscriber_id).map(|kept| kept.iter().rev().cloned().collect()).unwrap_or_default()
    }
}

/// Records each authenticated request once it is answered.
pub async fn record(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let method = request.method().to_string();
    let path = crate::http::context::mask_long_digit_runs(request.uri().path());
    let started = Instant::now();
    let response = next.run(request).await;
    if let Some(Caller(subscriber_id)) = response.extensions().get::<Caller>().copied() {
        let latency_ms = (started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0;
        state.request_log.record(
            subscriber_id,
            LoggedRequest {
                method,
                path,
                status: response.status().as_u16(),
                code: response.extensions().get::<ErrorCode>().map(|code| code.0.clone()),
                request_id: crate::request_id::current_request_id().unwrap_or_default(),
                latency_ms,
                at: Utc::now(),
            },
        );
    }
    response
}
