//! `GET /metrics` on a listener of its own (`--metrics-listen`), so the metrics never share a
//! port, a rate limit or a router with the API.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use metrics::gauge;
use metrics_exporter_prometheus::PrometheusHandle;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::Gate;

/// Binds `address` and serves `GET /metrics` there until the returned task is aborted.
pub async fn serve(address: SocketAddr, gate: Arc<Gate>) -> anyhow::Result<JoinHandle<()>> {
    let handle = crate::metrics::recorder()?;
    let listener = TcpListener::bind(address).await?;
    let bound = listener.local_addr()?;
    let app = Router::new().route("/metrics", get(render)).with_state((handle, gate));
    tracing::info!("metrics on http://{bound}/metrics");
    Ok(tokio::spawn(tracing::Instrument::instrument(
        async move {
            if let Err(error) = axum::serve(listener, app).await {
                tracing::error!(error = %error, "the metrics listener stopped");
            }
        },
        crate::logging::task_span("metrics listener"),
    )))
}

/// Gauges read at scrape time, then the text exposition format.
async fn render(State((handle, gate)): State<(&'static PrometheusHandle, Arc<Gate>)>) -> Response {
    if let Some(running) = gate.running() {
        let (open, idle) = running.state.db.pool_connections();
        gauge!("subscriber_db_pool_connections", "state" => "idle").set(f64::from(idle));
        gauge!("subscriber_db_pool_connections", "state" => "busy").set(f64::from(open.saturating_sub(idle)));
        gauge!("subscriber_open_streams").set(running.state.events.open_streams() as f64);
    }
    handle.run_upkeep();
    let mut response = handle.render().into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    response
}
