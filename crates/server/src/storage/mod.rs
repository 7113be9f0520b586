//! Storage: the service's data as typed operations on one [`Store`], each implemented by both
//! backends the way its database does best.
//!
//! - [`sqlite`] (the default: one file, nothing to set up): rusqlite on the blocking pool,
//!   reads on pooled connections, writes one at a time on the single writer connection.
//! - [`postgres`] (one database several instances share): tokio-postgres on the service's own
//!   runtime through a deadpool pool. No lock is held by every write: a write locks only the rows
//!   of the subscribers it changes, so writes of different subscribers never wait for each other;
//!   statements that do not depend on each other go in one round trip (pipelined), bulk rows
//!   go in with `COPY`.
//!
//! Each resource module (`cards`, `merchants`, …) holds its rows and its operations, as
//! `impl Store` blocks that hand each call to the backend's module of the same name.
//! [`changes`] tells the other instances what they keep in memory; [`claims`] holds
//! idempotency keys across them.
//!
//! Order: every change a subscriber can observe records an event whose id is its place in the
//! subscriber's order (streams, sync positions, the event log and webhook delivery read
//! events of one card, merchant or subscriber by id). SQLite's single writer commits in id
//! order; PostgreSQL commits a subscriber's events in id order because each write holds that
//! subscriber's row lock from before its events get ids until it commits.

// Built without PostgreSQL, [`dispatch`] leaves out the arms that name it, and what they used.
#![cfg_attr(not(feature = "postgres"), allow(unused_imports, unused_variables, dead_code))]

pub mod bank_accounts;
pub mod card_sessions;
pub mod cards;
pub mod changes;
pub mod claims;
pub mod directory;
pub mod events;
pub mod idempotency;
pub mod keys;
pub mod labels;
pub mod leases;
pub mod login_failures;
pub mod merchants;
pub mod person_sessions;
pub mod persons;
pub mod removals;
pub mod request_history;
pub mod sandbox;
pub mod snapshots;
pub mod stream_places;
pub mod subscribers;
pub mod transactions;
pub mod usage;
pub mod webhooks;

mod location;
mod notices;
pub mod outage;
#[cfg(feature = "postgres")]
mod postgres;
mod rows;
mod sql;
mod statement;
/// Built without PostgreSQL (the desktop app's embedded sandbox): the backends' operations name
/// this module in the arms [`dispatch`] leaves out.
#[cfg(not(feature = "postgres"))]
mod postgres {}
mod sqlite;

use std::sync::Arc;

pub use location::Location;
pub use outage::{Outage, Timeouts};

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[cfg(feature = "postgres")]
    #[error("database: {}", postgres::describe(.0))]
    Postgres(#[from] tokio_postgres::Error),
    #[error("connection pool: {0}")]
    Pool(String),
    /// No pooled connection came within the pool's wait (SQLite's readers).
    #[error("connection pool: {0}")]
    PoolTimeout(String),
    /// One of the service's own limits ran out (`outage`: the database may be hung).
    #[error("{what} took longer than {limit:?}")]
    TimedOut { what: &'static str, limit: std::time::Duration },
    /// An outage said in the service's words (`outage`).
    #[error("{1}")]
    Unavailable(Outage, String),
    /// The database cannot be used as configured (the service refuses to start).
    #[error("{0}")]
    Unusable(String),
    #[error("migrations: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("storage task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("stored data is not valid: {0}")]
    Corrupt(String),
    #[cfg(not(feature = "postgres"))]
    #[error("{0}")]
    Unsupported(&'static str),
}

/// What a build without PostgreSQL says of a `postgres://` address.
#[cfg(not(feature = "postgres"))]
const NO_POSTGRES: &str = "this build has no PostgreSQL (the `postgres` feature is off): use a SQLite file";

impl From<r2d2::Error> for StorageError {
    fn from(error: r2d2::Error) -> Self {
        Self::PoolTimeout(error.to_string())
    }
}

pub type StorageResult<T> = Result<T, StorageError>;

/// Which database serves the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// As `/readyz` and the `Subscriber-Backend` header name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres => "postgresql",
        }
    }
}

/// The service's data. Cheap to clone: two reference counts.
#[derive(Clone)]
pub struct Store {
    backend: Arc<Database>,
    /// Told when webhook deliveries were queued (here, or by another instance): delivery looks
    /// at once instead of polling.
    deliveries: Arc<tokio::sync::Notify>,
}

