//! The rate-limit layer: each request takes from its caller's bucket (`crate::limits`), keyed
//! by the verified token's subscriber or by the client address (`client_address`).

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::client_address::ClientAddress;
use super::extract::TokenCheck;
use crate::error::ApiError;
use crate::limits::{Admission, Caller, SecretCost};
use crate::state::AppState;
use crate::versions::RenderedAt;

const LIMIT_HEADER: HeaderName = HeaderName::from_static("ratelimit-limit");
const REMAINING_HEADER: HeaderName = HeaderName::from_static("ratelimit-remaining");

/// The routes that cost a secret hash: limited per client address, and rotation per
/// subscriber too (`--credential-rate-limit`), below the general request rate.
fn secret_cost(path: &str) -> SecretCost {
    match path.trim_end_matches('/') {
        "/subscriber/signup" | "/subscriber/login" => SecretCost::Anonymous,
        "/subscriber/secret/rotate" => SecretCost::OfCaller,
        _ => SecretCost::None,
    }
}

/// Middleware, inside `authenticate_requests`: one bucket per subscriber (by verified token)
/// or per client address, and tighter ones on the routes that hash a secret.
pub async fn limit_requests(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let address = request
        .extensions()
        .get::<ClientAddress>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |ClientAddress(address)| *address);
    // A refused token is keyed by address, as no token is: a bad token gets no bucket of its own.
    let caller = match TokenCheck::of(request.extensions()) {
        TokenCheck::Verified(auth) => Caller::Subscriber(auth.subscriber_id),
        TokenCheck::Absent | TokenCheck::Refused => Caller::Address(address),
    };
    match state.limits.admit(&caller, address, secret_cost(request.uri().path())) {
        Admission::Unlimited => next.run(request).await,
        Admission::Admitted { burst, remaining } => {
            let mut response = next.run(request).await;
            let headers = response.headers_mut();
            headers.insert(LIMIT_HEADER, HeaderValue::from(burst));
            headers.insert(REMAINING_HEADER, HeaderValue::from(remaining));
            response
        }
        Admission::Refused { burst, retry_after_seconds } => {
            let mut response = refused(burst, retry_after_seconds);
            // Refused before the version is negotiated (an unknown version is no way past
            // the limiter): written in the version known without the database.
            if let Some(version) = super::versions::known_before_negotiation(&state, &request) {
                response.extensions_mut().insert(RenderedAt(version));
            }
            response
        }
    }
}

/// The 429 of an empty bucket.
fn refused(burst: u32, retry_after_seconds: u64) -> Response {
    let mut response = ApiError::RateLimited { retry_after_seconds }.into_response();
    let headers = response.headers_mut();
    headers.insert(LIMIT_HEADER, HeaderValue::from(burst));
    headers.insert(REMAINING_HEADER, HeaderValue::from(0));
    response
}
