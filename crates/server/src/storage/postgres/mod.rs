//! PostgreSQL: tokio-postgres on the service's runtime, through a deadpool pool of connections
//! that keep their prepared statements.
//!
//! Round trips are what a write costs when the database is on another host, so:
//! - statements that do not wait on each other's results are sent together: futures on one
//!   connection are pipelined by the driver, and [`Database::write`] sends `BEGIN` with the
//!   first of them; a write that needs one statement is one statement (a CTE), with no
//!   `BEGIN`/`COMMIT` of its own;
//! - bulk rows (a card's history, the directory) go in with `COPY … FROM STDIN (FORMAT binary)`;
//! - other instances are told after the commit, not inside it (a `NOTIFY` in a transaction
//!   takes a lock every notifying commit in the cluster waits on), by one task that batches.
//!
//! No lock is held by every write: a write that records events first locks the rows of the
//! subscribers who will see them (in id order, so two writes never wait on each other in a
//! cycle), which keeps each subscriber's events committing in id order while writes of
//! different subscribers run at once.

pub mod bank_accounts;
pub mod card_sessions;
pub mod cards;
pub mod directory;
pub mod events;
pub mod idempotency;
pub mod keys;
pub mod login_failures;
pub mod merchants;
pub mod persons;
mod pooler;
pub mod removals;
pub mod request_history;
pub mod rows;
pub mod sandbox;
pub mod snapshots;
pub mod stream_places;
pub mod transactions;
pub mod usage;
pub mod webhooks;

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use deadpool::managed::{Metrics, RecycleError, RecycleResult};
use deadpool_postgres::{ManagerConfig, RecyclingMethod, Runtime};
use futures::future::BoxFuture;
use parking_lot::Mutex;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Notification, Row, Socket};
use tracing::Instrument;

use super::outage::{Outage, Timeouts};
use super::{StorageError, StorageResult};

/// A pooled connection, as the statements of every operation see it.
pub type Client = Connection;

/// A pooled connection on loan: back to the pool when dropped, unless broken.
pub type Pooled = deadpool::managed::Object<Manager>;

pub(super) type Pool = deadpool::managed::Pool<Manager>;

/// Parameters of a statement.
pub type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// PostgreSQL migrations, oldest first; `0001` is SQLite's schema after its `0010`. Never
/// edit one that has shipped: add the next here and SQLite's beside it.
const MIGRATIONS: &[&str] = &[
    include_str!("../../../migrations/postgres/0001_schema.sql"),
    include_str!("../../../migrations/postgres/0002_scale_out.sql"),
    include_str!("../../../migrations/postgres/0003_api_versions.sql"),
    include_str!("../../../migrations/postgres/0004_delivery_queue.sql"),
    include_str!("../../../migrations/postgres/0005_stream_places.sql"),
    include_str!("../../../migrations/postgres/0006_fair_delivery.sql"),
    include_str!("../../../migrations/postgres/0007_subscriber_branding.sql"),
    include_str!("../../../migrations/postgres/0008_labels.sql"),
    include_str!("../../../migrations/postgres/0009_bank_consent.sql"),
    include_str!("../../../migrations/postgres/0010_person_sessions.sql"),
    include_str!("../../../migrations/postgres/0011_sandbox_scenarios.sql"),
    include_str!("../../../migrations/postgres/0012_request_history.sql"),
    include_str!("../../../migrations/postgres/0013_sandbox_snapshots.sql"),
    include_str!("../../../migrations/postgres/0014_request_answers.sql"),
];

/// Held while migrating, so instances started together migrate once ("SDW" + 2).
const MIGRATION_LOCK: i64 = 0x5344_5702;

/// Connections per instance.
pub(super) const POOL_SIZE: usize = 32;

/// How long a readiness answer is reused.
const PROBE_REUSE: Duration = Duration::from_secs(1);