// One per store, behind its `Arc`: the size of a variant costs nothing.
#[allow(clippy::large_enum_variant)]
enum Database {
    Sqlite(sqlite::Database),
    #[cfg(feature = "postgres")]
    Postgres(postgres::Database),
}

impl Store {
    /// Opens (creating the SQLite file if needed) and migrates the database, with the default
    /// [`Timeouts`].
    pub async fn open(location: &Location) -> StorageResult<Self> {
        Self::open_with(location, Timeouts::default()).await
    }

    /// Opens and migrates the database; `timeouts` bound every wait for it.
    pub async fn open_with(location: &Location, timeouts: Timeouts) -> StorageResult<Self> {
        let deliveries = Arc::new(tokio::sync::Notify::new());
        let database = match location {
            Location::Sqlite(path) => {
                let (path, queued) = (path.clone(), Arc::clone(&deliveries));
                Database::Sqlite(
                    tokio::task::spawn_blocking(move || sqlite::Database::open(&path, queued, timeouts)).await??,
                )
            }
            #[cfg(feature = "postgres")]
            Location::Postgres(url) => {
                Database::Postgres(postgres::Database::open(url, Arc::clone(&deliveries), timeouts).await?)
            }
            #[cfg(not(feature = "postgres"))]
            Location::Postgres(_) => return Err(StorageError::Unsupported(NO_POSTGRES)),
        };
        Ok(Self { backend: Arc::new(database), deliveries })
    }

    pub fn backend(&self) -> Backend {
        match &*self.backend {
            Database::Sqlite(_) => Backend::Sqlite,
            #[cfg(feature = "postgres")]
            Database::Postgres(_) => Backend::Postgres,
        }
    }

    /// Whether other instances may share this database (PostgreSQL): what this instance keeps
    /// in memory must then follow theirs ([`changes`]).
    pub fn is_shared(&self) -> bool {
        self.backend() == Backend::Postgres
    }

    /// Connections of the pool: (open, idle).
    pub fn pool_connections(&self) -> (u32, u32) {
        match &*self.backend {
            Database::Sqlite(db) => db.pool_connections(),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.pool_connections(),
        }
    }

    /// Whether the database answers now. `Ok` holds the number of migrations not applied yet
    /// (negative: the database is newer than this service); `Err` says what is wrong in words
    /// fit for an unauthenticated caller (the cause is logged). At most one look a second,
    /// on a connection the store keeps: probes never open a database session each.
    pub async fn probe(&self) -> Result<i32, &'static str> {
        match &*self.backend {
            Database::Sqlite(db) => db.probe().await,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.probe().await,
        }
    }

    /// Copies SQLite's write-ahead log into the database and empties it (nothing to do on
    /// PostgreSQL).
    pub async fn checkpoint(&self) -> StorageResult<()> {
        match &*self.backend {
            Database::Sqlite(db) => db.checkpoint().await,
            #[cfg(feature = "postgres")]
            Database::Postgres(_) => Ok(()),
        }
    }

    /// Resolves when webhook deliveries may have been queued since the last call (a wake-up
    /// given while nobody waits is kept for the next waiter).
    pub async fn deliveries_queued(&self) {
        self.deliveries.notified().await;
    }

    /// Says webhook deliveries may have been queued (another instance told us).
    pub fn wake_deliveries(&self) {
        self.deliveries.notify_one();
    }
}

/// Whether the database at `location` answers, before a store is open on it (the service is
/// starting): as [`Store::probe`], on a connection of its own.
pub async fn probe_location(location: &Location) -> Result<i32, &'static str> {
    match location {
        Location::Sqlite(path) => {
            let path = path.clone();
            tokio::task::spawn_blocking(move || sqlite::probe(&path)).await.unwrap_or(Err("the database check failed"))
        }
        #[cfg(feature = "postgres")]
        Location::Postgres(url) => postgres::probe(url).await,
        #[cfg(not(feature = "postgres"))]
        Location::Postgres(_) => Err(NO_POSTGRES),
    }
}

/// Hands an operation to the backend: `on_sqlite` runs on the SQLite database, `on_postgres`
/// on PostgreSQL's.
macro_rules! dispatch {
    ($store:expr, $sqlite:ident => $on_sqlite:expr, $postgres:ident => $on_postgres:expr $(,)?) => {
        match &*$store.backend {
            $crate::storage::Database::Sqlite($sqlite) => $on_sqlite,
            #[cfg(feature = "postgres")]
            $crate::storage::Database::Postgres($postgres) => $on_postgres,
        }
    };
}
pub(crate) use dispatch;
