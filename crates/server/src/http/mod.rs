//! The HTTP face of the service: routes of every resource, and the layers around them.

pub mod context;
pub mod extract;
pub mod idempotency;
pub mod routes;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn;

use crate::error::ApiError;
use crate::state::AppState;
use routes::Routes;

/// Every route of the service, each resource adding its own.
pub fn routes(state: AppState) -> Routes {
    let routes = Routes::new(state);
    let routes = crate::subscriber::routes(routes);
    let routes = crate::cards::routes(routes);
    let routes = crate::persons::routes(routes);
    let routes = crate::accounts::routes(routes);
    crate::hosted::routes(routes)
}

/// The service as an axum router, ready to serve.
pub fn app(state: AppState) -> Router {
    let routes = routes(state.clone());
    routes
        .into_router()
        .route_layer(from_fn(context::record_route))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(extract::BODY_LIMIT))
        .layer(from_fn(context::request_context))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such path: see the API contract for the routes the service serves")
}
