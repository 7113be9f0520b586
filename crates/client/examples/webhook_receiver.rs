//! A webhook receiver: verifies each delivery's signature and prints the event.
//!
//! ```sh
//! WEBHOOK_SECRET=whsec_… cargo run -p subscriber-client --example webhook_receiver
//! # then register it: POST /webhooks {"url": "http://127.0.0.1:4000/webhooks", "events": ["*"]}
//! ```
//!
//! `WEBHOOK_SECRET` takes the endpoint's secret (both, comma-separated, during the 24 hours
//! after a rotation); `LISTEN` the address (default `127.0.0.1:4000`). A delivery that does not
//! verify is answered 400 and printed as refused; the service retries what is not answered 2xx.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use subscriber_client::webhooks;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let secrets: Vec<String> = std::env::var("WEBHOOK_SECRET")
        .map_err(|_| "set WEBHOOK_SECRET to the endpoint's secret (whsec_…)")?
        .split(',')
        .map(|secret| secret.trim().to_owned())
        .filter(|secret| !secret.is_empty())
        .collect();
    let listen = std::env::var("LISTEN").unwrap_or_else(|_| "127.0.0.1:4000".to_owned());
    let app = Router::new().route("/webhooks", post(receive)).with_state(Arc::new(secrets));
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    println!("receiving webhooks at http://{}/webhooks", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

async fn receive(State(secrets): State<Arc<Vec<String>>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let signature = headers.get(webhooks::HEADER).and_then(|value| value.to_str().ok()).unwrap_or_default();
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    if let Err(error) = webhooks::verify(&secrets, signature, &body, webhooks::DEFAULT_TOLERANCE) {
        eprintln!("refused a delivery: {error}");
        return StatusCode::BAD_REQUEST;
    }
    match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(event) => {
            println!(
                "{} {} {}",
                event["id"].as_str().unwrap_or("?"),
                event["type"].as_str().unwrap_or("?"),
                event["data"]
            );
            StatusCode::OK
        }
        Err(_) => StatusCode::BAD_REQUEST,
    }
}
