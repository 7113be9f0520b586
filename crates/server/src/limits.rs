//! Rate limits: requests per subscriber (per client address before login), and failed
//! logins per e-mail and client address, so a guesser is slowed without locking the real
//! subscriber out from elsewhere.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use parking_lot::Mutex;

use crate::config::Config;
use crate::error::ApiError;
use crate::state::AppState;

const LOGIN_WINDOW: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Caller {
    Subscriber(i64),
    Address(IpAddr),
}

type RequestLimiter = RateLimiter<Caller, DefaultKeyedStateStore<Caller>, DefaultClock, StateInformationMiddleware>;

pub struct Limits {
    requests: Option<(RequestLimiter, u32)>,
    login_attempts: usize,
    failed_logins: Mutex<HashMap<(String, IpAddr), VecDeque<Instant>>>,
    /// Secret hashes (argon2id, 19 MiB each) run on a few threads of their own. On the blocking
    /// pool, 64 logins at a time spread the hashes over dozens of threads, each of which kept
    /// its 19 MiB in its allocator arena: the memory grew to 2.7 GiB and stayed, and no login
    /// finished sooner on two cores.
    hashing: std::sync::mpsc::Sender<HashJob>,
}

type HashJob = Box<dyn FnOnce() + Send>;

/// `count` threads taking hash jobs from one queue, for the life of the process.
fn hashing_threads(count: usize) -> std::sync::mpsc::Sender<HashJob> {
    let (sender, receiver) = std::sync::mpsc::channel::<HashJob>();
    let receiver = std::sync::Arc::new(Mutex::new(receiver));
    for index in 0..count {
        let receiver = receiver.clone();
        let spawned = std::thread::Builder::new().name(format!("secret-hash-{index}")).spawn(move || {
            loop {
                let job = receiver.lock().recv();
                match job {
                    Ok(job) => job(),
                    Err(_) => return,
                }
            }
        });
        if let Err(error) = spawned {
            tracing::error!(error = %error, "cannot start a secret-hashing thread");
        }
    }
    sender
}

impl Limits {
    pub fn new(config: &Config) -> Self {
        let requests = NonZeroU32::new(config.rate_limit).map(|rate| {
            let burst = NonZeroU32::new(config.rate_limit_burst.max(config.rate_limit)).unwrap_or(rate);
            (
                RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst))
                    .with_middleware::<StateInformationMiddleware>(),
                burst.get(),
            )
        });
        Self {
            requests,
            login_attempts: usize::try_from(config.login_attempts).unwrap_or(usize::MAX),
            failed_logins: Mutex::default(),
            hashing: hashing_threads(std::thread::available_parallelism().map_or(2, std::num::NonZero::get)),
        }
    }

    /// Runs a secret hash (or check) on the hashing threads.
    pub async fn hash<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
        let (done, result) = tokio::sync::oneshot::channel();
        crate::operations::metrics::record_hash_queue(1.0);
        let job: HashJob = Box::new(move || {
            let _ = done.send(work());
            crate::operations::metrics::record_hash_queue(-1.0);
        });
        self.hashing.send(job).map_err(|_| ApiError::internal(anyhow::anyhow!("the hashing threads stopped")))?;
        result.await.map_err(|_| ApiError::internal(anyhow::anyhow!("a secret hash was dropped")))
    }

    /// `Err` with the seconds to wait when this e-mail has failed too often from this address.
    pub fn check_login(&self, email: &str, address: IpAddr) -> Result<(), ApiError> {
        let mut failures = self.failed_logins.lock();
        let Some(times) = failures.get_mut(&(email.to_owned(), address)) else {
            return Ok(());
        };
        let now = Instant::now();
        while times.front().is_some_and(|first| now.duration_since(*first) >= LOGIN_WINDOW) {
            times.pop_front();
        }
        if times.len() < self.login_attempts {
            return Ok(());
        }
        let retry_after =
            times.front().map_or(LOGIN_WINDOW, |first| LOGIN_WINDOW.saturating_sub(now.duration_since(*first)));
        Err(ApiError::RateLimited { retry_after_seconds: retry_after.as_secs().max(1) })
    }

    pub fn record_failed_login(&self, email: &str, address: IpAddr) {
        let mut failures = self.failed_logins.lock();
        // Forget addresses whose window has passed, so the map cannot grow without bound.
        if failures.len() > 100_000 {
            let now = Instant::now();
            failures.retain(|_, times| times.back().is_some_and(|last| now.duration_since(*last) < LOGIN_WINDOW));
        }
        failures.entry((email.to_owned(), address)).or_default().push_back(Instant::now());
    }

    pub fn forget_failed_logins(&self, email: &str, address: IpAddr) {
        self.failed_logins.lock().remove(&(email.to_owned(), address));
    }
}

/// The client's address; loopback when the service runs without connection info (tests of
/// the router alone).
pub fn client_address(request: &Request) -> IpAddr {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |ConnectInfo(address)| address.ip())
}

const LIMIT_HEADER: HeaderName = HeaderName::from_static("ratelimit-limit");
const REMAINING_HEADER: HeaderName = HeaderName::from_static("ratelimit-remaining");

/// Middleware: one bucket per subscriber (by token) or per client address.
pub async fn limit_requests(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let Some((limiter, burst)) = &state.limits.requests else {
        return next.run(request).await;
    };
    let subscriber = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.trim().split_once(' '))
        .and_then(|(_, token)| state.auth.verify_token(token.trim()).ok())
        .map(|(subscriber_id, _)| subscriber_id);
    let caller = subscriber.map_or_else(|| Caller::Address(client_address(&request)), Caller::Subscriber);
    match limiter.check_key(&caller) {
        Ok(snapshot) => {
            let remaining = snapshot.remaining_burst_capacity();
            let mut response = next.run(request).await;
            let headers = response.headers_mut();
            headers.insert(LIMIT_HEADER, HeaderValue::from(*burst));
            headers.insert(REMAINING_HEADER, HeaderValue::from(remaining));
            response
        }
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let retry_after_seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let mut response =
                ApiError::RateLimited { retry_after_seconds: retry_after_seconds.max(1) }.into_response();
            let headers = response.headers_mut();
            headers.insert(LIMIT_HEADER, HeaderValue::from(*burst));
            headers.insert(REMAINING_HEADER, HeaderValue::from(0));
            response
        }
    }
}
