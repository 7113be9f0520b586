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
pub mod leases;
pub mod login_failures;
pub mod merchants;
pub mod persons;
pub mod sandbox;
pub mod stream_places;
pub mod subscribers;
pub mod transactions;
pub mod usage;
pub mod webhooks;

use std::time::{Duration, Instant};

use deadpool_postgres::{ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures::future::BoxFuture;
use parking_lot::Mutex;
use tokio::sync::mpsc;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Notification, Row, Socket};

use super::{StorageError, StorageResult};

/// A pooled connection.
pub type Client = deadpool_postgres::ClientWrapper;

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
];

/// Held while migrating, so instances started together migrate once ("SDW" + 2).
const MIGRATION_LOCK: i64 = 0x5344_5702;

/// Connections per instance.
const POOL_SIZE: usize = 32;

/// How long a readiness answer is reused.
const PROBE_REUSE: Duration = Duration::from_secs(1);

/// The channel other instances listen on.
pub const CHANNEL: &str = "subscriber_changes";

pub struct Database {
    pool: Pool,
    config: tokio_postgres::Config,
    connector: Connector,
    /// Payloads to `NOTIFY` once committed, sent by one task in batches.
    notices: mpsc::UnboundedSender<String>,
    probed: Mutex<Option<(Instant, Result<i32, &'static str>)>>,
    deliveries: std::sync::Arc<tokio::sync::Notify>,
    /// Look-ups of owners' newest events, answered together by one task (`events::newest_of`).
    newest_asks: mpsc::UnboundedSender<events::NewestAsk>,
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

    fn pool(&self, config: &tokio_postgres::Config) -> StorageResult<Pool> {
        // No test query at checkout: it is a round trip more on every request. A connection
        // the driver knows is closed is replaced; one that died silently fails its request once.
        let manager_config = ManagerConfig { recycling_method: RecyclingMethod::Fast };
        let manager = match self {
            Self::Plain => {
                deadpool_postgres::Manager::from_config(config.clone(), tokio_postgres::NoTls, manager_config)
            }
            Self::Tls(tls) => deadpool_postgres::Manager::from_config(config.clone(), tls.clone(), manager_config),
        };
        Pool::builder(manager)
            // The locks are prepared before anything else: a statement whose preparation is a
            // round trip is sent after the statements pipelined beside it, and a lock must go
            // before the statements it guards (see `write`).
            .post_create(deadpool_postgres::Hook::async_fn(|client, _| {
                Box::pin(async move {
                    for lock in [LOCK_SUBSCRIBERS, LOCK_ACCOUNT_OWNER] {
                        client.prepare_cached(lock).await.map_err(deadpool_postgres::HookError::Backend)?;
                    }
                    Ok(())
                })
            }))
            .max_size(POOL_SIZE)
            .wait_timeout(Some(Duration::from_secs(30)))
            .create_timeout(Some(Duration::from_secs(10)))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|error| StorageError::Pool(error.to_string()))
    }

    /// A connection of its own, outside the pool, with the notifications it receives.
    async fn connect(
        &self,
        config: &tokio_postgres::Config,
    ) -> StorageResult<(tokio_postgres::Client, mpsc::UnboundedReceiver<Notification>)> {
        match self {
            Self::Plain => connect_with(config, tokio_postgres::NoTls).await,
            Self::Tls(tls) => connect_with(config, tls.clone()).await,
        }
    }
}

async fn connect_with<T>(
    config: &tokio_postgres::Config,
    tls: T,
) -> StorageResult<(tokio_postgres::Client, mpsc::UnboundedReceiver<Notification>)>
where
    T: MakeTlsConnect<Socket> + Send + 'static,
    T::Stream: Send + 'static,
{
    let (client, mut connection) = config.connect(tls).await?;
    let (sender, receiver) = mpsc::unbounded_channel();
    let task = crate::logging::task_span("postgres connection");
    tokio::spawn(tracing::Instrument::instrument(
        async move {
            // The connection runs until it fails or the client is dropped; its notifications go on.
            let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(message) = futures::StreamExt::next(&mut messages).await {
                match message {
                    Ok(AsyncMessage::Notification(notification)) => {
                        if sender.send(notification).is_err() {
                            return;
                        }
                    }
                    Ok(_) => {}
                    Err(error) => {
                        tracing::debug!(error = %describe(&error), "a PostgreSQL connection ended");
                        return;
                    }
                }
            }
        },
        task,
    ));
    Ok((client, receiver))
}

fn parse_config(url: &str) -> StorageResult<tokio_postgres::Config> {
    let mut config: tokio_postgres::Config =
        url.parse().map_err(|_| StorageError::Corrupt("the PostgreSQL address is not valid".into()))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    config.application_name("subscriber-data");
    Ok(config)
}

impl Database {
    /// Connects, migrates, and starts the task that tells other instances of commits.
    pub async fn open(url: &str, deliveries: std::sync::Arc<tokio::sync::Notify>) -> StorageResult<Self> {
        let config = parse_config(url)?;
        let connector = Connector::for_config(&config)?;
        // Migrated first, on a connection of its own: the pool's connections prepare statements
        // over the tables as they are made.
        let (mut client, _) = connector.connect(&config).await?;
        migrate(&mut client).await?;
        let pool = connector.pool(&config)?;
        let (notices, pending) = mpsc::unbounded_channel();
        tokio::spawn(tracing::Instrument::instrument(
            send_notices(pool.clone(), pending),
            crate::logging::task_span("instance notices"),
        ));
        let (newest_asks, asked) = mpsc::unbounded_channel();
        tokio::spawn(tracing::Instrument::instrument(
            events::answer_newest(pool.clone(), asked),
            crate::logging::task_span("newest events"),
        ));
        Ok(Self { pool, config, connector, notices, probed: Mutex::new(None), deliveries, newest_asks })
    }