/// Longest a readiness probe waits for the database (a load balancer asks every few seconds).
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Longest a statement of maintenance work may take (the directory's bulk load, hourly
/// purges of a large table): far beyond any request's, which it never holds up.
pub const MAINTENANCE_LIMIT: Duration = Duration::from_secs(600);

/// Times a write that met a serialization failure or a deadlock runs again ([`Database::write_again`]).
const WRITE_RETRIES: u32 = 3;

/// The channel other instances listen on.
pub const CHANNEL: &str = "subscriber_changes";

pub struct Database {
    pool: Pool,
    config: tokio_postgres::Config,
    connector: Connector,
    timeouts: Timeouts,
    /// Payloads to `NOTIFY` once committed, sent by one task in batches.
    notices: mpsc::UnboundedSender<String>,
    probed: Mutex<Option<(Instant, Result<i32, &'static str>)>>,
    /// The readiness probe's own connection (never one of the pool's, which may all be taken).
    probe_session: tokio::sync::Mutex<Option<Session>>,
    deliveries: std::sync::Arc<tokio::sync::Notify>,
    /// Look-ups of owners' newest events, answered together by one task (`events::newest_of`).
    newest_asks: mpsc::UnboundedSender<events::NewestAsk>,
}

/// A pooled connection: the driver's client with its statement cache, and what the pool must
/// know of it.
pub struct Connection {
    client: deadpool_postgres::ClientWrapper,
    /// The limit of each statement, in milliseconds (maintenance work raises it for its loan).
    limit_ms: AtomicU64,
    /// A statement on it ran out of time: its answer may still come, and would be taken for the
    /// next statement's, so it is never lent again (dropping it closes the socket: the server
    /// rolls back whatever it has not committed).
    broken: AtomicBool,
}

impl Deref for Connection {
    type Target = deadpool_postgres::ClientWrapper;

    fn deref(&self) -> &Self::Target {
        &self.client
    }
}

impl Connection {
    /// The limit of each statement on this connection.
    pub fn limit(&self) -> Duration {
        Duration::from_millis(self.limit_ms.load(Ordering::Relaxed))
    }

    fn set_limit(&self, limit: Duration) {
        self.limit_ms.store(millis(limit), Ordering::Relaxed);
    }

    fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    fn set_broken(&self) {
        self.broken.store(true, Ordering::Relaxed);
    }

    /// `work` (a statement, or statements sent together) within the limit; running out breaks
    /// the connection.
    pub async fn within<T>(&self, work: impl Future<Output = Result<T, tokio_postgres::Error>>) -> StorageResult<T> {
        let limit = self.limit();
        match tokio::time::timeout(limit, work).await {
            Ok(result) => Ok(result?),
            Err(_) => {
                self.set_broken();
                Err(StorageError::timed_out("a database statement", limit))
            }
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Makes and recycles the pool's connections: deadpool-postgres's manager, with the service's
/// statement limit on each connection, and broken connections never lent again.
pub struct Manager {
    inner: deadpool_postgres::Manager,
    statement: Duration,
}

impl deadpool::managed::Manager for Manager {
    type Type = Connection;
    type Error = tokio_postgres::Error;

    async fn create(&self) -> Result<Connection, tokio_postgres::Error> {
        let client = self.inner.create().await?;
        // The locks are prepared before anything else: a statement whose preparation is a
        // round trip is sent after the statements pipelined beside it, and a lock must go
        // before the statements it guards (see `write`).
        for lock in [LOCK_SUBSCRIBERS, LOCK_ACCOUNT_OWNER] {
            client.prepare_cached(lock).await?;
        }
        Ok(Connection { client, limit_ms: AtomicU64::new(millis(self.statement)), broken: AtomicBool::new(false) })
    }

    async fn recycle(&self, connection: &mut Connection, metrics: &Metrics) -> RecycleResult<tokio_postgres::Error> {
        if connection.is_broken() {
            return Err(RecycleError::message("a statement on it ran out of time"));
        }
        connection.set_limit(self.statement);
        self.inner.recycle(&mut connection.client, metrics).await
    }

    fn detach(&self, connection: &mut Connection) {
        self.inner.detach(&mut connection.client);
    }
}

/// A connection of its own, outside the pool (to `LISTEN` on, to hold session locks, to probe):
/// the driver's client with the notifications it receives. Dropping it ends its connection at
/// once, even one waiting on a server that hangs.
pub struct Session {
    client: tokio_postgres::Client,
    pub notifications: mpsc::UnboundedReceiver<Notification>,
    task: JoinHandle<()>,
}

impl Deref for Session {
    type Target = tokio_postgres::Client;

    fn deref(&self) -> &Self::Target {
        &self.client
    }
}

impl DerefMut for Session {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.client
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Plain TCP, or TLS checked against the system's trusted roots.
#[derive(Clone)]
enum Connector {
    Plain,
    Tls(tokio_postgres_rustls::MakeRustlsConnect),
}

impl Connector {
    /// TLS when the address asks for it (`sslmode=require`), the server's certificate checked
    /// against the system's trusted roots (`SSL_CERT_FILE` adds one), never falling back to
    /// plain TCP; plain otherwise (`prefer` included: a certificate nobody can check is no
    /// better than none).
    fn for_config(config: &tokio_postgres::Config) -> StorageResult<Self> {
        use tokio_postgres::config::SslMode;
        match config.get_ssl_mode() {
            SslMode::Disable | SslMode::Prefer => Ok(Self::Plain),
            _ => {
                let (tls, _) = tokio_postgres_rustls::MakeRustlsConnect::with_native_certs()
                    .map_err(|_| StorageError::Corrupt("no trusted root certificates for TLS to PostgreSQL".into()))?;
                Ok(Self::Tls(tls))
            }
        }
    }

    fn pool(&self, config: &tokio_postgres::Config, timeouts: Timeouts) -> StorageResult<Pool> {
        // No test query at checkout: it is a round trip more on every request. A connection
        // the driver knows is closed is replaced; one that died silently fails its request once.
        let manager_config = ManagerConfig { recycling_method: RecyclingMethod::Fast };
        let inner = deadpool_postgres::Manager::from_connect(config.clone(), self.clone(), manager_config);
        Pool::builder(Manager { inner, statement: timeouts.statement })
            .max_size(POOL_SIZE)
            // Well under a request's timeout: with every connection taken (or hung), a request
            // answers 503 instead of waiting its whole time.
            .wait_timeout(Some(timeouts.wait))
            .create_timeout(Some(timeouts.wait))
            .recycle_timeout(Some(timeouts.wait))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|error| StorageError::Pool(error.to_string()))
    }

    /// A connection of its own, outside the pool, made within `limit` (the driver's
    /// `connect_timeout` bounds only the TCP connect, not a handshake with a hung server).
    async fn connect(&self, config: &tokio_postgres::Config, limit: Duration) -> StorageResult<Session> {
        let connecting = async {
            match self {
                Self::Plain => spawn_connection(config, tokio_postgres::NoTls).await,
                Self::Tls(tls) => spawn_connection(config, tls.clone()).await,
            }
        };
        let (client, notifications, task) = tokio::time::timeout(limit, connecting)
            .await
            .map_err(|_| StorageError::timed_out("connecting to the database", limit))??;
        Ok(Session { client, notifications, task })
    }
}

/// How the pool makes its connections: as [`Connector::connect`] does, the connection's task
/// in the span of a task of its own (its lines say so).
impl deadpool_postgres::Connect for Connector {
    fn connect(
        &self,
        config: &tokio_postgres::Config,
    ) -> BoxFuture<'_, Result<(tokio_postgres::Client, JoinHandle<()>), tokio_postgres::Error>> {
        let config = config.clone();
        Box::pin(async move {
            let (client, _, task) = match self {
                Self::Plain => spawn_connection(&config, tokio_postgres::NoTls).await?,
                Self::Tls(tls) => spawn_connection(&config, tls.clone()).await?,
            };
            Ok((client, task))
        })
    }
}

/// Connects, and runs the connection on a task of its own until it fails or its client is
/// dropped; its notifications go to the receiver (dropped by those who listen to none).
async fn spawn_connection<T>(
    config: &tokio_postgres::Config,
    tls: T,
) -> Result<(tokio_postgres::Client, mpsc::UnboundedReceiver<Notification>, JoinHandle<()>), tokio_postgres::Error>
where
    T: MakeTlsConnect<Socket> + Send + 'static,
    T::Stream: Send + 'static,
{
    let (client, mut connection) = config.connect(tls).await?;
    let (sender, receiver) = mpsc::unbounded_channel();
    let task = tokio::spawn(
        async move {
            let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(message) = futures::StreamExt::next(&mut messages).await {
                match message {
                    Ok(AsyncMessage::Notification(notification)) => {
                        // Nobody listening on this connection: nothing to pass on.
                        let _ = sender.send(notification);
                    }
                    Ok(_) => {}
                    Err(error) => {
                        tracing::debug!(error = %describe(&error), "a PostgreSQL connection ended");
                        return;
                    }
                }
            }
        }
        .instrument(crate::logging::task_span("postgres connection")),
    );
    Ok((client, receiver, task))
}

fn parse_config(url: &str) -> StorageResult<tokio_postgres::Config> {
    let mut config: tokio_postgres::Config =
        url.parse().map_err(|_| StorageError::Corrupt("the PostgreSQL address is not valid".into()))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    // A connection whose peer vanished (a dropped network, a host that died) is noticed
    // within about half a minute even while idle (the listener's), not after the kernel's
    // two hours. Unless the address says otherwise.
    if !url.contains("keepalives_idle") {
        config.keepalives_idle(Duration::from_secs(15));
    }
    if !url.contains("keepalives_interval") {
        config.keepalives_interval(Duration::from_secs(5));
    }
    if !url.contains("keepalives_retries") {
        config.keepalives_retries(3);
    }
    config.application_name("subscriber-data");
    Ok(config)
}

/// A write that may run again ([`Database::write_again`]), or once only.
type Attempt<'c, T> = Option<BoxFuture<'c, StorageResult<T>>>;

impl Database {
    /// Connects, refuses a pooler that would share sessions, migrates, and starts the task
    /// that tells other instances of commits.
    pub async fn open(
        url: &str,
        deliveries: std::sync::Arc<tokio::sync::Notify>,
        timeouts: Timeouts,
    ) -> StorageResult<Self> {
        let config = parse_config(url)?;
        let connector = Connector::for_config(&config)?;
        pooler::refuse_shared_sessions(|| connector.connect(&config, timeouts.wait)).await?;
        // Migrated first, on a connection of its own: the pool's connections prepare statements
        // over the tables as they are made.
        let mut session = connector.connect(&config, timeouts.wait).await?;
        migrate(&mut session).await?;
        drop(session);
        let pool = connector.pool(&config, timeouts)?;
        let (notices, pending) = mpsc::unbounded_channel();
        tokio::spawn(send_notices(pool.clone(), pending).instrument(crate::logging::task_span("instance notices")));
        let (newest_asks, asked) = mpsc::unbounded_channel();
        tokio::spawn(events::answer_newest(pool.clone(), asked).instrument(crate::logging::task_span("newest events")));
        Ok(Self {
            pool,
            config,
            connector,
            timeouts,
            notices,
            probed: Mutex::new(None),
            probe_session: tokio::sync::Mutex::new(None),
            deliveries,
            newest_asks,
        })
    }

    /// A pooled connection.
    pub async fn client(&self) -> StorageResult<Pooled> {
        Ok(self.pool.get().await?)
    }

    /// A pooled connection for maintenance work (bulk loads, purges): its statements may take
    /// up to [`MAINTENANCE_LIMIT`] while it is on loan.
    pub async fn maintenance_client(&self) -> StorageResult<Pooled> {
        let client = self.pool.get().await?;
        client.set_limit(MAINTENANCE_LIMIT);
        Ok(client)
    }

    /// A connection of its own (to `LISTEN` on, or to hold session locks), with its
    /// notifications.
    pub async fn connect_own(&self) -> StorageResult<Session> {
        self.connector.connect(&self.config, self.timeouts.wait).await
    }

    /// The service's limits on waiting for the database.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// Runs `work` in one transaction on a pooled connection; `BEGIN` goes with the work's
    /// first statements. Futures on the connection that the work awaits together are sent in
    /// the order they are first polled, each once its statement is prepared: statements whose
    /// order matters are prepared first ([`prepare_all`]) unless always prepared (the locks).
    /// Commits when it returns `Ok`, rolls back otherwise. The work runs as a task of its own,
    /// so a caller that stops waiting (a client that hung up) never leaves a transaction open
    /// on a pooled connection.
    ///
    /// The transaction, and then its commit, each get the statement limit: past it the
    /// connection is closed (the server rolls back what it has not committed) and the write
    /// fails as an outage. A commit that ran out of time may still have been applied: a retry
    /// with the request's `Idempotency-Key` tells.
    pub async fn write<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c Client) -> BoxFuture<'c, StorageResult<T>> + Send + 'static,
    {
        let mut work = Some(work);
        self.transact(None, 0, move |client| work.take().map(|work| work(client))).await
    }

    /// As [`Database::write`], for work that can run again: a serialization failure or a
    /// deadlock (whose transaction the server rolled back) runs it again, up to three times,
    /// after a short random pause; only then is it an outage (503).
    pub async fn write_again<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: for<'c> Fn(&'c Client) -> BoxFuture<'c, StorageResult<T>> + Send + 'static,
    {
        self.transact(None, WRITE_RETRIES, move |client| Some(work(client))).await
    }

    /// As [`Database::write_again`], for maintenance work: each statement, the transaction and
    /// its commit may take up to [`MAINTENANCE_LIMIT`].
    pub async fn write_maintenance<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: for<'c> Fn(&'c Client) -> BoxFuture<'c, StorageResult<T>> + Send + 'static,
    {
        self.transact(Some(MAINTENANCE_LIMIT), WRITE_RETRIES, move |client| Some(work(client))).await
    }

    /// Runs `work` in a transaction, again after a conflict up to `retries` times.
    async fn transact<T, W>(&self, limit: Option<Duration>, retries: u32, mut work: W) -> StorageResult<T>
    where
        T: Send + 'static,
        W: for<'c> FnMut(&'c Client) -> Attempt<'c, T> + Send + 'static,
    {
        let pool = self.pool.clone();
        let started = Instant::now();
        let result = tokio::spawn(
            async move {
                let mut ran_again = 0;
                loop {
                    let client = pool.get().await?;
                    if let Some(limit) = limit {
                        client.set_limit(limit);
                    }
                    let Some(statements) = work(&client) else {
                        return Err(StorageError::Pool("a write that runs once was asked to run again".into()));
                    };
                    let outcome = run_transaction(&client, statements).await;
                    if client.is_broken() {
                        // Closed now, not left in the pool until its next loan.
                        drop(Pooled::take(client));
                    } else {
                        drop(client);
                    }
                    match outcome {
                        Err(error) if ran_again < retries && is_conflict(&error) => {
                            ran_again += 1;
                            let pause = rand::random_range(10..60) * u64::from(ran_again);
                            tracing::debug!(error = %error, ran_again, "a write met another: running it again");
                            tokio::time::sleep(Duration::from_millis(pause)).await;
                        }
                        outcome => return outcome,
                    }
                }
            }
            .in_current_span(),
        )
        .await?;
        crate::metrics::record_query("write", started.elapsed());
        result
    }

    /// Tells the other instances `payload`, once what was written is committed (a lost notice
    /// is made up for: listeners look anyway every few seconds).
    pub fn notify(&self, payload: String) {
        if payload == super::notices::Change::Deliveries.payload() {
            self.deliveries.notify_one();
        }
        let _ = self.notices.send(payload);
    }

    pub fn pool_connections(&self) -> (u32, u32) {
        let status = self.pool.status();
        let open = u32::try_from(status.size).unwrap_or(u32::MAX);
        let idle = u32::try_from(status.available).unwrap_or(0);
        (open, idle)
    }

    /// Whether the database answers and takes writes, with the migrations not applied yet; on
    /// a connection of its own (never one of the pool's, which may all be taken or hung), made
    /// again when it breaks. An answer is reused for a second.
    pub async fn probe(&self) -> Result<i32, &'static str> {
        if let Some(answer) = self.recent_probe() {
            return answer;
        }
        // One look at a time: a probe asked meanwhile waits for it, then takes its answer.
        let Ok(mut session) = tokio::time::timeout(PROBE_TIMEOUT, self.probe_session.lock()).await else {
            return Err(Outage::TimedOut.reason());
        };
        if let Some(answer) = self.recent_probe() {
            return answer;
        }
        let answer = match tokio::time::timeout(PROBE_TIMEOUT, self.look(&mut session)).await {
            Ok(answer) => answer,
            Err(_) => {
                *session = None;
                Err(Outage::TimedOut.reason())
            }
        };
        *self.probed.lock() = Some((Instant::now(), answer));
        answer
    }

    fn recent_probe(&self) -> Option<Result<i32, &'static str>> {
        (*self.probed.lock()).filter(|(at, _)| at.elapsed() < PROBE_REUSE).map(|(_, answer)| answer)
    }

    async fn look(&self, session: &mut Option<Session>) -> Result<i32, &'static str> {
        if session.as_ref().is_none_or(|session| session.is_closed()) {
            *session = None;
            let made = self.connector.connect(&self.config, PROBE_TIMEOUT).await.map_err(|error| {
                tracing::warn!(error = %error, "readiness: the database cannot be reached");
                Outage::Unreachable.reason()
            })?;
            *session = Some(made);
        }
        let Some(client) = session.as_ref() else { return Err(Outage::Unreachable.reason()) };
        match writable(client).await {
            Ok(answer) => answer,
            Err(error) => {
                tracing::warn!(error = %describe(&error), "readiness: the database does not answer");
                *session = None;
                Err(outage_of(&error).unwrap_or(Outage::Unreachable).reason())
            }
        }
    }
}

