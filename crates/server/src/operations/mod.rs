//! What whoever runs the service watches: `GET /healthz` and `GET /readyz` for a load balancer
//! on the service's own listener, and Prometheus metrics on a listener of their own
//! ([`exporter`]).
//!
//! The listener opens before the service has loaded (opening the database, migrating it,
//! loading or generating the merchant directory can take many seconds): during that time the
//! probes answer, `/readyz` says what is missing, and every other request waits until the
//! service is ready. The probes sit outside the API's router: no authentication, no rate
//! limit, no billing, and not in the OpenAPI document (they are not part of the API).

#[cfg(feature = "metrics")]
pub mod exporter;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::from_fn;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use tokio::sync::watch;
use tower::ServiceExt;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::config::LocalGuard;
use crate::http::context;
use crate::state::AppState;

/// The service once it has loaded: its state and its router.
pub struct Running {
    pub state: AppState,
    router: Router,
}

/// Holds requests until the service is ready, and answers the probes meanwhile.
pub struct Gate {
    database: crate::storage::Location,
    running: OnceLock<Running>,
    opened: watch::Sender<bool>,
}

impl Gate {
    pub fn new(database: crate::storage::Location) -> Arc<Self> {
        Arc::new(Self { database, running: OnceLock::new(), opened: watch::channel(false).0 })
    }

    /// Lets requests through to `router`, the service's API over `state`.
    pub fn open(&self, state: AppState, router: Router) {
        if self.running.set(Running { state, router }).is_ok() {
            self.opened.send_replace(true);
        }
    }

    /// The service once loaded (the metrics exporter reads its gauges from it).
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub fn running(&self) -> Option<&Running> {
        self.running.get()
    }

    /// What keeps the service from being ready, empty when it is.
    async fn missing(&self) -> Vec<serde_json::Value> {
        let mut missing = Vec::new();
        // Once running, on a connection the store keeps; before, on one of its own (the store
        // is still opening: connecting, migrating).
        let probe = match self.running.get() {
            Some(running) => running.state.db.probe().await,
            None => crate::storage::probe_location(&self.database).await,
        };
        match probe {
            Ok(0) => {}
            Ok(pending) if pending > 0 => missing.push(json!({
                "check": "migrations",
                "reason": format!("{pending} database migrations are not applied yet"),
            })),
            Ok(_) => missing.push(json!({
                "check": "migrations",
                "reason": "the database was migrated by a newer version of the service",
            })),
            Err(reason) => missing.push(json!({ "check": "database", "reason": reason })),
        }
        if self.running.get().is_none() {
            missing.push(
                json!({ "check": "directory", "reason": "the service is starting: the merchant directory is loading" }),
            );
        }
        missing
    }
}

/// The router of the service's listener at `address`: the probes, then everything else through
/// the gate; all of it behind the local guard when the service has one (`crate::local_guard`).
pub fn router(gate: Arc<Gate>, guard: Option<&LocalGuard>, address: SocketAddr) -> Router {
    let probes = Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route_layer(from_fn(context::record_route))
        .layer(SetResponseHeaderLayer::if_not_present(header::CACHE_CONTROL, HeaderValue::from_static("no-store")))
        .layer(from_fn(context::request_context))
        // Outside the API too, every answer says a version (the first: probes have no other).
        .layer(from_fn(crate::http::versions::label))
        .with_state(Arc::clone(&gate));
    let router = Router::new().merge(probes).fallback_service(tower::service_fn(move |request: Request| {
        let gate = Arc::clone(&gate);
        async move { Ok::<_, Infallible>(forward(&gate, request).await) }
    }));
    crate::local_guard::apply(router, guard, address)
}

async fn forward(gate: &Gate, request: Request) -> Response {
    if gate.running.get().is_none() {
        let mut opened = gate.opened.subscribe();
        if opened.wait_for(|opened| *opened).await.is_err() {
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    }
    match gate.running.get() {
        Some(running) => match running.router.clone().oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        },
        None => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

/// 200 while the process serves.
async fn healthz() -> Response {
    axum::Json(json!({ "status": "ok" })).into_response()
}

/// Which kind of database serves, on every `/readyz` answer: benchmarks check they measured
/// the backend they name.
const BACKEND_HEADER: header::HeaderName = header::HeaderName::from_static("subscriber-backend");

/// 200 when the database answers, its migrations are applied and the directory is loaded;
/// else 503 with what is missing.
async fn readyz(State(gate): State<Arc<Gate>>) -> Response {
    let backend = HeaderValue::from_static(if gate.database.file().is_some() { "sqlite" } else { "postgresql" });
    let mut response = readiness(&gate).await;
    response.headers_mut().insert(BACKEND_HEADER, backend);
    response
}

async fn readiness(gate: &Gate) -> Response {
    let missing = gate.missing().await;
    crate::metrics::record_readiness(missing.is_empty());
    if missing.is_empty() {
        return axum::Json(json!({ "status": "ready" })).into_response();
    }
    let body = json!({
        "status": "not_ready",
        "missing": missing,
        "requestId": crate::request_id::current_request_id(),
    });
    let mut response = (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response();
    // The body already says what is wrong: the contract's error rendering leaves it alone.
    response.extensions_mut().insert(crate::error::RenderedError);
    response
}