    /// A pooled connection.
    pub async fn client(&self) -> StorageResult<deadpool_postgres::Object> {
        Ok(self.pool.get().await?)
    }

    /// A connection of its own (to `LISTEN` on, or to hold session locks), with its
    /// notifications.
    pub async fn connect_own(&self) -> StorageResult<(tokio_postgres::Client, mpsc::UnboundedReceiver<Notification>)> {
        self.connector.connect(&self.config).await
    }

    /// Runs `work` in one transaction on a pooled connection; `BEGIN` goes with the work's
    /// first statements. Futures on the connection that the work awaits together are sent in
    /// the order they are first polled, each once its statement is prepared: statements whose
    /// order matters are prepared first ([`prepare_all`]) unless always prepared (the locks). Commits when it returns `Ok`, rolls back otherwise. The work runs as
    /// a task of its own, so a caller that stops waiting (a client that hung up) never leaves
    /// a transaction open on a pooled connection.
    pub async fn write<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c Client) -> BoxFuture<'c, StorageResult<T>> + Send + 'static,
    {
        let pool = self.pool.clone();
        let started = Instant::now();
        let result = tokio::spawn(async move {
            let client = pool.get().await?;
            let (begun, outcome) = futures::future::join(client.batch_execute("BEGIN"), work(&client)).await;
            match begun.map_err(StorageError::from).and(outcome) {
                Ok(value) => {
                    client.batch_execute("COMMIT").await?;
                    Ok(value)
                }
                Err(error) => {
                    if client.batch_execute("ROLLBACK").await.is_err() {
                        // A connection that cannot roll back is not given to anyone else.
                        let _ = deadpool_postgres::Object::take(client);
                    }
                    Err(error)
                }
            }
        })
        .await?;
        crate::metrics::record_query("write", started.elapsed());
        result
    }

    /// Tells the other instances `payload`, once what was written is committed (a lost notice
    /// is made up for: listeners look anyway every few seconds).
    pub fn notify(&self, payload: String) {
        if payload == super::changes::Change::Deliveries.payload() {
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

    /// Migrations not applied yet, on a pooled connection; an answer is reused for a second.
    pub async fn probe(&self) -> Result<i32, &'static str> {
        if let Some((at, answer)) = *self.probed.lock()
            && at.elapsed() < PROBE_REUSE
        {
            return answer;
        }
        let answer = match tokio::time::timeout(Duration::from_secs(2), self.applied_migrations()).await {
            Ok(Ok(applied)) => {
                let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
                Ok(i32::try_from(known - applied).unwrap_or(i32::MIN))
            }
            Ok(Err(error)) => {
                tracing::warn!(error = %error, "readiness: the database does not answer");
                Err("the database does not answer")
            }
            Err(_) => Err("the database does not answer in time"),
        };
        *self.probed.lock() = Some((Instant::now(), answer));
        answer
    }

    async fn applied_migrations(&self) -> StorageResult<i64> {
        let client = self.pool.get().await?;
        let row = client.query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[]).await?;
        Ok(row.try_get(0)?)
    }
}

/// Migrations not applied yet, on a connection of its own (no store is open yet).
pub async fn probe(url: &str) -> Result<i32, &'static str> {
    let mut config = parse_config(url).map_err(|_| "the database address is not valid")?;
    config.connect_timeout(Duration::from_secs(2));
    let connector = Connector::for_config(&config).map_err(|_| "the database cannot be reached")?;
    let (client, _) = connector.connect(&config).await.map_err(|error| {
        tracing::warn!(error = %error, "readiness: the database cannot be reached");
        "the database cannot be reached"
    })?;
    let applied: i64 = client
        .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[])
        .await
        .and_then(|row| row.try_get(0))
        .map_err(|error| {
            tracing::warn!(error = %describe(&error), "readiness: the schema version cannot be read");
            "the schema version cannot be read"
        })?;
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    Ok(i32::try_from(known - applied).unwrap_or(i32::MIN))
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
            let statement =
                client.prepare_cached("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload").await?;
            client.execute(&statement, &[&CHANNEL, &batch]).await?;
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
    Ok(futures::future::try_join_all(sqls.iter().map(|sql| client.prepare_cached(sql))).await?)
}

/// Every row of a statement (prepared once per connection).
pub async fn query(client: &Client, sql: &str, params: Params<'_>) -> StorageResult<Vec<Row>> {
    let started = Instant::now();
    let statement = client.prepare_cached(sql).await?;
    let rows = client.query(&statement, params).await?;
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
    let statement = client.prepare_cached(sql).await?;
    let changed = client.execute(&statement, params).await?;
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

/// A column as an unsigned number, when not NULL.
pub fn unsigned_opt<T: TryFrom<i64>>(row: &Row, index: usize) -> StorageResult<Option<T>> {
    let value: Option<i64> = row.try_get(index)?;
    value
        .map(|value| {
            T::try_from(value).map_err(|_| StorageError::Corrupt(format!("column {index}: {value} is out of range")))
        })
        .transpose()
}

/// A 0/1 flag column as a bool.
pub fn flag(row: &Row, index: usize) -> StorageResult<bool> {
    Ok(row.try_get::<_, i64>(index)? != 0)
}
