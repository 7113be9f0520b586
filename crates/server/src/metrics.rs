//! Prometheus metrics (`metrics` facade, rendered by `metrics-exporter-prometheus`): what
//! each part of the service records. A leaf: storage, limits and the HTTP layers record here;
//! `operations::exporter` serves them on a listener of their own.
//!
//! Labels are fixed words and route templates (`/card/{card_id}`), never what a client sent:
//! no PAN, e-mail, token or id can become a label, and the number of series stays bounded.
//! Without `--metrics-listen` no recorder is installed and recording costs one atomic load.

#[cfg(feature = "metrics")]
use std::sync::OnceLock;
use std::time::Duration;

use axum::http::Method;
use metrics::{counter, gauge, histogram};
#[cfg(feature = "metrics")]
use metrics::{describe_counter, describe_gauge, describe_histogram};
#[cfg(feature = "metrics")]
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// The label of a request no route matched.
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// Latency buckets, in seconds: from a key lookup to a long stream of history.
#[cfg(feature = "metrics")]
const BUCKETS: [f64; 14] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// One recorder for the process (the `metrics` facade has one global recorder).
#[cfg(feature = "metrics")]
static RECORDER: OnceLock<PrometheusHandle> = OnceLock::new();

#[cfg(feature = "metrics")]
pub(crate) fn recorder() -> anyhow::Result<&'static PrometheusHandle> {
    if let Some(handle) = RECORDER.get() {
        return Ok(handle);
    }
    let handle = PrometheusBuilder::new().set_buckets(&BUCKETS)?.install_recorder()?;
    describe();
    Ok(RECORDER.get_or_init(|| handle))
}

#[cfg(feature = "metrics")]
fn describe() {
    describe_counter!(
        "subscriber_http_requests_total",
        "HTTP requests answered, by route template, method and status."
    );
    describe_histogram!(
        "subscriber_http_request_duration_seconds",
        metrics::Unit::Seconds,
        "Time to answer an HTTP request (to its first byte for streams), by route template and method."
    );
    describe_gauge!("subscriber_open_streams", "Real-time transaction streams open now.");
    describe_histogram!(
        "subscriber_db_query_duration_seconds",
        metrics::Unit::Seconds,
        "Time of a database read or write transaction, a write including its wait for the single writer."
    );
    describe_gauge!("subscriber_db_pool_connections", "Connections of the database read pool, by state (idle, busy).");
    describe_gauge!(
        "subscriber_argon2_queue_depth",
        "Secret hashes (argon2id) queued or running on the hashing threads."
    );
    describe_gauge!(
        "subscriber_webhook_queue_depth",
        "Webhook deliveries waiting for their next attempt (on the instance that delivers)."
    );
    describe_counter!(
        "subscriber_webhook_deliveries_total",
        "Webhook delivery attempts by outcome: delivered, or failed (tried again until it gives up)."
    );
    describe_gauge!("subscriber_ready", "1 when the last readiness check passed, else 0.");
    // Series that exist before anything happens, so a dashboard shows 0 rather than nothing.
    gauge!("subscriber_argon2_queue_depth").set(0.0);
    gauge!("subscriber_webhook_queue_depth").set(0.0);
    for outcome in ["delivered", "failed"] {
        counter!("subscriber_webhook_deliveries_total", "outcome" => outcome).absolute(0);
    }
    gauge!("subscriber_ready").set(0.0);
}

#[cfg(feature = "metrics")]
fn enabled() -> bool {
    RECORDER.get().is_some()
}

/// Without the exporter nothing is ever recorded (the desktop app's embedded sandbox).
#[cfg(not(feature = "metrics"))]
fn enabled() -> bool {
    false
}

/// One answered request. `route` is the matched route template, `None` when no route matched.
pub fn record_request(method: &Method, route: Option<&str>, status: u16, elapsed: Duration) {
    if !enabled() {
        return;
    }
    let method = method_label(method);
    let route = route.unwrap_or(UNMATCHED_ROUTE).to_owned();
    counter!("subscriber_http_requests_total", "method" => method, "route" => route.clone(), "status" => status.to_string())
        .increment(1);
    histogram!("subscriber_http_request_duration_seconds", "method" => method, "route" => route)
        .record(elapsed.as_secs_f64());
}

/// A client may send any method name: only the standard ones become labels.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// One database transaction: `operation` is `read` or `write`.
pub fn record_query(operation: &'static str, elapsed: Duration) {
    if enabled() {
        histogram!("subscriber_db_query_duration_seconds", "operation" => operation).record(elapsed.as_secs_f64());
    }
}

/// A secret hash entered (`+1`) or left (`-1`) the hashing queue.
pub fn record_hash_queue(change: f64) {
    if enabled() {
        gauge!("subscriber_argon2_queue_depth").increment(change);
    }
}

pub fn record_readiness(ready: bool) {
    if enabled() {
        gauge!("subscriber_ready").set(if ready { 1.0 } else { 0.0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusual_methods_share_one_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::from_bytes(b"X4242424242424242").expect("method")), "other");
    }
}
