//! The usage layer: counts each request of a protected route for billing (`crate::usage`).

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::extract::Auth;
use crate::state::AppState;
use crate::usage::Billable;

/// Route layer of the protected API routes: counts the request, once its token is verified,
/// under the route it matched (`GET /card/{card_id}`), as many times as its answer says it is
/// billed for ([`Billable`]: a batch of 100 transactions enriched is 100). It runs inside the
/// idempotency layer, so a replayed response is not counted again.
pub async fn record_usage(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let billed = if state.usage.is_billing()
        && let Some(auth) = request.extensions().get::<Auth>()
    {
        let method = request.method().as_str();
        let endpoint = request.extensions().get::<MatchedPath>().map_or_else(
            || format!("{method} (unmatched)"),
            |matched| format!("{method} {}", matched.as_str().trim_end_matches('/')),
        );
        Some((auth.subscriber_id, endpoint))
    } else {
        None
    };
    let response = next.run(request).await;
    if let Some((subscriber_id, endpoint)) = billed {
        let units = response.extensions().get::<Billable>().map_or(1, |billable| billable.0.max(1));
        state.usage.record_units(subscriber_id, endpoint, units);
    }
    response
}
