//! The layer that keeps each subscriber's recent requests (`crate::request_log`).

use std::time::Instant;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use chrono::Utc;
use subscriber_protocol::LoggedRequest;

use crate::request_log::{AuthenticatedAs, ErrorCode};
use crate::state::AppState;

/// Records each authenticated request once it is answered (outside the token check, which
/// marks the response with its subscriber).
pub async fn record(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    if let Some(AuthenticatedAs(subscriber_id)) = response.extensions().get::<AuthenticatedAs>().copied() {
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
