//! The id of the request being served: chosen once per request by `http::context`, read by
//! the error bodies and the logs. A leaf, so `error` needs nothing of `http`.

use std::future::Future;

use axum::http::{HeaderMap, HeaderName};

pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

tokio::task_local! {
    static REQUEST_ID: String;
}

/// The id of the request being served, for error bodies and logs.
pub fn current_request_id() -> Option<String> {
    REQUEST_ID.try_with(Clone::clone).ok()
}

/// The caller's `X-Request-Id` when it is a sensible id, else a fresh one: time-ordered (UUID
/// version 7), so the request history's index by id grows at its end instead of being written
/// all over at every batch.
pub fn of_request(headers: &HeaderMap) -> String {
    headers
        .get(&REQUEST_ID_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|id| is_acceptable(id))
        .map(str::to_owned)
        .unwrap_or_else(|| format!("req_{}", uuid::Uuid::now_v7().simple()))
}

/// Runs `work` with `request_id` as the current request's id.
pub async fn scope<F: Future>(request_id: String, work: F) -> F::Output {
    REQUEST_ID.scope(request_id, work).await
}

fn is_acceptable(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
}
