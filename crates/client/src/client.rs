//! The client and its builder.

use std::sync::Arc;
use std::time::Duration;

use crate::auth::{Auth, Credentials, Secret, Token};
use crate::error::{Error, Result};
use crate::metrics::{Metrics, Recorder};

const DEFAULT_USER_AGENT: &str = concat!("subscriber-client/", env!("CARGO_PKG_VERSION"));

/// When and how long the client repeats a call that failed for a passing reason.
///
/// Only calls that are safe to repeat are retried: reads, login, and creating POSTs (sent with
/// an `Idempotency-Key`, so the service replays the first answer instead of creating twice).
/// Retried on 429 (waiting as long as `Retry-After` says), 502, 503, 504, timeouts and broken
/// connections; a connection that could not be opened at all is retried for every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included. 1 disables retries.
    pub max_attempts: u32,
    /// No retry starts after this long since the first attempt, nor waits past it.
    pub max_elapsed: Duration,
    /// Wait before the first retry; doubles each time, with jitter.
    pub initial_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            max_elapsed: Duration::from_secs(30),
            initial_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    pub fn none() -> Self {
        Self { max_attempts: 1, ..Self::default() }
    }

    /// The wait before retry number `retry` (1-based): exponential, capped, jittered into its
    /// upper half so clients that failed together do not retry together.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let exponent = retry.saturating_sub(1).min(16);
        let full = self.initial_delay.saturating_mul(1 << exponent).min(self.max_delay);
        let jitter = rand::random::<f64>();
        full.mul_f64(0.5 + jitter / 2.0)
    }
}

/// How real-time streams behave when their connection drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamPolicy {
    /// No bytes (events or keep-alive comments) for this long: the connection is taken as dead.
    pub idle_timeout: Duration,
    /// Failed reconnections in a row before the stream gives up with the last error.
    pub max_reconnect_attempts: u32,
}

impl Default for StreamPolicy {
    fn default() -> Self {
        Self { idle_timeout: Duration::from_secs(90), max_reconnect_attempts: 30 }
    }
}

/// A typed client of the Subscriber Data API. Cheap to clone: clones share the connection pool,
/// the token and the metrics.
///
/// Build one with [`Client::builder`]. See the [crate documentation](crate) for examples.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub http: reqwest::Client,
    /// Without a trailing slash.
    pub base_url: String,
    pub auth: Auth,
    pub retry: RetryPolicy,
    pub request_timeout: Duration,
    pub stream: StreamPolicy,
    pub metrics: Recorder,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base_url)
            .field("credentials", &self.inner.auth.credentials())
            .field("retry", &self.inner.retry)
            .field("request_timeout", &self.inner.request_timeout)
            .finish_non_exhaustive()
    }
}

impl Client {
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client that uses `token` (from an earlier login) until the service says it has expired.
    /// Without credentials it cannot log in again: calls then fail with `token_expired`.
    pub fn from_token(base_url: impl Into<String>, token: impl Into<Secret>) -> Result<Self> {
        Self::builder().base_url(base_url).token(token).build()
    }

    /// The service's address, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    /// The token held now, if any (to hand to another process; never log it).
    pub async fn token(&self) -> Option<Secret> {
        self.inner.auth.current().await.map(|token| token.value)
    }

    /// Counters of what this client (and its clones) has done.
    pub fn metrics(&self) -> Metrics {
        self.inner.metrics.snapshot()
    }
}