/// Runs a transaction's statements and commits them, or rolls them back; a connection that
/// does not answer in time is left broken.
async fn run_transaction<T>(client: &Connection, statements: BoxFuture<'_, StorageResult<T>>) -> StorageResult<T> {
    let limit = client.limit();
    let sent = async {
        let (begun, outcome) = futures::future::join(client.batch_execute("BEGIN"), statements).await;
        begun.map_err(StorageError::from).and(outcome)
    };
    let outcome = match tokio::time::timeout(limit, sent).await {
        Ok(outcome) => outcome,
        Err(_) => {
            client.set_broken();
            Err(StorageError::timed_out("a database transaction", limit))
        }
    };
    match outcome {
        Ok(value) => match tokio::time::timeout(limit, client.batch_execute("COMMIT")).await {
            Ok(committed) => committed.map(|()| value).map_err(StorageError::from),
            Err(_) => {
                client.set_broken();
                Err(StorageError::timed_out("a database commit", limit))
            }
        },
        Err(error) => {
            if !client.is_broken()
                && !matches!(tokio::time::timeout(limit, client.batch_execute("ROLLBACK")).await, Ok(Ok(())))
            {
                // A connection that cannot roll back is not given to anyone else.
                client.set_broken();
            }
            Err(error)
        }
    }
}

