//! The assembled API: every resource's routes, the layers around them, and the OpenAPI
//! document they make.

pub mod openapi;

use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{from_fn, from_fn_with_state, map_response};
use axum::response::Response;
use tower_http::timeout::TimeoutLayer;

use crate::error::ApiError;
use crate::http::routes::Routes;
use crate::http::{client_address, context, extract, limit, versions};
use crate::state::AppState;

/// Every route of the service, each resource adding its own.
pub fn routes(state: AppState) -> Routes {
    let routes = Routes::new(state);
    let routes = crate::subscriber::routes(routes);
    let routes = crate::cards::routes(routes);
    let routes = crate::merchants::routes(routes);
    let routes = crate::realtime::routes(routes);
    let routes = crate::sandbox::routes(routes);
    let routes = crate::persons::routes(routes);
    let routes = crate::accounts::routes(routes);
    let routes = crate::users::routes(routes);
    let routes = crate::hosted::routes(routes);
    let routes = crate::discovery::routes(routes);
    let routes = crate::enrichment_api::routes(routes);
    let routes = crate::event_log::routes(routes);
    let routes = crate::webhooks::routes(routes);
    openapi::routes(routes)
}

/// The complete OpenAPI document of the service's JSON API, at the newest version.
pub fn document(state: AppState) -> serde_json::Value {
    let config = state.config.clone();
    let (_, operations) = routes(state).into_parts();
    openapi::complete(operations, &config)
}

/// The document of one version.
pub fn document_at(state: AppState, version: subscriber_protocol::versions::ApiVersion) -> serde_json::Value {
    let mut document = document(state);
    openapi::at_version(version, &mut document);
    document
}

/// The service as an axum router, ready to serve.
pub fn app(state: AppState) -> Router {
    let timeout = Duration::from_secs(state.config.request_timeout_seconds);
    let (router, operations) = routes(state.clone()).into_parts();
    if let Err(error) = openapi::publish(&state, openapi::complete(operations, &state.config)) {
        tracing::error!(error = format!("{error:#}"), "the OpenAPI documents could not be serialized");
    }
    router
        // What a verified request sent, for its request history (before the body is reshaped).
        .route_layer(from_fn(crate::http::request_log::capture_body))
        .route_layer(from_fn(context::record_route))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(extract::BODY_LIMIT))
        // The request's API version: its header, or the pin of the subscriber of its token.
        // Inside the limiter: a flood naming an unknown version is refused like any other.
        .layer(from_fn_with_state(state.clone(), versions::negotiate))
        .layer(from_fn_with_state(state.clone(), limit::limit_requests))
        // Outside the limiter: the one verification of the bearer token the layers inside read.
        .layer(from_fn_with_state(state.clone(), extract::authenticate_requests))
        // Outside the limits that key on it: the client's address, once (`--trusted-proxies`).
        .layer(from_fn_with_state(state.clone(), client_address::resolve))
        // Outside the token check, which marks the response with its subscriber.
        .layer(from_fn_with_state(state.clone(), crate::http::request_log::record))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, timeout))
        // Hosted pages set stricter or page-specific values of their own; these are the defaults.
        .layer(map_response(default_headers))
        .layer(from_fn(context::request_context))
        // Every answer, whatever made it, says the version it is written in.
        .layer(from_fn(versions::label))
        .with_state(state)
}

/// The security headers every answer carries unless it set its own.
async fn default_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        (header::CONTENT_SECURITY_POLICY, "default-src 'none'; frame-ancestors 'none'"),
        (HeaderName::from_static("cross-origin-resource-policy"), "same-origin"),
    ] {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    response
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such path: see the API contract for the routes the service serves")
}
