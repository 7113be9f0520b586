//! Storage: one module per resource, each operation written once over [`sql::Connection`],
//! which runs it on SQLite (the default: one file, nothing to set up) or PostgreSQL (one
//! database several instances share). Handlers call operations; no driver type leaves here.
//!
//! Reads share a pool of connections. Writes wait on one async mutex per instance, then run in
//! one transaction: on SQLite's single writer connection (busy without `SQLITE_BUSY` retries),
//! on PostgreSQL under a database-wide lock (`postgres`), so writes of every instance commit one
//! at a time, as on SQLite. [`changes`] tells the other instances what they keep in memory;
//! [`claims`] holds idempotency keys across them.

pub mod bank_accounts;
pub mod card_sessions;
pub mod cards;
pub mod changes;
pub mod claims;
pub mod directory;
pub mod events;
pub mod idempotency;
pub mod keys;
pub mod leases;
pub mod login_failures;
pub mod merchants;
pub mod persons;
pub mod sandbox;
pub mod subscribers;
pub mod transactions;
pub mod usage;
pub mod webhooks;

mod postgres;
pub mod sql;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::TransactionBehavior;
use rusqlite_migration::{M, Migrations};

pub use sql::{Connection, Dialect, Transaction};

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database: {}", postgres::describe(.0))]
    Postgres(#[from] ::postgres::Error),
    #[error("query returned no rows")]
    NoRows,
    #[error("connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("migrations: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("storage task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("stored data is not valid: {0}")]
    Corrupt(String),
}

pub type StorageResult<T> = Result<T, StorageError>;

/// Where the data lives: a SQLite file (the default, nothing to set up) or a PostgreSQL
/// database (`postgres://…`), which several instances of the service may share.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl std::str::FromStr for Location {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Self::Postgres(text.to_owned())
        } else {
            Self::Sqlite(PathBuf::from(text))
        })
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Self::Sqlite(path)
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Self {
        Self::Sqlite(path.to_path_buf())
    }
}

/// The file's path, or the PostgreSQL address without its password (fit for a log).
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "{}", path.display()),
            Self::Postgres(url) => f.write_str(&postgres::without_password(url)),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Location {
    /// The PostgreSQL database's name (`None` for SQLite, or when the address names none).
    pub fn database_name(&self) -> Option<String> {
        let Self::Postgres(url) = self else { return None };
        let path = url
            .split_once("://")?
            .1
            .split('?')
            .next()?
            .rsplit_once('@')
            .map_or(url.split_once("://")?.1.split('?').next()?, |(_, host)| host);
        let name = path.split_once('/')?.1;
        (!name.is_empty() && name.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"_-".contains(&byte)))
            .then(|| name.to_owned())
    }

    /// The SQLite file, `None` on PostgreSQL.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Self::Sqlite(path) => Some(path),
            Self::Postgres(_) => None,
        }
    }
}

/// Migrations, oldest first. Never edit one that has shipped: add the next.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../migrations/0001_core.sql")),
        M::up(include_str!("../../migrations/0002_merchants.sql")),
        M::up(include_str!("../../migrations/0003_directory.sql")),
        M::up(include_str!("../../migrations/0004_secure_flows.sql")),
        M::up(include_str!("../../migrations/0005_credential_generation.sql")),
        M::up(include_str!("../../migrations/0006_keys_apart.sql")),
        M::up(include_str!("../../migrations/0007_bank_link_states.sql")),
        M::up(include_str!("../../migrations/0008_login_failures.sql")),
        M::up(include_str!("../../migrations/0009_leases.sql")),
        M::up(include_str!("../../migrations/0010_events.sql")),
        // 0011 is taken by the storage rework (issue 24): it goes before this one when merged.
        M::up(include_str!("../../migrations/0012_api_versions.sql")),
    ])
}

/// Applied to every connection. `synchronous = FULL` in WAL mode syncs the log at every
/// commit: an acknowledged write survives a crash of the process or of the machine.
/// `secure_delete` overwrites what is deleted, so a copy of the file does not keep it.
const CONNECTION_PRAGMAS: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = FULL;
    PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 10000;
    PRAGMA temp_store = MEMORY;
    PRAGMA secure_delete = ON;
";

/// Statements each SQLite connection keeps prepared: every statement goes through the cache
/// (`sql::Connection`), the storage modules hold about 150 statements, and rusqlite keeps 16.
const STATEMENT_CACHE: usize = 256;