/// Whether another transaction got in the way of this one, which the server rolled back: a
/// serialization failure or a deadlock. Running it again may well succeed.
fn is_conflict(error: &StorageError) -> bool {
    use tokio_postgres::error::SqlState;
    matches!(error, StorageError::Postgres(error)
        if error.code().is_some_and(|code| *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED))
}

/// The migrations not applied yet, if the server takes writes (a standby in recovery, or a
/// server made read-only, takes none: after a failover, the old primary).
async fn writable(client: &tokio_postgres::Client) -> Result<Result<i32, &'static str>, tokio_postgres::Error> {
    // The simple protocol: no statement prepared, nothing left behind on the connection.
    let messages = client
        .simple_query(
            "SELECT (SELECT COALESCE(MAX(version), 0) FROM schema_migrations), pg_is_in_recovery(),
                    current_setting('transaction_read_only')",
        )
        .await?;
    let Some(row) = messages.iter().find_map(|message| match message {
        tokio_postgres::SimpleQueryMessage::Row(row) => Some(row),
        _ => None,
    }) else {
        return Ok(Err("the schema version cannot be read"));
    };
    if row.get(1) == Some("t") || row.get(2) == Some("on") {
        return Ok(Err(Outage::ReadOnly.reason()));
    }
    let Some(applied) = row.get(0).and_then(|applied| applied.parse::<i64>().ok()) else {
        return Ok(Err("the schema version cannot be read"));
    };
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    Ok(Ok(i32::try_from(known - applied).unwrap_or(i32::MIN)))
}

