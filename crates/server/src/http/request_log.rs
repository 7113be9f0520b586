//! The layers that hand each authenticated request to the request history
//! (`crate::request_history`): [`record`] outside the token check (which marks the response with
//! its subscriber) sees the answer; [`capture_body`] inside the router, after the token was
//! verified, keeps what the request sent. Only a beginning of each body is kept (the history
//! keeps 16 KiB); a stream or an export keeps none.

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes, HttpBody, to_bytes};
use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use subscriber_protocol::REQUEST_HISTORY_BODY_BYTES;

use super::context::MatchedRoute;
use super::extract::{BODY_LIMIT, TokenCheck};
use crate::error::ApiError;
use crate::request_history::{Answered, AuthenticatedAs, ErrorCode, RequestLine};
use crate::state::AppState;

/// An answer longer than this is not read for the history (a JSON answer is at most a few MiB).
const ANSWER_READ_AT_MOST: u64 = 8 * 1024 * 1024;

/// What [`capture_body`] kept of the request's body, for [`record`].
#[derive(Clone, Default)]
struct SentBody(Arc<Mutex<Option<Bytes>>>);

/// The beginning of `bytes` the history may keep: `kept` bytes and one more, so a cut shows.
fn beginning(bytes: &[u8], kept: usize) -> Bytes {
    Bytes::copy_from_slice(&bytes[..bytes.len().min(kept + 1)])
}

/// Hands each authenticated request, once answered, to the request history.
pub async fn record(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    if !state.request_history.is_on() {
        return next.run(request).await;
    }
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let query = request.uri().query().map(str::to_owned);
    let route = MatchedRoute::of(&request);
    let sent = SentBody::default();
    request.extensions_mut().insert(sent.clone());
    let at = chrono::Utc::now();
    let started = Instant::now();
    let response = next.run(request).await;
    let Some(AuthenticatedAs(subscriber_id)) = response.extensions().get::<AuthenticatedAs>().copied() else {
        return response;
    };
    let latency_ms = (started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0;
    let code = response.extensions().get::<ErrorCode>().map(|code| code.0.clone());
    let kept = if crate::request_history::is_successful_read(&method, response.status().as_u16()) {
        crate::request_history::READ_ANSWER_BYTES
    } else {
        REQUEST_HISTORY_BODY_BYTES
    };
    let (response, response_body) = answer_body(response, kept).await;
    let request_body = sent.0.lock().take();
    let line = RequestLine {
        subscriber_id,
        request_id: crate::request_id::current_request_id().unwrap_or_default(),
        method,
        route: route.and_then(|route| route.template()),
        path,
        query,
        status: response.status().as_u16(),
        code,
        latency_ms,
        at_ms: at.into(),
    };
    state.request_history.record(Answered { line, request_body, response_body });
    response
}

/// The answer's beginning, when it is JSON of a known length (never a stream or an export),
/// and the answer as it was.
async fn answer_body(response: Response, kept: usize) -> (Response, Option<Bytes>) {
    let is_json =
        response.headers().get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).is_some_and(|value| {
            value.starts_with("application/json") || value.starts_with("application/problem+json")
        });
    let known_length = response.body().size_hint().exact().is_some_and(|length| length <= ANSWER_READ_AT_MOST);
    if !is_json || !known_length {
        return (response, None);
    }
    let (parts, body) = response.into_parts();
    match to_bytes(body, usize::MAX).await {
        Ok(bytes) => {
            let beginning = beginning(&bytes, kept);
            (Response::from_parts(parts, Body::from(bytes)), Some(beginning))
        }
        // A body of a known length that failed to read: the client would have had the same.
        Err(_) => (ApiError::internal(anyhow::anyhow!("an answer's body could not be read")).into_response(), None),
    }
}

/// Inside the router, once the token is verified: keeps the beginning of what the request sent
/// (a card number in it is masked before it is stored) and passes the body on whole.
pub async fn capture_body(request: Request, next: Next) -> Response {
    let sent = request.extensions().get::<SentBody>().cloned();
    let verified = matches!(TokenCheck::of(request.extensions()), TokenCheck::Verified(_));
    let has_body = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let (Some(sent), true, true) = (sent, verified, has_body) else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => bytes,
        Err(_) => return ApiError::PayloadTooLarge.into_response(),
    };
    *sent.0.lock() = Some(beginning(&bytes, REQUEST_HISTORY_BODY_BYTES));
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}