#[derive(Clone)]
pub struct Db {
    backend: Backend,
    /// One write at a time from this instance: a write waits here, not holding a connection.
    /// (SQLite: the one writer connection; PostgreSQL: writes of every instance also take a
    /// database lock, see `postgres`.)
    writer: Arc<tokio::sync::Mutex<Writer>>,
}

#[derive(Clone)]
enum Backend {
    Sqlite(r2d2::Pool<SqliteConnectionManager>),
    Postgres(r2d2::Pool<postgres::Manager>, Arc<::postgres::Config>),
}

enum Writer {
    Sqlite(rusqlite::Connection),
    Postgres,
}

impl Db {
    /// Opens (creating the SQLite file if needed) and migrates the database.
    pub fn open(location: &Location) -> StorageResult<Self> {
        match location {
            Location::Sqlite(path) => Self::open_sqlite(path),
            Location::Postgres(url) => {
                let (pool, config) = postgres::open(url)?;
                Ok(Self {
                    backend: Backend::Postgres(pool, Arc::new(config)),
                    writer: Arc::new(tokio::sync::Mutex::new(Writer::Postgres)),
                })
            }
        }
    }

    fn open_sqlite(path: &Path) -> StorageResult<Self> {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|error| StorageError::Corrupt(format!("cannot create {}: {error}", parent.display())))?;
        }
        create_private(path)?;
        let mut writer = rusqlite::Connection::open(path)?;
        writer.execute_batch(CONNECTION_PRAGMAS)?;
        writer.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        migrations().to_latest(&mut writer)?;
        let manager = SqliteConnectionManager::file(path).with_init(|connection| {
            connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
            connection.execute_batch(CONNECTION_PRAGMAS)
        });
        // No test query on every checkout: a local file does not drop its connection, and the
        // test (`SELECT 1` on a fresh read transaction) was a tenth of `GET /card/{id}`.
        let readers = r2d2::Pool::builder().max_size(8).test_on_check_out(false).build(manager)?;
        Ok(Self {
            backend: Backend::Sqlite(readers),
            writer: Arc::new(tokio::sync::Mutex::new(Writer::Sqlite(writer))),
        })
    }

    pub fn dialect(&self) -> Dialect {
        match self.backend {
            Backend::Sqlite(_) => Dialect::Sqlite,
            Backend::Postgres(..) => Dialect::Postgres,
        }
    }

    /// Runs `work` on a pooled connection off the async threads.
    pub async fn read<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection<'_>) -> StorageResult<T> + Send + 'static,
    {
        let backend = self.backend.clone();
        let started = std::time::Instant::now();
        let result = tokio::task::spawn_blocking(move || match backend {
            Backend::Sqlite(readers) => {
                let connection = readers.get()?;
                work(&Connection::sqlite(&connection))
            }
            Backend::Postgres(pool, _) => postgres::read(&pool, work),
        })
        .await?;
        crate::metrics::record_query("read", started.elapsed());
        result
    }

    /// A read of a row or two by key (a card by its id): run on the request's own thread when
    /// a SQLite connection is free at once. Handing such a read to the blocking pool cost two
    /// thread switches that outweighed the query: they were a third of the CPU time of
    /// `GET /card/{id}` under load. Anything that may scan goes through [`Db::read`], and so
    /// does every read on PostgreSQL (its driver blocks on the network).
    pub async fn read_by_key<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection<'_>) -> StorageResult<T> + Send + 'static,
    {
        if let Backend::Sqlite(readers) = &self.backend
            && let Some(connection) = readers.try_get()
        {
            let started = std::time::Instant::now();
            let result = work(&Connection::sqlite(&connection));
            crate::metrics::record_query("read", started.elapsed());
            return result;
        }
        self.read(work).await
    }

    /// Runs `work` in one write transaction; commits when it returns `Ok`.
    pub async fn write<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> StorageResult<T> + Send + 'static,
    {
        self.write_then(work, |_| {}).await
    }

    /// Copies SQLite's write-ahead log into the database and empties it (nothing to do on
    /// PostgreSQL).
    pub async fn checkpoint(&self) -> StorageResult<()> {
        let writer = self.writer.clone().lock_owned().await;
        tokio::task::spawn_blocking(move || {
            if let Writer::Sqlite(connection) = &*writer {
                connection.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            }
            Ok(())
        })
        .await?
    }

    /// As [`Db::write`], then runs `committed` after the commit while still holding the
    /// writer: whatever it announces (the real-time hub) is announced in commit order.
    pub async fn write_then<T, F, C>(&self, work: F, committed: C) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> StorageResult<T> + Send + 'static,
        C: FnOnce(&T) + Send + 'static,
    {
        // The time includes the wait for the writer: it is what a request waits.
        let started = std::time::Instant::now();
        let mut writer = self.writer.clone().lock_owned().await;
        let backend = self.backend.clone();
        let result = tokio::task::spawn_blocking(move || {
            let value = match (&mut *writer, backend) {
                (Writer::Sqlite(connection), _) => {
                    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let value = work(&Transaction::new(Connection::sqlite(&transaction)))?;
                    transaction.commit()?;
                    value
                }
                (Writer::Postgres, Backend::Postgres(pool, _)) => postgres::write(&pool, work)?,
                (Writer::Postgres, Backend::Sqlite(_)) => {
                    return Err(StorageError::Corrupt("a SQLite pool without its writer".into()));
                }
            };
            committed(&value);
            Ok(value)
        })
        .await?;
        crate::metrics::record_query("write", started.elapsed());
        result
    }

    /// A connection of its own, outside the pool (to `LISTEN` on).
    pub(crate) fn connect_postgres(&self) -> StorageResult<postgres::Client> {
        match &self.backend {
            Backend::Postgres(_, config) => postgres::connect(config),
            Backend::Sqlite(_) => Err(StorageError::Corrupt("not a PostgreSQL database".into())),
        }
    }

    /// Connections of the read pool: (open, idle).
    pub fn pool_connections(&self) -> (u32, u32) {
        let state = match &self.backend {
            Backend::Sqlite(pool) => pool.state(),
            Backend::Postgres(pool, _) => pool.state(),
        };
        (state.connections, state.idle_connections)
    }
}