/// Builds a [`Client`]: `Client::builder().base_url(..).credentials(email, secret).build()`.
#[derive(Default)]
pub struct ClientBuilder {
    base_url: Option<String>,
    credentials: Option<Credentials>,
    token: Option<(Secret, Option<Duration>)>,
    user_agent: Option<String>,
    connect_timeout: Option<Duration>,
    request_timeout: Option<Duration>,
    pool_idle_timeout: Option<Duration>,
    retry: RetryPolicy,
    stream: StreamPolicy,
    http: Option<reqwest::Client>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("credentials", &self.credentials)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The service's address, e.g. `http://127.0.0.1:8080` (a path prefix is kept).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self
    }

    /// Logs in with these lazily, before the first call that needs a token, and again before
    /// the token expires.
    pub fn credentials(mut self, email: impl Into<String>, secret: impl Into<Secret>) -> Self {
        self.credentials = Some(Credentials::new(email, secret));
        self
    }

    /// Starts with this token (from an earlier login). With credentials too, the client logs in
    /// again once the service answers `token_expired`.
    pub fn token(mut self, token: impl Into<Secret>) -> Self {
        self.token = Some((token.into(), None));
        self
    }

    /// Starts with this token, still valid for `remaining`: renewed shortly before, like a
    /// token of the client's own login.
    pub fn token_valid_for(mut self, token: impl Into<Secret>, remaining: Duration) -> Self {
        self.token = Some((token.into(), Some(remaining)));
        self
    }

    /// Put in front of the client's own `subscriber-client/<version>`.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// To open a connection (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Per attempt, from sending to the last byte of the answer (default 30 s). Real-time
    /// streams have no such limit; see [`stream_idle_timeout`](Self::stream_idle_timeout).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// How long an unused connection stays open for reuse (default 90 s).
    pub fn pool_idle_timeout(mut self, timeout: Duration) -> Self {
        self.pool_idle_timeout = Some(timeout);
        self
    }

    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// A stream that receives nothing (not even a keep-alive comment) for this long reconnects
    /// (default 90 s).
    pub fn stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.stream.idle_timeout = timeout;
        self
    }

    /// Failed reconnections in a row before a stream ends with the error (default 30).
    pub fn stream_reconnect_attempts(mut self, attempts: u32) -> Self {
        self.stream.max_reconnect_attempts = attempts;
        self
    }

    /// Shares an existing `reqwest` client (and its pool) instead of making one; the user
    /// agent and timeouts of this builder then apply only where set per request.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    pub fn build(self) -> Result<Client> {
        let base_url = normalize_base_url(self.base_url.as_deref())?;
        let user_agent = match &self.user_agent {
            Some(prefix) => format!("{prefix} {DEFAULT_USER_AGENT}"),
            None => DEFAULT_USER_AGENT.to_owned(),
        };
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .user_agent(user_agent)
                .connect_timeout(self.connect_timeout.unwrap_or(Duration::from_secs(10)))
                .pool_idle_timeout(self.pool_idle_timeout.unwrap_or(Duration::from_secs(90)))
                .build()
                .map_err(|error| Error::Transport {
                    endpoint: "client setup".to_owned(),
                    timed_out: false,
                    source: Box::new(error),
                })?,
        };
        if self.retry.max_attempts == 0 {
            return Err(Error::invalid("retry_policy.max_attempts", "must be at least 1 (1 disables retries)"));
        }
        let token = self.token.map(|(value, validity)| Token::external(value, validity));
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base_url,
                auth: Auth::new(self.credentials, token),
                retry: self.retry,
                request_timeout: self.request_timeout.unwrap_or(Duration::from_secs(30)),
                stream: self.stream,
                metrics: Recorder::default(),
            }),
        })
    }
}

fn normalize_base_url(base_url: Option<&str>) -> Result<String> {
    let base_url = base_url.ok_or_else(|| Error::invalid("base_url", "is required, e.g. http://127.0.0.1:8080"))?;
    let parsed = reqwest::Url::parse(base_url.trim())
        .map_err(|error| Error::invalid("base_url", format!("is not a URL ({error}): {base_url:?}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(Error::invalid("base_url", format!("must be an http or https address, not {base_url:?}")));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(Error::invalid("base_url", "must not carry a query or a fragment"));
    }
    Ok(parsed.as_str().trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked_and_lose_their_trailing_slash() {
        assert_eq!(normalize_base_url(Some("http://127.0.0.1:8080/")).ok().as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(
            normalize_base_url(Some("https://api.example.com/v1/")).ok().as_deref(),
            Some("https://api.example.com/v1")
        );
        for bad in ["", "127.0.0.1:8080", "ftp://example.com", "http://example.com/?a=b"] {
            assert!(
                matches!(normalize_base_url(Some(bad)), Err(Error::InvalidInput { ref field, .. }) if field == "base_url"),
                "{bad:?} accepted"
            );
        }
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let policy = RetryPolicy::default();
        for retry in 1..=10 {
            let full = policy.initial_delay.saturating_mul(1 << (retry - 1)).min(policy.max_delay);
            let delay = policy.backoff(retry);
            assert!(delay >= full / 2 && delay <= full, "retry {retry}: {delay:?} outside {full:?}");
        }
    }

    #[test]
    fn debug_never_shows_the_secret_or_the_token() {
        let builder = Client::builder()
            .base_url("http://127.0.0.1:1")
            .credentials("dev@example.com", "sk_test_hidden")
            .token("eyJ.hidden.token");
        assert!(!format!("{builder:?}").contains("hidden"));
        let client = builder.build().expect("builds");
        let shown = format!("{client:?}");
        assert!(shown.contains("dev@example.com"), "{shown}");
        assert!(!shown.contains("hidden"), "{shown}");
    }
}
