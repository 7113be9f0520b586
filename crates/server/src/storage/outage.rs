//! Which storage failures are the database's passing state rather than a bug: stopped,
//! restarting, failing over, full, hung or too busy. The HTTP layer answers those 503
//! `unavailable` with `Retry-After` (a request that got one changed nothing: its transaction
//! was rolled back or never began); every other failure stays a 500 and is logged.
//!
//! Each backend says which of its errors are outages where they arise
//! (`postgres::outage_of`, `sqlite::outage_of`); [`StorageError::outage`] reads them through
//! whatever wrapped them on the way (a pool, a blocking task).

use std::time::Duration;

use super::StorageError;

/// What keeps the database from serving a request now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outage {
    /// Connection refused or lost (a stopped server, a failover in progress, the network).
    Unreachable,
    /// Shutting down or starting up (PostgreSQL's 57P01–57P03).
    Restarting,
    /// Connected to a server that takes no writes (a standby, or a primary demoted by a
    /// failover: 25006).
    ReadOnly,
    /// Another write got in the way (a lock, a deadlock, a serialization failure, SQLite's
    /// busy writer) or every connection is taken.
    Busy,
    /// No space left for the database.
    Full,
    /// The database file cannot be written or opened (read-only file system, I/O error).
    Unwritable,
    /// The database did not answer within the service's own limit (a hung server or network).
    TimedOut,
}

impl Outage {
    /// Says, in words fit for any caller, what is wrong.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Unreachable => "the database cannot be reached",
            Self::Restarting => "the database is restarting",
            Self::ReadOnly => "the database takes no writes now (a failover may be under way)",
            Self::Busy => "the database is busy",
            Self::Full => "the database has no space left",
            Self::Unwritable => "the database cannot be written",
            Self::TimedOut => "the database does not answer in time",
        }
    }

    /// When a client may try again: at once, nearly, for contention; a little later for an
    /// outage, which takes seconds to pass.
    pub fn retry_after_seconds(self) -> u64 {
        match self {
            Self::Busy => 1,
            _ => 2,
        }
    }
}

/// The service's own limits on waiting for the database (`--database-timeout-seconds`). A
/// server that hangs instead of refusing (a stopped process, a dropped network) still
/// acknowledges TCP, so neither keepalives nor the server's own timeouts end such a wait: these
/// do, and the request gets 503 well before its own timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// A statement, or a write's whole transaction up to its commit, and the commit.
    pub statement: Duration,
    /// Waiting for a pooled connection (or SQLite's one writer), and making a new connection.
    pub wait: Duration,
}

impl Timeouts {
    /// `statement` as given; waits get half of it.
    pub fn new(statement: Duration) -> Self {
        Self { statement, wait: statement / 2 }
    }
}

impl Default for Timeouts {
    /// 10 s a statement, 5 s a wait: a third of the default request timeout.
    fn default() -> Self {
        Self::new(Duration::from_secs(10))
    }
}

impl StorageError {
    /// The outage this error is, if any.
    pub fn outage(&self) -> Option<Outage> {
        match self {
            Self::Sqlite(error) => super::sqlite::outage_of(error),
            #[cfg(feature = "postgres")]
            Self::Postgres(error) => super::postgres::outage_of(error),
            Self::TimedOut { .. } => Some(Outage::TimedOut),
            // r2d2 fails a checkout only when no connection came within its wait.
            Self::PoolTimeout(_) => Some(Outage::Busy),
            Self::Unavailable(outage, _) => Some(*outage),
            // Cancelled: the runtime is shutting down. A panic is a bug.
            Self::Task(error) => error.is_cancelled().then_some(Outage::Restarting),
            Self::Pool(_) | Self::Migration(_) | Self::Corrupt(_) | Self::Unusable(_) => None,
            #[cfg(not(feature = "postgres"))]
            Self::Unsupported(_) => None,
        }
    }

    /// An error of one of the service's own limits: `what` took longer than `limit`.
    pub fn timed_out(what: &'static str, limit: Duration) -> Self {
        Self::TimedOut { what, limit }
    }
}

/// The outage somewhere in `error`'s chain of causes: a storage error may reach the HTTP layer
/// wrapped (in `anyhow` by the directory's loader, in a task's error).
pub fn outage_in(error: &(dyn std::error::Error + 'static)) -> Option<Outage> {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(storage) = error.downcast_ref::<StorageError>() {
            return storage.outage();
        }
        cause = error.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_busy_full_and_read_only_are_outages_and_a_constraint_is_not() {
        let failure =
            |code: i32| StorageError::Sqlite(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None));
        assert_eq!(failure(rusqlite::ffi::SQLITE_BUSY).outage(), Some(Outage::Busy));
        assert_eq!(failure(rusqlite::ffi::SQLITE_LOCKED).outage(), Some(Outage::Busy));
        assert_eq!(failure(rusqlite::ffi::SQLITE_FULL).outage(), Some(Outage::Full));
        assert_eq!(failure(rusqlite::ffi::SQLITE_READONLY).outage(), Some(Outage::Unwritable));
        assert_eq!(failure(rusqlite::ffi::SQLITE_IOERR_WRITE).outage(), Some(Outage::Unwritable));
        assert_eq!(failure(rusqlite::ffi::SQLITE_CANTOPEN).outage(), Some(Outage::Unwritable));
        assert_eq!(failure(rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE).outage(), None);
        assert_eq!(failure(rusqlite::ffi::SQLITE_CORRUPT).outage(), None);
        assert_eq!(StorageError::Sqlite(rusqlite::Error::QueryReturnedNoRows).outage(), None);
        assert_eq!(StorageError::Corrupt("x".into()).outage(), None);
    }

    #[test]
    fn an_outage_is_found_through_the_errors_that_wrap_it() {
        let full = StorageError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        ));
        let wrapped = anyhow::Error::new(full).context("loading the directory").context("one more");
        assert_eq!(outage_in(wrapped.as_ref()), Some(Outage::Full));
        let bug = anyhow::anyhow!("not a storage error");
        assert_eq!(outage_in(bug.as_ref()), None);
    }

    #[tokio::test]
    async fn a_panicked_task_is_a_bug_and_a_timeout_an_outage() {
        let panicked = tokio::spawn(async { panic!("bug") }).await.expect_err("panicked");
        assert_eq!(StorageError::Task(panicked).outage(), None);
        assert_eq!(StorageError::timed_out("a statement", Duration::from_secs(1)).outage(), Some(Outage::TimedOut));
    }
}
