//! Command-line flags of `subscriber-server`; each can also come from the environment.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use clap::Parser;
use ipnet::IpNet;
use subscriber_protocol::Environment;

pub use crate::logging::LogFormat;
use crate::storage::Location;

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
    /// PostgreSQL database, `postgres://user:password@host:port/name` (or `postgresql://`),
    /// which several instances may share (every instance with the same `--keys` file). Any
    /// other `scheme://` is refused. Default: `subscriber-data.sqlite3` in the user's data
    /// folder (`$XDG_DATA_HOME/subscriber-data`, or systemd's `$STATE_DIRECTORY`).
    #[arg(long, env = "SUBSCRIBER_DATABASE", default_value_t = default_database(),
          value_parser = database_location)]
    pub database: Location,

    /// File of the service's secret keys (token signing, card fingerprints, hosted forms,
    /// idempotency, webhooks), mode 0600, kept apart from the data; created on first start.
    /// Default: the SQLite file's path with `.keys` added; on PostgreSQL, `<database name>.keys`
    /// in the user's data folder (give every instance the same file).
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

    /// Event streams this instance holds open at once, of all subscribers. Each is a
    /// connection: the service raises its open-file limit to the hard limit at start and
    /// refuses a value that limit cannot hold (raise `LimitNOFILE` in the unit, or lower this).
    /// Past it a new stream gets 503 with `Retry-After`; the probes and other requests still
    /// connect.
    #[arg(long, env = "SUBSCRIBER_MAX_STREAMS", default_value_t = 2000)]
    pub max_streams: usize,

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

    /// Days each request stays in the request history (`GET /subscriber/requests`), with its
    /// masked bodies; 0 keeps no history (requests are not recorded).
    #[arg(long, env = "SUBSCRIBER_REQUEST_LOG_DAYS", default_value_t = 14,
          value_parser = clap::value_parser!(u64).range(0..=365))]
    pub request_log_days: u64,

    /// How long a request stays in the request history, in seconds, instead of
    /// `--request-log-days`. For tests.
    #[arg(long, env = "SUBSCRIBER_REQUEST_LOG_SECONDS", hide = true,
          value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub request_log_seconds: Option<u64>,

    /// Longest time a request may take before it is answered 408.
    #[arg(long, env = "SUBSCRIBER_REQUEST_TIMEOUT_SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_seconds: u64,

    /// Longest a database statement, a write's transaction (then its commit) or a connection
    /// attempt may take before the request is answered 503 with Retry-After; waiting for a
    /// pooled connection (or SQLite's writer) gets half of it. Must be shorter than the
    /// request timeout: a hung database then answers 503, never 408.
    #[arg(long, env = "SUBSCRIBER_DATABASE_TIMEOUT_SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub database_timeout_seconds: u64,

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

    /// The most deliveries one webhook endpoint's queue holds; while it is full, new events are
    /// not queued for it but dropped (recorded, and recoverable). For every instance on the
    /// database (the last started sets it).
    #[arg(long, env = "SUBSCRIBER_WEBHOOK_QUEUE_MAX", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub webhook_queue_max: u32,

    /// Addresses of the proxies in front of the service (`CIDR,...`, or single addresses): from
    /// them, and only from them, the client's address is read from `X-Forwarded-For` or
    /// `Forwarded`. Default: none (the connection's address is the client's).
    #[arg(long, env = "SUBSCRIBER_TRUSTED_PROXIES", value_delimiter = ',', value_parser = proxy_range)]
    pub trusted_proxies: Vec<IpNet>,

    /// Lets sandbox webhooks reach loopback and private-network addresses (a developer's own
    /// machine, over http too). Off by default; refused outside the sandbox.
    #[arg(long, env = "SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE")]
    pub webhooks_allow_private: bool,

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

    /// Set by an app that runs the service inside itself, for itself alone (the desktop
    /// dashboard's embedded sandbox): see [`LocalGuard`]. Never a flag: a standalone service
    /// has none.
    #[arg(skip)]
    pub local_guard: Option<LocalGuard>,
}

/// The header that carries a [`LocalGuard`]'s secret (`Subscriber-Local-Secret`).
pub const LOCAL_SECRET_HEADER: &str = "subscriber-local-secret";

/// What a service embedded in an app for that app alone answers (`crate::local_guard`): only
/// requests that name it by its own address in `Host` (`127.0.0.1:<port>` or
/// `localhost:<port>`: a page that reached it through DNS rebinding names its own host), and,
/// but for the hosted pages a person opens in their browser (their one-time link is their
/// credential), only those that carry `secret` in [`LOCAL_SECRET_HEADER`]: a secret the app
/// makes at each launch and tells no one.
#[derive(Clone, PartialEq, Eq)]
pub struct LocalGuard {
    secret: String,
}