/// Whether the database answers now, on a connection of its own. `Ok` holds the number of
/// migrations not applied yet; `Err` says what is wrong in words fit for an unauthenticated
/// caller (the cause is logged).
pub fn probe_location(location: &Location) -> Result<i32, &'static str> {
    match location {
        Location::Sqlite(path) => probe(path),
        Location::Postgres(url) => postgres::probe(url),
    }
}

/// Whether the database file at `path` answers now, on a connection of its own: the pool's
/// connections keep a deleted or renamed file open and would still answer. `Ok` holds the
/// number of migrations not applied yet; `Err` says what is wrong in words fit for an
/// unauthenticated caller (the cause, which may name the file, is logged). Never creates the file.
pub fn probe(path: &Path) -> Result<i32, &'static str> {
    use rusqlite::OpenFlags;
    let logged = |what: &'static str| {
        move |error: rusqlite_migration::Error| {
            tracing::warn!(error = %error, "readiness: {what}");
            what
        }
    };
    let connection = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|error| logged("the database file cannot be opened")(error.into()))?;
    connection
        .busy_timeout(std::time::Duration::from_secs(2))
        .and_then(|()| connection.query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get::<_, i64>(0)))
        .map_err(|error| logged("the database does not answer")(error.into()))?;
    migrations().pending_migrations(&connection).map_err(logged("the schema version cannot be read"))
}

/// A new database file is readable by its owner only (SQLite gives its `-wal` and `-shm`
/// files the same mode).
fn create_private(path: &Path) -> StorageResult<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(StorageError::Corrupt(format!("cannot create {}: {error}", path.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }

    #[test]
    fn bank_links_keep_their_rows_and_refuse_unknown_states_after_0007() {
        let mut connection = rusqlite::Connection::open_in_memory().expect("database");
        connection.execute_batch("PRAGMA foreign_keys = ON;").expect("pragma");
        migrations().to_version(&mut connection, 6).expect("migrated to 0006");
        connection
            .execute_batch(
                "INSERT INTO subscribers (id, email, client_id, public_key, secret_hash, created_at)
                     VALUES (1, 'a@example.com', 'c', 'p', 'h', 0);
                 INSERT INTO bank_accounts (id, subscriber_id, bank_id, link_token_hash, stage, status, created_at, expires_at)
                     VALUES (7, 1, 'bank', x'01', 'mfa', 'pending', 0, 10);",
            )
            .expect("a link made before 0007");
        migrations().to_latest(&mut connection).expect("migrated to the latest");
        let row =
            bank_accounts::get(&Connection::sqlite(&connection), 1, 7).expect("read").expect("the link is still there");
        assert_eq!((row.stage, row.status), (bank_accounts::LinkStage::Mfa, bank_accounts::LinkStatus::Pending));
        for update in ["UPDATE bank_accounts SET stage = 'lost'", "UPDATE bank_accounts SET status = 'expired'"] {
            assert!(connection.execute(update, []).is_err(), "{update} is refused");
        }
    }
}
