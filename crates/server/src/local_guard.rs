//! The guard of a service that runs inside an app for that app alone (`Config::local_guard`: the
//! desktop dashboard's embedded sandbox). A web page must not be able to use it, even one on the
//! same machine, even after DNS rebinding (a name of the page's that now resolves to 127.0.0.1,
//! so the browser thinks the service is the page's own origin):
//! - `Host` must name the service by its own address (`127.0.0.1:<port>` or `localhost:<port>`),
//!   which a rebound page never does (it names its own host);
//! - every request but the hosted pages' must carry the app's secret of this launch
//!   ([`LOCAL_SECRET_HEADER`]), which no page knows. The hosted pages (card entry, the sandbox
//!   bank) are opened by a person in their browser, which cannot add a header: their one-time
//!   link is their credential, as on any service.
//!
//! Applied once, around everything the listener serves (`operations::router`); the default
//! service has no guard.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::config::{LOCAL_SECRET_HEADER, LocalGuard};
use crate::error::ApiError;
use crate::request_id;

/// Where the hosted pages live (`/secure/card`, `/secure/bank/...`, their stylesheet): the only
/// paths served without the secret.
pub const HOSTED_PREFIX: &str = "/secure/";

/// The guard of one listener.
struct Guard {
    /// `Host` values that name this service.
    hosts: [String; 2],
    /// A key of this process's, to compare the secret in constant time (as HMACs).
    key: [u8; 32],
    expected: Vec<u8>,
}

impl Guard {
    fn new(guard: &LocalGuard, address: SocketAddr) -> Self {
        use rand::RngCore;
        let mut key = [0_u8; 32];
        rand::rng().fill_bytes(&mut key);
        let hosts = [address.to_string(), format!("localhost:{}", address.port())];
        let expected = keyed(&key).chain_update(guard.secret()).finalize().into_bytes().to_vec();
        Self { hosts, key, expected }
    }

    /// Why `request` is refused, if it is.
    fn refusal(&self, request: &Request) -> Option<ApiError> {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .or_else(|| request.uri().authority().map(|authority| authority.as_str()));
        if !host.is_some_and(|host| self.hosts.iter().any(|own| own.eq_ignore_ascii_case(host))) {
            return Some(ApiError::Forbidden(format!(
                "this service runs inside the desktop app and answers only as {} or {}",
                self.hosts[0], self.hosts[1]
            )));
        }
        if request.uri().path().starts_with(HOSTED_PREFIX) {
            return None;
        }
        let presented = request.headers().get(LOCAL_SECRET_HEADER).map(HeaderValue::as_bytes).unwrap_or_default();
        if keyed(&self.key).chain_update(presented).verify_slice(&self.expected).is_err() {
            return Some(ApiError::Forbidden(format!(
                "this service runs inside the desktop app for it alone: requests carry the app's {LOCAL_SECRET_HEADER}"
            )));
        }
        None
    }
}

fn keyed(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC accepts keys of every length")
}

/// `router` behind the guard, when there is one, for the listener bound at `address`.
pub fn apply(router: Router, guard: Option<&LocalGuard>, address: SocketAddr) -> Router {
    match guard {
        Some(guard) => router.layer(from_fn_with_state(Arc::new(Guard::new(guard, address)), check)),
        None => router,
    }
}

async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    match guard.refusal(&request) {
        None => next.run(request).await,
        Some(error) => {
            let request_id = request_id::of_request(request.headers());
            let route = crate::redact::client_path(request.uri().path());
            refuse(request_id, request.method().to_string(), route, error).await
        }
    }
}

/// The contract's error, with the request's id (in the body, the header and the log line) and
/// the version label, as every answer has: the refusal comes before the layers that add them.
async fn refuse(request_id: String, method: String, route: String, error: ApiError) -> Response {
    request_id::scope(request_id.clone(), async move {
        tracing::warn!(request_id, %method, %route, "refused by the local guard: {error}");
        let mut response = error.into_response();
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            response.headers_mut().insert(request_id::REQUEST_ID_HEADER, value);
        }
        response.headers_mut().insert(
            crate::http::versions::VERSION_HEADER,
            HeaderValue::from_static(subscriber_protocol::versions::ApiVersion::INITIAL.as_str()),
        );
        response
    })
    .await
}

#[cfg(test)]
mod tests {
    use axum::body::Body;

    use super::*;

    fn guard() -> Guard {
        Guard::new(&LocalGuard::new("s".repeat(40)), SocketAddr::from(([127, 0, 0, 1], 41_234)))
    }

    fn request(path: &str, host: Option<&str>, secret: Option<&str>) -> Request {
        let mut request = Request::builder().uri(path);
        if let Some(host) = host {
            request = request.header(header::HOST, host);
        }
        if let Some(secret) = secret {
            request = request.header(LOCAL_SECRET_HEADER, secret);
        }
        request.body(Body::empty()).expect("a request")
    }

    #[test]
    fn only_its_own_host_with_the_secret_passes() {
        let guard = guard();
        let secret = "s".repeat(40);
        for host in ["127.0.0.1:41234", "localhost:41234", "LOCALHOST:41234"] {
            assert!(guard.refusal(&request("/card", Some(host), Some(&secret))).is_none(), "{host}");
        }
        for host in
            [None, Some("rebound.example:41234"), Some("127.0.0.1"), Some("127.0.0.1:41235"), Some("[::1]:41234")]
        {
            let refused = guard.refusal(&request("/card", host, Some(&secret))).expect("refused");
            assert_eq!(refused.status(), axum::http::StatusCode::FORBIDDEN, "{host:?}");
        }
        for wrong in [None, Some(""), Some("s"), Some(&*"s".repeat(41)), Some(&*"t".repeat(40))] {
            assert!(guard.refusal(&request("/card", Some("127.0.0.1:41234"), wrong)).is_some(), "{wrong:?}");
        }
    }

    #[test]
    fn the_hosted_pages_need_their_host_but_not_the_secret() {
        let guard = guard();
        for path in [
            crate::hosted::page::STYLESHEET_PATH,
            crate::cards::session::PAGE_PATH,
            crate::accounts::LOGIN_PATH,
            crate::accounts::CONSENT_PATH,
        ] {
            assert!(path.starts_with(HOSTED_PREFIX), "{path} is a hosted page outside {HOSTED_PREFIX}");
            let page = format!("{path}?session=abc");
            assert!(guard.refusal(&request(&page, Some("127.0.0.1:41234"), None)).is_none(), "{path}");
            assert!(guard.refusal(&request(&page, Some("rebound.example"), None)).is_some(), "{path}");
        }
        for api in ["/secure", "/securex/card", "/subscriber/signup", "/healthz", "/openapi.json"] {
            assert!(guard.refusal(&request(api, Some("127.0.0.1:41234"), None)).is_some(), "{api}");
        }
    }
}
