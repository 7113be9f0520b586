//! Per-request context: the request id every response and error body carries, the one log
//! line per request, and the contract's JSON for failures that never reached a handler.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use tracing::Instrument;

use crate::error::{ApiError, RenderedError};
use crate::request_id;

/// Filled after routing with the matched route template, so the log line names the route
/// (`/card/{card_id}`) instead of echoing whatever the client put in the path.
#[derive(Clone, Default)]
struct RouteSlot(Arc<Mutex<Option<MatchedPath>>>);

/// The route a request matches, read once it has been answered (routing fills it in).
#[derive(Clone)]
pub struct MatchedRoute(RouteSlot);

impl MatchedRoute {
    /// The request's, when it passed `request_context`.
    pub fn of(request: &Request) -> Option<Self> {
        request.extensions().get::<RouteSlot>().cloned().map(Self)
    }

    /// The template it matched (`/card/{card_id}`), if any.
    pub fn template(&self) -> Option<String> {
        self.0.0.lock().as_ref().map(|matched| matched.as_str().to_owned())
    }
}

pub async fn request_context(mut request: Request, next: Next) -> Response {
    let request_id = request_id::of_request(request.headers());
    let method = request.method().clone();
    // A cheap copy (shared bytes): the path is read again only when no route matched.
    let uri = request.uri().clone();
    let slot = RouteSlot::default();
    request.extensions_mut().insert(slot.clone());
    // Every line logged while the request is served carries its id, method and route (the
    // route once routing has matched one: `record_route`).
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        method = %method,
        route = tracing::field::Empty,
    );
    let started = Instant::now();

    let mut response =
        request_id::scope(request_id.clone(), async move { render_bare_failure(next.run(request).await) })
            .instrument(span.clone())
            .await;

    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(request_id::REQUEST_ID_HEADER, value);
    }
    let matched = slot.0.lock().take();
    let status = response.status().as_u16();
    let elapsed = started.elapsed();
    crate::metrics::record_request(&method, matched.as_ref().map(MatchedPath::as_str), status, elapsed);
    // A matched route is already in the span (`record_route`); else what the client sent: card
    // numbers masked, control characters escaped, 1 KiB at most.
    if matched.is_none() {
        span.record("route", tracing::field::display(crate::redact::client_path(uri.path())));
    }
    // Rounded to 0.01 ms, a number (not text) in JSON logs.
    let latency_ms = (elapsed.as_secs_f64() * 100_000.0).round() / 100.0;
    span.in_scope(|| tracing::info!(target: "http", status, latency_ms, "request"));
    response
}

/// Runs inside the router, where the matched route is known.
pub async fn record_route(request: Request, next: Next) -> Response {
    if let (Some(slot), Some(matched)) =
        (request.extensions().get::<RouteSlot>(), request.extensions().get::<MatchedPath>())
    {
        tracing::Span::current().record("route", tracing::field::display(matched.as_str()));
        *slot.0.lock() = Some(matched.clone());
    }
    next.run(request).await
}

/// Failures produced by axum or tower (no route, wrong method, body limit, timeouts) come
/// with an empty or plain-text body; give them the contract's JSON too.
fn render_bare_failure(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || response.extensions().get::<RenderedError>().is_some()
    {
        return response;
    }
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::not_found("no such path"),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            ApiError::UnsupportedMediaType("send the body as application/json".to_owned())
        }
        StatusCode::REQUEST_TIMEOUT => ApiError::Timeout,
        StatusCode::TOO_MANY_REQUESTS => ApiError::RateLimited {
            retry_after_seconds: response
                .headers()
                .get(axum::http::header::RETRY_AFTER)
                .and_then(|value| value.to_str().ok())
                .and_then(|text| text.parse().ok())
                .unwrap_or(1),
        },
        StatusCode::UNAUTHORIZED => ApiError::Unauthorized("authentication required".to_owned()),
        StatusCode::FORBIDDEN => ApiError::Forbidden("forbidden".to_owned()),
        status if status.is_client_error() => ApiError::invalid("the request could not be understood"),
        _ => ApiError::Internal(anyhow::anyhow!("unrendered failure with status {status}")),
    };
    let (mut parts, _) = response.into_parts();
    let rendered = error.into_response();
    let (rendered_parts, body) = rendered.into_parts();
    parts.headers.insert(axum::http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.extensions.extend(rendered_parts.extensions);
    // Keep the status axum chose (a 405 stays 405 with its Allow header).
    Response::from_parts(parts, body)
}
