//! The yardstick of the HTTP benchmarks: a bare axum server answering `{"hello":"world"}`,
//! built with the same crates and profile as the service.

use axum::Router;
use axum::routing::get;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8090".to_owned());
    let app = Router::new().fallback(get(|| async { axum::Json(serde_json::json!({ "hello": "world" })) }));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}
