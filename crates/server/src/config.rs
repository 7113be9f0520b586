//! Command-line flags of `subscriber-server`; each can also come from the environment.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use subscriber_protocol::Environment;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "subscriber-server",
    version,
    // A flag given twice takes the last value, so a wrapper's defaults can be overridden.
    args_override_self = true,
    about = "Subscriber Data: the payment-data API (cards, merchants, discovery, bank accounts, identity).",
    long_about = "Subscriber Data: the payment-data API for subscribers.\n\n\
        Serves the HTTP API over one SQLite file (created and migrated on start), or over a \
        PostgreSQL database several instances share (--database postgres://...). In the sandbox \
        environment it makes its own data: 36 months of history for enrolled test cards, a \
        merchant directory, a simulated bank login, synthetic identities and live point-of-sale \
        transactions. Every flag can also be set through the environment variable shown."
)]
pub struct Config {
    /// Address and port to listen on (port 0 picks a free one).
    #[arg(long, env = "SUBSCRIBER_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Where the data lives, migrated on start: a SQLite file (created when missing), or a
    /// PostgreSQL database, `postgres://user:password@host:port/name`, which several instances
    /// may share (every instance with the same `--keys` file).
    #[arg(long, env = "SUBSCRIBER_DATABASE", default_value = "subscriber-data.sqlite3")]
    pub database: crate::storage::Location,

    /// File of the service's secret keys (token signing, card fingerprints, hosted forms,
    /// idempotency, webhooks), mode 0600, kept apart from the data; created on first start.
    /// Default: the SQLite file's path with `.keys` added; on PostgreSQL, `<database name>.keys`
    /// in the working folder.
    #[arg(long, env = "SUBSCRIBER_KEYS")]
    pub keys: Option<PathBuf>,

    /// sandbox (test data, test cards only), expansion (live credentials) or established
    /// (production: requests are billed).
    #[arg(long, env = "SUBSCRIBER_ENVIRONMENT", default_value = "sandbox")]
    pub environment: Environment,

    /// Lifetime of the tokens a login hands out, in seconds.
    #[arg(long, env = "SUBSCRIBER_TOKEN_VALIDITY_SECONDS", default_value_t = 18_000,
          value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub token_validity_seconds: u64,

