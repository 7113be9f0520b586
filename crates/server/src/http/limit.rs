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
use crate::limits::{Admission, Caller};
use crate::state::AppState;

const LIMIT_HEADER: HeaderName = HeaderName::from_static("ratelimit-limit");
const REMAINING_HEADER: HeaderName = HeaderName::from_static("ratelimit-remaining");

/// The routes that cost a secret hash before anyone is known: limited per client address
/// (`--credential-rate-limit`) below the general request rate.
fn costs_a_hash_anonymously(path: &str) -> bool {
    matches!(path.trim_end_matches('/'), "/subscriber/signup" | "/subscriber/login")
}

/// Middleware, inside `authenticate_requests`: one bucket per subscriber (by verified token)
/// or per client address, and a tighter one per client address on signup and login.
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
    match state.limits.admit(&caller, address, costs_a_hash_anonymously(request.uri().path())) {
        Admission::Unlimited => next.run(request).await,
        Admission::Admitted { burst, remaining } => {
            let mut response = next.run(request).await;
            let headers = response.headers_mut();
            headers.insert(LIMIT_HEADER, HeaderValue::from(burst));
            headers.insert(REMAINING_HEADER, HeaderValue::from(remaining));
            response
        }
        Admission::Refused { burst, retry_after_seconds } => refused(burst, retry_after_seconds),
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