/// Migrations not applied yet, on a connection of its own (no store is open yet).
pub async fn probe(url: &str) -> Result<i32, &'static str> {
    let config = parse_config(url).map_err(|_| "the database address is not valid")?;
    let connector = Connector::for_config(&config).map_err(|_| Outage::Unreachable.reason())?;
    let session = connector.connect(&config, PROBE_TIMEOUT).await.map_err(|error| {
        tracing::warn!(error = %error, "readiness: the database cannot be reached");
        Outage::Unreachable.reason()
    })?;
    match tokio::time::timeout(PROBE_TIMEOUT, writable(&session)).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(error)) => {
            tracing::warn!(error = %describe(&error), "readiness: the schema version cannot be read");
            Err("the schema version cannot be read")
        }
        Err(_) => Err(Outage::TimedOut.reason()),
    }
}

async fn migrate(client: &mut tokio_postgres::Client) -> StorageResult<()> {
    let transaction = client.transaction().await?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
        )
        .await?;
    let applied: i64 =
        transaction.query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[]).await?.try_get(0)?;
    for (index, migration) in MIGRATIONS.iter().enumerate() {
        let version = i64::try_from(index + 1).unwrap_or(i64::MAX);
        if version > applied {
            transaction.batch_execute(migration).await?;
            transaction.execute("INSERT INTO schema_migrations (version) VALUES ($1)", &[&version]).await?;
            tracing::info!(version, "PostgreSQL migration applied");
        }
    }
    transaction.commit().await?;
    Ok(())
}