impl LocalGuard {
    /// Shortest secret accepted ([`Config::check`]).
    pub const MIN_SECRET_LENGTH: usize = 32;

    /// A guard with `secret` (printable ASCII, at least [`Self::MIN_SECRET_LENGTH`] long).
    pub fn new(secret: impl Into<String>) -> Self {
        Self { secret: secret.into() }
    }

    /// A guard with a fresh secret: 32 random bytes (the thread's cryptographic generator,
    /// seeded by the operating system, as the key file's keys), as 64 hexadecimal digits.
    pub fn random() -> Self {
        use rand::RngCore;
        let mut bytes = [0_u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Self::new(bytes.iter().map(|byte| format!("{byte:02x}")).collect::<String>())
    }

    /// The secret, for the app's own client to send.
    pub fn secret(&self) -> &str {
        &self.secret
    }
}

/// Never printed: a `Config` is logged and shown in errors.
impl std::fmt::Debug for LocalGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalGuard(<secret>)")
    }
}

/// What `--database` accepts: a PostgreSQL address, or a file path that does not look like an
/// address of something else (`mysql://…`, `sqlite:///…`, `postgres:/…`): such a value would
/// otherwise become a SQLite file named after it, in the working folder.
fn database_location(text: &str) -> Result<Location, String> {
    if text.is_empty() {
        return Err("no data folder is known (neither $XDG_DATA_HOME, $HOME nor $STATE_DIRECTORY is set): \
                    give --database a SQLite file path or a postgres:// address"
            .to_owned());
    }
    if text.starts_with("postgres://") || text.starts_with("postgresql://") {
        return Ok(Location::Postgres(text.to_owned()));
    }
    let scheme = text.split_once(':').map(|(scheme, _)| scheme).filter(|scheme| {
        scheme.starts_with(|first: char| first.is_ascii_alphabetic())
            && scheme.chars().all(|character| character.is_ascii_alphanumeric() || "+.-".contains(character))
    });
    if let Some(scheme) = scheme {
        return Err(format!(
            "{scheme}: is not a database this service can use: give a SQLite file path, or a PostgreSQL \
             address starting with postgres:// or postgresql:// (a file whose name starts with `{scheme}:` is \
             written ./{scheme}:…)"
        ));
    }
    Ok(Location::Sqlite(PathBuf::from(text)))
}

/// A trusted proxy's range (`10.0.0.0/8`) or address (`10.1.2.3`).
fn proxy_range(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
        .map(|range| range.trunc())
        .map_err(|_| format!("{text:?} is not an address or a CIDR range (such as 10.0.0.0/8 or ::1)"))
}

/// The folder the service keeps its files in when none is given: systemd's state directory
/// for a service that has one, else the user's data folder. Never the working folder.
pub fn data_folder() -> Option<PathBuf> {
    if let Some(state) = std::env::var_os("STATE_DIRECTORY").filter(|paths| !paths.is_empty()) {
        // systemd lists every StateDirectory=, separated by colons: the first is the service's.
        let first = state.to_string_lossy().split(':').next().unwrap_or_default().to_owned();
        return Some(PathBuf::from(first));
    }
    dirs::data_dir().map(|folder| folder.join("subscriber-data"))
}

/// `subscriber-data.sqlite3` in [`data_folder`]; empty (refused, asking for `--database`)
/// when there is none.
fn default_database() -> Location {
    Location::Sqlite(data_folder().map(|folder| folder.join("subscriber-data.sqlite3")).unwrap_or_default())
}