    /// Merchants generated into the sandbox merchant directory (once, on first start).
    #[arg(long, env = "SUBSCRIBER_DIRECTORY_SIZE", default_value_t = 50_000,
          value_parser = clap::value_parser!(u32).range(0..=2_000_000))]
    pub directory_size: u32,

    /// Sandbox point-of-sale transactions simulated per minute (0 = off).
    #[arg(long, env = "SUBSCRIBER_SIMULATE_RATE", default_value_t = 0)]
    pub simulate_rate: u32,

    /// Seconds after which a sandbox point-of-sale transaction settles (stops being pending).
    #[arg(long, env = "SUBSCRIBER_SETTLE_AFTER_SECONDS", default_value_t = 120)]
    pub settle_after_seconds: u64,

    /// Seed of everything the sandbox generates (directory, histories, identities).
    #[arg(long, env = "SUBSCRIBER_SANDBOX_SEED", default_value_t = 20_261_122)]
    pub sandbox_seed: u64,

    /// Base URL of the service as a browser reaches it, for the hosted pages' links
    /// (default: http://<listen address>).
    #[arg(long, env = "SUBSCRIBER_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Requests per second each subscriber (or, before login, each client address) may make;
    /// 0 turns the limit off.
    #[arg(long, env = "SUBSCRIBER_RATE_LIMIT", default_value_t = 1000)]
    pub rate_limit: u32,

    /// Requests a subscriber may make at once above the steady rate.
    #[arg(long, env = "SUBSCRIBER_RATE_LIMIT_BURST", default_value_t = 2000)]
    pub rate_limit_burst: u32,

    /// Signup and login requests per second each client address may make (each costs a
    /// secret hash); 0 turns this limit off.
    #[arg(long, env = "SUBSCRIBER_CREDENTIAL_RATE_LIMIT", default_value_t = 10)]
    pub credential_rate_limit: u32,

    /// Signup and login requests a client address may make at once above that rate.
    #[arg(long, env = "SUBSCRIBER_CREDENTIAL_RATE_LIMIT_BURST", default_value_t = 100)]
    pub credential_rate_limit_burst: u32,

    /// Secret hashes (signup, login, rotation) that may wait for a hashing thread; when the
    /// queue is full, such requests are answered 503 with Retry-After.
    #[arg(long, env = "SUBSCRIBER_HASH_QUEUE_SIZE", default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub hash_queue_size: u32,

    /// Failed logins allowed per e-mail address and client address in 15 minutes (three
    /// times as many per client address over all e-mails, five times as many per e-mail
    /// address from all clients); later attempts are refused (429) until the window passes.
    #[arg(long, env = "SUBSCRIBER_LOGIN_ATTEMPTS", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub login_attempts: u32,

    /// Longest time a request may take before it is answered 408.
    #[arg(long, env = "SUBSCRIBER_REQUEST_TIMEOUT_SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_seconds: u64,

    /// Lifetime of a hosted page's one-time link (card entry, bank sign-in), in seconds.
    #[arg(long, env = "SUBSCRIBER_HOSTED_SESSION_SECONDS", default_value_t = 900,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub hosted_session_seconds: u64,

    /// Lifetime of identity-verification questions, in seconds. For tests.
    #[arg(long, env = "SUBSCRIBER_PERSON_QUESTIONS_SECONDS", default_value_t = 600, hide = true,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub person_questions_seconds: u64,

    /// How long three failed identity verifications lock a person, in seconds. For tests.
    #[arg(long, env = "SUBSCRIBER_PERSON_LOCK_SECONDS", default_value_t = 86_400, hide = true,
          value_parser = clap::value_parser!(u64).range(1..=2_592_000))]
    pub person_lock_seconds: u64,

    /// Milliseconds that one second of the webhook retry schedule lasts (10 s, 1 min, 5 min, …
    /// after a failed delivery). For tests.
    #[arg(long, env = "SUBSCRIBER_WEBHOOK_RETRY_UNIT_MS", default_value_t = 1000, hide = true,
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub webhook_retry_unit_ms: u64,

    /// Log filter (tracing's EnvFilter syntax).
    #[arg(long, env = "SUBSCRIBER_LOG", default_value = "info")]
    pub log: String,

    /// Log lines as text (for a person) or JSON (one object per line, for a log collector).
    #[arg(long, env = "SUBSCRIBER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Address and port of a second listener serving Prometheus metrics at `GET /metrics`
    /// (off when unset; keep it off the public network).
    #[arg(long, env = "SUBSCRIBER_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

impl Config {
    /// A sandbox configuration on a free loopback port, for tests and the embedded dashboard.
    pub fn sandbox(database: impl Into<crate::storage::Location>) -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            database: database.into(),
            keys: None,
            environment: Environment::Sandbox,
            token_validity_seconds: 18_000,
            directory_size: 50_000,
            simulate_rate: 0,
            settle_after_seconds: 120,
            sandbox_seed: 20_261_122,
            public_url: None,
            rate_limit: 1000,
            rate_limit_burst: 2000,
            credential_rate_limit: 10,
            credential_rate_limit_burst: 100,
            hash_queue_size: 64,
            login_attempts: 10,
            request_timeout_seconds: 30,
            hosted_session_seconds: 900,
            person_questions_seconds: 600,
            person_lock_seconds: 86_400,
            webhook_retry_unit_ms: 1000,
            log: "info".to_owned(),
            log_format: LogFormat::Text,
            metrics_listen: None,
        }
    }

    /// The base URL of the hosted pages' links: `--public-url`, else the address bound.
    pub fn public_base_url(&self) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{}", self.listen),
        }
    }

    /// Fills in `public_url` from the address actually bound (port 0 becomes the real port;
    /// an unspecified address becomes loopback, which a browser can open).
    pub fn with_bound_address(mut self, bound: SocketAddr) -> Self {
        if self.public_url.is_none() {
            let mut reachable = bound;
            if reachable.ip().is_unspecified() {
                reachable.set_ip(match bound {
                    SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                    SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
                });
            }
            self.public_url = Some(format!("http://{reachable}"));
        }
        self
    }
}