/// Sends the notices of committed writes, as many as have gathered in one round trip.
async fn send_notices(pool: Pool, mut pending: mpsc::UnboundedReceiver<String>) {
    let mut batch = Vec::new();
    while pending.recv_many(&mut batch, 256).await > 0 {
        batch.sort_unstable();
        batch.dedup();
        let sent = async {
            let client = pool.get().await?;
            execute(&client, "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", &[&CHANNEL, &batch])
                .await?;
            Ok::<_, StorageError>(())
        };
        if let Err(error) = sent.await {
            tracing::warn!(error = %error, "other instances not told of a change: they look again within seconds");
        }
        batch.clear();
    }
}

/// Prepares `sqls` (those not prepared on this connection yet, together: one round trip at
/// most), so that the statements can then be sent in this order, in one round trip.
pub async fn prepare_all(client: &Client, sqls: &[&str]) -> StorageResult<Vec<tokio_postgres::Statement>> {
    client.within(futures::future::try_join_all(sqls.iter().map(|sql| client.prepare_cached(sql)))).await
}

/// Every row of a statement (prepared once per connection).
pub async fn query(client: &Client, sql: &str, params: Params<'_>) -> StorageResult<Vec<Row>> {
    let started = Instant::now();
    let rows = client
        .within(async {
            let statement = client.prepare_cached(sql).await?;
            client.query(&statement, params).await
        })
        .await?;
    crate::metrics::record_query("read", started.elapsed());
    Ok(rows)
}