impl Config {
    /// A sandbox configuration on a free loopback port, for tests and the embedded dashboard.
    pub fn sandbox(database: impl Into<Location>) -> Self {
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
            max_streams: 2000,
            credential_rate_limit: 10,
            credential_rate_limit_burst: 100,
            hash_queue_size: 64,
            login_attempts: 10,
            request_log_days: 14,
            request_log_seconds: None,
            request_timeout_seconds: 30,
            database_timeout_seconds: 10,
            hosted_session_seconds: 900,
            person_questions_seconds: 600,
            person_lock_seconds: 86_400,
            webhook_retry_unit_ms: 1000,
            webhook_queue_max: 10_000,
            trusted_proxies: Vec::new(),
            webhooks_allow_private: false,
            log: "info".to_owned(),
            log_format: LogFormat::Text,
            metrics_listen: None,
            local_guard: None,
        }
    }

    /// Refuses a combination of flags that makes no sense, before anything is opened.
    pub fn check(&self) -> anyhow::Result<()> {
        if let Some(guard) = &self.local_guard
            && (guard.secret.len() < LocalGuard::MIN_SECRET_LENGTH
                || !guard.secret.bytes().all(|byte| byte.is_ascii_graphic()))
        {
            anyhow::bail!(
                "the local guard's secret must be at least {} printable characters, without spaces",
                LocalGuard::MIN_SECRET_LENGTH
            );
        }
        if self.webhooks_allow_private && self.environment != Environment::Sandbox {
            anyhow::bail!(
                "--webhooks-allow-private is for the sandbox only: outside it webhooks go to public https addresses"
            );
        }
        if self.database_timeout_seconds >= self.request_timeout_seconds {
            anyhow::bail!(
                "--database-timeout-seconds ({}) must be shorter than --request-timeout-seconds ({}): a database that \
                 does not answer must get a request 503 with Retry-After before the request itself times out",
                self.database_timeout_seconds,
                self.request_timeout_seconds
            );
        }
        Ok(())
    }

    /// How long the request history keeps a request.
    pub fn request_log_kept_for(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.request_log_seconds.unwrap_or(self.request_log_days.saturating_mul(86_400)))
    }

    /// The service's limits on waiting for the database.
    pub fn database_timeouts(&self) -> crate::storage::Timeouts {
        crate::storage::Timeouts::new(std::time::Duration::from_secs(self.database_timeout_seconds))
    }

    /// The key file: `--keys`; else beside a SQLite file (`<file>.keys`); else, on PostgreSQL,
    /// `<database name>.keys` in [`data_folder`] (every instance needs the same file).
    pub fn key_file(&self) -> anyhow::Result<PathBuf> {
        if let Some(path) = &self.keys {
            return Ok(path.clone());
        }
        if let Some(file) = self.database.file() {
            return Ok(crate::keys::default_path(file));
        }
        let name = self.database.database_name().unwrap_or_else(|| "subscriber-data".to_owned());
        let folder = data_folder().ok_or_else(|| {
            anyhow::anyhow!("no data folder for the PostgreSQL database's key file ($HOME is not set): give --keys")
        })?;
        Ok(folder.join(format!("{name}.keys")))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_a_file_or_a_postgres_address_and_nothing_else() {
        assert!(matches!(database_location("data/x.sqlite3"), Ok(Location::Sqlite(_))));
        assert!(matches!(database_location("/var/lib/x.sqlite3"), Ok(Location::Sqlite(_))));
        assert!(matches!(database_location("./odd:name.sqlite3"), Ok(Location::Sqlite(_))));
        for url in ["postgres://u@h/db", "postgresql://u:p@h:5432/db?sslmode=require"] {
            assert!(matches!(database_location(url), Ok(Location::Postgres(_))), "{url}");
        }
        for refused in
            ["mysql://x", "sqlite:///tmp/x.db", "postgres:/postgres@127.0.0.1:59297/bench", "Postgres://h/db", "file:x"]
        {
            let error = database_location(refused).expect_err(refused);
            assert!(error.contains("postgres://"), "{error}");
        }
        assert!(database_location("").is_err());
    }

    #[test]
    fn trusted_proxies_are_ranges_or_addresses() {
        assert_eq!(proxy_range("10.0.0.0/8").map(|range| range.to_string()), Ok("10.0.0.0/8".to_owned()));
        assert_eq!(proxy_range(" 10.1.2.3 ").map(|range| range.to_string()), Ok("10.1.2.3/32".to_owned()));
        assert_eq!(proxy_range("::1").map(|range| range.to_string()), Ok("::1/128".to_owned()));
        assert!(proxy_range("10.0.0.0/33").is_err());
        assert!(proxy_range("proxy.internal").is_err());
    }

    #[test]
    fn default_files_never_land_in_the_working_folder() {
        let default = default_database();
        let file = default.file().expect("a file");
        assert!(file.as_os_str().is_empty() || file.is_absolute(), "{}", file.display());
        let mut config = Config::sandbox(PathBuf::from("/srv/data/db.sqlite3"));
        assert_eq!(config.key_file().expect("a key file"), PathBuf::from("/srv/data/db.sqlite3.keys"));
        config.database = Location::Postgres("postgres://u@h/ledger".to_owned());
        if let Ok(path) = config.key_file() {
            assert!(path.is_absolute() && path.ends_with("ledger.keys"), "{}", path.display());
        }
    }
}
