//! The usage layer: counts each request of a protected route for billing (`crate::usage`).

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::extract::Auth;
use crate::state::AppState;

/// Route layer of the protected API routes: counts the request, once its token is verified,
/// under the route it matched (`GET /card/{card_id}`). It runs inside the idempotency layer,
/// so a replayed response is not counted again.
pub async fn record_usage(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.usage.is_billing()
        && let Some(auth) = request.extensions().get::<Auth>()
    {
        let method = request.method().as_str();
        let endpoint = request.extensions().get::<MatchedPath>().map_or_else(
            || format!("{method} (unmatched)"),
            |matched| format!("{method} {}", matched.as_str().trim_end_matches('/')),
        );
        state.usage.record(auth.subscriber_id, endpoint);
    }
    next.run(request).await
}