/// The first row, if any.
pub async fn query_opt(client: &Client, sql: &str, params: Params<'_>) -> StorageResult<Option<Row>> {
    Ok(query(client, sql, params).await?.into_iter().next())
}

/// The one row.
pub async fn query_one(client: &Client, sql: &str, params: Params<'_>) -> StorageResult<Row> {
    query(client, sql, params)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StorageError::Corrupt("a statement that returns a row returned none".into()))
}

/// The rows a statement changed.
pub async fn execute(client: &Client, sql: &str, params: Params<'_>) -> StorageResult<u64> {
    let started = Instant::now();
    let changed = client
        .within(async {
            let statement = client.prepare_cached(sql).await?;
            client.execute(&statement, params).await
        })
        .await?;
    crate::metrics::record_query("write", started.elapsed());
    Ok(changed)
}

/// Locks the rows of the subscribers a write's events go to, in id order, until the write
/// commits: their events then commit in id order (module documentation).
pub const LOCK_SUBSCRIBERS: &str =
    "SELECT id FROM subscribers WHERE id = ANY($1::BIGINT[]) ORDER BY id FOR NO KEY UPDATE";

/// Locks the row of the subscriber who opened bank link `$1`.
pub const LOCK_ACCOUNT_OWNER: &str =
    "SELECT id FROM subscribers WHERE id = (SELECT subscriber_id FROM bank_accounts WHERE id = $1) FOR NO KEY UPDATE";

impl From<deadpool_postgres::PoolError> for StorageError {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        use deadpool_postgres::{PoolError, TimeoutType};
        match error {
            PoolError::Backend(error) | PoolError::PostCreateHook(deadpool_postgres::HookError::Backend(error)) => {
                Self::Postgres(error)
            }
            PoolError::Timeout(TimeoutType::Wait) => {
                Self::Unavailable(Outage::Busy, "no pooled database connection came free in time".into())
            }
            PoolError::Timeout(_) => {
                Self::Unavailable(Outage::TimedOut, "a new database connection was not made in time".into())
            }
            PoolError::Closed => Self::Unavailable(Outage::Restarting, "the connection pool is closed".into()),
            other => Self::Pool(other.to_string()),
        }
    }
}

/// Whether `error` is the database's passing state (it stopped, restarts, fails over, is
/// full or busy) rather than a fault of the statement: see [`Outage`].
pub fn outage_of(error: &tokio_postgres::Error) -> Option<Outage> {
    if let Some(code) = error.code() {
        let code = code.code();
        return match code {
            // 08P01 is a protocol violation: a bug (or a pooler mixing up sessions), never passing.
            "08P01" => None,
            _ if code.starts_with("08") => Some(Outage::Unreachable),
            "57P01" | "57P02" | "57P03" => Some(Outage::Restarting),
            // Read-only transaction: connected to a server that is no longer the primary.
            "25006" => Some(Outage::ReadOnly),
            // Disk full, out of memory, too many connections: insufficient resources.
            "53100" => Some(Outage::Full),
            _ if code.starts_with("53") => Some(Outage::Busy),
            // Serialization failure, deadlock, lock not available, statement cancelled.
            "40001" | "40P01" | "55P03" | "57014" => Some(Outage::Busy),
            // The server's own I/O failed.
            _ if code.starts_with("58") => Some(Outage::Unwritable),
            _ => None,
        };
    }
    if error.is_closed() {
        return Some(Outage::Unreachable);
    }
    // The driver's kind is private; its text is not. Connecting and talking to the server are
    // the failures of a server that is down or unreachable (a timeout is the driver's
    // `connect_timeout`).
    let text = error.to_string();
    ["error connecting to server", "error communicating with the server", "timeout waiting for server"]
        .iter()
        .any(|start| text.starts_with(start))
        .then_some(Outage::Unreachable)
}

/// What went wrong, with the database's own message (not its `detail`, which may quote the
/// values of a row).
pub fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => error.to_string(),
    }
}

/// A column as an unsigned number (stored as BIGINT).
pub fn unsigned<T: TryFrom<i64>>(row: &Row, index: usize) -> StorageResult<T> {
    let value: i64 = row.try_get(index)?;
    T::try_from(value).map_err(|_| StorageError::Corrupt(format!("column {index}: {value} is out of range")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refused_connection_is_an_outage() {
        // A port nobody listens on: the connection is refused at once.
        let free = std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("bound").port();
        let config = parse_config(&format!("postgres://nobody@127.0.0.1:{free}/none")).expect("an address");
        let error = config.connect(tokio_postgres::NoTls).await.err().expect("refused");
        assert_eq!(outage_of(&error), Some(Outage::Unreachable), "{error}");
    }

    #[tokio::test]
    async fn a_server_that_accepts_but_never_answers_is_given_up_on_in_time() {
        // The kernel completes the TCP handshake for a listener that never accepts, as for a
        // stopped server: only the service's own limit ends the wait.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().expect("bound").port();
        let config = parse_config(&format!("postgres://nobody@127.0.0.1:{port}/none")).expect("an address");
        let started = Instant::now();
        let error = Connector::Plain.connect(&config, Duration::from_millis(300)).await.err().expect("given up");
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert_eq!(error.outage(), Some(Outage::TimedOut), "{error}");
        drop(listener);
    }

    /// On the test cluster (`tests/support/with-postgres.sh cargo test -p subscriber-server --lib
    /// deadlock`); without one, says so and passes.
    #[tokio::test]
    async fn a_write_that_meets_a_deadlock_runs_again_and_one_that_cannot_is_503() {
        let Some(admin) = std::env::var("SUBSCRIBER_TEST_POSTGRES").ok().filter(|url| !url.is_empty()) else {
            eprintln!("needs SUBSCRIBER_TEST_POSTGRES (tests/support/with-postgres.sh)");
            return;
        };
        let name = format!("t_{}", uuid::Uuid::new_v4().simple());
        let session =
            Connector::Plain.connect(&parse_config(&admin).expect("an address"), Duration::from_secs(5)).await;
        session.expect("connected").batch_execute(&format!("CREATE DATABASE {name}")).await.expect("created");
        let (server, _) = admin.rsplit_once('/').expect("an address with a database");
        let url = format!("{server}/{name}");
        let db = Database::open(&url, std::sync::Arc::default(), Timeouts::default()).await.expect("opened");
        // The server's own words for a deadlock, on the first attempt only.
        let deadlocked = "DO $$ BEGIN RAISE EXCEPTION 'deadlock' USING ERRCODE = '40P01'; END $$";
        let attempts = std::sync::Arc::new(AtomicU64::new(0));
        let counted = std::sync::Arc::clone(&attempts);
        let value = db
            .write_again(move |client| {
                let attempt = counted.fetch_add(1, Ordering::SeqCst);
                Box::pin(async move {
                    if attempt == 0 {
                        client.batch_execute(deadlocked).await?;
                    }
                    query_one(client, "SELECT 7::BIGINT", &[]).await?.try_get::<_, i64>(0).map_err(StorageError::from)
                })
            })
            .await
            .expect("the second attempt succeeds");
        assert_eq!((value, attempts.load(Ordering::SeqCst)), (7, 2));
        let once = db
            .write(move |client| Box::pin(async move { Ok(client.batch_execute(deadlocked).await?) }))
            .await
            .expect_err("a write run once cannot run again");
        assert_eq!(once.outage(), Some(Outage::Busy), "{once}");
    }
}
