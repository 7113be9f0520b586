//! SQLite: one file, nothing to set up. Reads run on pooled connections, writes one at a time
//! on the single writer connection, all off the async threads (rusqlite blocks). Every
//! operation here is a plain function over a `rusqlite::Connection`; a write's runs inside the
//! writer's transaction.

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
mod rebuild;
pub mod removals;
pub mod request_history;
pub mod rows;
pub mod sandbox;
pub mod snapshots;
pub mod transactions;
pub mod usage;
pub mod webhooks;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, TransactionBehavior};
use rusqlite_migration::{M, Migrations};

use super::outage::{Outage, Timeouts};
use super::{StorageError, StorageResult};

/// Migrations, oldest first. Never change what one that has shipped makes: add the next (and
/// PostgreSQL's beside it, in `migrations/postgres`). 0007 and 0011 were hand-written table
/// rebuilds; they became hooks over [`rebuild`] that make the same schema (checked table by
/// table, column by column and index by index against the SQL they replaced).
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../../migrations/0001_core.sql")),
        M::up(include_str!("../../../migrations/0002_merchants.sql")),
        M::up(include_str!("../../../migrations/0003_directory.sql")),
        M::up(include_str!("../../../migrations/0004_secure_flows.sql")),
        M::up(include_str!("../../../migrations/0005_credential_generation.sql")),
        M::up(include_str!("../../../migrations/0006_keys_apart.sql")),
        M::up_with_hook(include_str!("../../../migrations/0007_bank_link_states.sql"), bank_link_states),
        M::up(include_str!("../../../migrations/0008_login_failures.sql")),
        M::up(include_str!("../../../migrations/0009_leases.sql")),
        M::up(include_str!("../../../migrations/0010_events.sql")),
        M::up_with_hook(include_str!("../../../migrations/0011_ids_never_reused.sql"), ids_never_reused)
            .foreign_key_check(),
        M::up(include_str!("../../../migrations/0012_api_versions.sql")),
        M::up(include_str!("../../../migrations/0013_delivery_queue.sql")),
        M::up(include_str!("../../../migrations/0014_fair_delivery.sql")),
        M::up(include_str!("../../../migrations/0015_subscriber_branding.sql")),
        M::up(include_str!("../../../migrations/0016_labels.sql")),
        M::up(include_str!("../../../migrations/0017_bank_consent.sql")),
        M::up(include_str!("../../../migrations/0018_person_sessions.sql")),
        M::up(include_str!("../../../migrations/0019_sandbox_scenarios.sql")),
        M::up(include_str!("../../../migrations/0020_request_history.sql")),
        M::up(include_str!("../../../migrations/0021_sandbox_snapshots.sql")),
        M::up(include_str!("../../../migrations/0022_request_answers.sql")),
    ])
}

/// 0007: a CHECK on a bank link's stage and status.
fn bank_link_states(transaction: &rusqlite::Transaction) -> rusqlite_migration::HookResult {
    rebuild::rebuild(transaction, "bank_accounts", |definition| {
        let staged = rebuild::redefine_column(
            definition,
            "stage",
            "TEXT NOT NULL",
            "TEXT NOT NULL CHECK (stage IN ('login', 'mfa', 'consent', 'done'))",
        )?;
        rebuild::redefine_column(
            &staged,
            "status",
            "TEXT NOT NULL",
            "TEXT NOT NULL CHECK (status IN ('pending', 'linked', 'failed'))",
        )
    })
}

/// 0011: every table whose ids others name takes AUTOINCREMENT, so an id is never given twice.
fn ids_never_reused(transaction: &rusqlite::Transaction) -> rusqlite_migration::HookResult {
    const TABLES: [&str; 9] = [
        "subscribers",
        "cards",
        "transactions",
        "merchants",
        "locations",
        "card_sessions",
        "bank_accounts",
        "persons",
        "person_question_sets",
    ];
    for table in TABLES {
        rebuild::rebuild(transaction, table, |definition| {
            rebuild::redefine_column(definition, "id", "INTEGER PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT")
        })?;
    }
    Ok(())
}

/// Applied to every connection. `synchronous = FULL` in WAL mode syncs the log at every
/// commit: an acknowledged write survives a crash of the process or of the machine.
/// `secure_delete` overwrites what is deleted, so a copy of the file does not keep it.
/// `mmap_size` reads the file through the page cache mapped in, not a `read` call per page
/// (a history read across many cards was a tenth in the kernel copying pages); `cache_size`
/// (16 MiB a connection) keeps the indexes of the cards being read.
const CONNECTION_PRAGMAS: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = FULL;
    PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 10000;
    PRAGMA temp_store = MEMORY;
    PRAGMA secure_delete = ON;
    PRAGMA mmap_size = 1073741824;
    PRAGMA cache_size = -16384;
";

/// Pooled read connections (beside the one writer).
pub(super) const READERS: usize = 8;

/// Statements each connection keeps prepared (the operations here hold about 150; rusqlite
/// keeps 16 unless told).
const STATEMENT_CACHE: usize = 256;

/// The database's application id (`PRAGMA application_id`, "SDW1"): what the readiness
/// probe writes, as the one harmless write there is (a frame in the write-ahead log).
const APPLICATION_ID: i32 = 0x5344_5731;

/// Free space below which the file system is taken as full: a write's pages, the write-ahead
/// log's growth and a checkpoint need room.
const MIN_FREE_BYTES: u64 = 1 << 20;

/// How long the outcome of a write (a request's or the probe's) stands for whether writes
/// succeed, before the probe writes again.
const WRITE_OUTCOME_REUSE: Duration = Duration::from_secs(1);

/// Longest the readiness probe waits for the writer (busy with a request's write): then the
/// last outcome answers.
const PROBE_WRITER_WAIT: Duration = Duration::from_millis(100);

pub struct Database {
    path: PathBuf,
    readers: r2d2::Pool<SqliteConnectionManager>,
    /// One write at a time: a write waits here, not holding a connection.
    writer: Arc<tokio::sync::Mutex<Connection>>,
    /// Set by the writer when a write queues a webhook delivery; the queue is told at commit.
    queued: Arc<AtomicBool>,
    deliveries: Arc<tokio::sync::Notify>,
    timeouts: Timeouts,
    /// The last write's outcome (a request's or the probe's), as `/readyz` tells it.
    last_write: parking_lot::Mutex<Option<(Instant, Result<(), Outage>)>>,
}

impl Database {
    /// Opens (creating the file if needed, readable by its owner only) and migrates. Blocking.
    pub fn open(path: &Path, deliveries: Arc<tokio::sync::Notify>, timeouts: Timeouts) -> StorageResult<Self> {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|error| StorageError::Corrupt(format!("cannot create {}: {error}", parent.display())))?;
        }
        create_private(path)?;
        let mut writer = Connection::open(path)?;
        writer.execute_batch(CONNECTION_PRAGMAS)?;
        writer.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        migrate(&mut writer)?;
        // SQLite says which rows a statement touched: a delivery queued by any write moves its
        // endpoint's row of `webhook_queues` (a trigger does; `webhook_deliveries` itself is
        // WITHOUT ROWID, which the hook does not see).
        let queued = Arc::new(AtomicBool::new(false));
        let marker = Arc::clone(&queued);
        writer.update_hook(Some(move |action, _: &str, table: &str, _| {
            if table == "webhook_queues" && action != rusqlite::hooks::Action::SQLITE_DELETE {
                marker.store(true, Ordering::Relaxed);
            }
        }))?;
        let busy = timeouts.statement;
        writer.busy_timeout(busy)?;
        let manager = SqliteConnectionManager::file(path).with_init(move |connection| {
            connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
            connection.execute_batch(CONNECTION_PRAGMAS)?;
            connection.busy_timeout(busy)
        });
        // No test query on every checkout: a local file does not drop its connection, and the
        // test (`SELECT 1` on a fresh read transaction) was a tenth of `GET /card/{id}`.
        let readers = r2d2::Pool::builder()
            .max_size(u32::try_from(READERS).unwrap_or(8))
            .test_on_check_out(false)
            .connection_timeout(timeouts.wait)
            .build(manager)?;
        Ok(Self {
            path: path.to_path_buf(),
            readers,
            writer: Arc::new(tokio::sync::Mutex::new(writer)),
            queued,
            deliveries,
            timeouts,
            last_write: parking_lot::Mutex::new(None),
        })
    }

    /// The writer, waited for within the service's limit: past it the write is an outage
    /// (503), not a request held until its own timeout.
    async fn writer(&self) -> StorageResult<tokio::sync::OwnedMutexGuard<Connection>> {
        let limit = self.timeouts.wait;
        tokio::time::timeout(limit, self.writer.clone().lock_owned()).await.map_err(|_| {
            StorageError::Unavailable(Outage::Busy, format!("the database's writer was busy for longer than {limit:?}"))
        })
    }

    /// Keeps what a write's outcome says about whether writes succeed: success, or an outage
    /// that is the database's (not one of contention, nor a statement's own fault).
    fn record_write<T>(&self, result: &StorageResult<T>) {
        let outcome = match result {
            Ok(_) => Ok(()),
            Err(error) => match error.outage() {
                Some(Outage::Busy) | None => return,
                Some(outage) => Err(outage),
            },
        };
        *self.last_write.lock() = Some((Instant::now(), outcome));
    }

    /// Runs `work` on a pooled connection off the async threads.
    pub async fn read<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StorageResult<T> + Send + 'static,
    {
        let readers = self.readers.clone();
        let started = Instant::now();
        let result = tokio::task::spawn_blocking(move || work(&*readers.get()?)).await?;
        crate::metrics::record_query("read", started.elapsed());
        result
    }

    /// A read of a row or two by key (a card by its id): run on the request's own thread when
    /// a connection is free at once. Handing such a read to the blocking pool cost two thread
    /// switches that outweighed the query: they were a third of the CPU time of
    /// `GET /card/{id}` under load. Anything that may scan goes through [`Database::read`].
    pub async fn read_by_key<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StorageResult<T> + Send + 'static,
    {
        if let Some(connection) = self.readers.try_get() {
            let started = Instant::now();
            let result = work(&connection);
            crate::metrics::record_query("read", started.elapsed());
            return result;
        }
        self.read(work).await
    }

    /// Runs `work` in one write transaction; commits when it returns `Ok`.
    pub async fn write<T, F>(&self, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StorageResult<T> + Send + 'static,
    {
        // The time includes the wait for the writer: it is what a request waits.
        let started = Instant::now();
        let mut writer = self.writer().await?;
        let queued = Arc::clone(&self.queued);
        let result = tokio::task::spawn_blocking(move || {
            queued.store(false, Ordering::Relaxed);
            let transaction = writer.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = work(&transaction)?;
            transaction.commit()?;
            Ok(value)
        })
        .await?;
        if result.is_ok() && self.queued.swap(false, Ordering::Relaxed) {
            self.deliveries.notify_one();
        }
        self.record_write(&result);
        crate::metrics::record_query("write", started.elapsed());
        result
    }

    pub async fn checkpoint(&self) -> StorageResult<()> {
        let writer = self.writer().await?;
        tokio::task::spawn_blocking(move || {
            writer.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            Ok(())
        })
        .await?
    }

    pub fn pool_connections(&self) -> (u32, u32) {
        let state = self.readers.state();
        (state.connections, state.idle_connections)
    }

    /// Whether the file answers and takes writes. Read on a connection of its own (the pool's
    /// would still answer for a deleted or renamed file; opening a local file costs no
    /// database session, so each probe looks afresh); the file system's free space and
    /// read-only flag; and whether writes succeed: the last write's outcome if it is recent,
    /// else a write of the probe's own (at most one a second, never waiting long for the
    /// writer).
    pub async fn probe(&self) -> Result<i32, &'static str> {
        let path = self.path.clone();
        let pending = tokio::task::spawn_blocking(move || room_for_writes(&path).and_then(|()| probe(&path)))
            .await
            .unwrap_or(Err("the probe failed"))?;
        self.writes_succeed().await.map_err(Outage::reason)?;
        Ok(pending)
    }

    async fn writes_succeed(&self) -> Result<(), Outage> {
        let last = *self.last_write.lock();
        if let Some((at, outcome)) = last
            && at.elapsed() < WRITE_OUTCOME_REUSE
        {
            return outcome;
        }
        // A write of a request under way: its outcome will tell; meanwhile the last one does.
        let Ok(writer) = tokio::time::timeout(PROBE_WRITER_WAIT, self.writer.clone().lock_owned()).await else {
            return last.map_or(Ok(()), |(_, outcome)| outcome);
        };
        let written = tokio::task::spawn_blocking(move || {
            writer.pragma_update(None, "application_id", APPLICATION_ID).map_err(StorageError::from)
        })
        .await
        .map_err(StorageError::from)
        .and_then(|written| written);
        if let Err(error) = &written {
            tracing::warn!(error = %error, "readiness: the database takes no writes");
        }
        self.record_write(&written);
        match written {
            Ok(()) => Ok(()),
            Err(error) => Err(error.outage().unwrap_or(Outage::Unwritable)),
        }
    }
}

/// Whether the file system holding the database has room and takes writes.
fn room_for_writes(path: &Path) -> Result<(), &'static str> {
    #[cfg(unix)]
    {
        let folder = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if let Ok(stats) = rustix::fs::statvfs(folder) {
            if stats.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
                return Err(Outage::Unwritable.reason());
            }
            if stats.f_bavail.saturating_mul(stats.f_frsize) < MIN_FREE_BYTES {
                return Err(Outage::Full.reason());
            }
        }
    }
    let _ = path;
    Ok(())
}

/// Whether `error` is the database's passing state rather than a fault of the statement: see
/// [`Outage`].
pub fn outage_of(error: &rusqlite::Error) -> Option<Outage> {
    use rusqlite::ErrorCode;
    match error.sqlite_error_code()? {
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => Some(Outage::Busy),
        ErrorCode::DiskFull => Some(Outage::Full),
        ErrorCode::ReadOnly | ErrorCode::SystemIoFailure | ErrorCode::CannotOpen => Some(Outage::Unwritable),
        _ => None,
    }
}

/// Applies the migrations not applied yet. Foreign keys are off meanwhile, as SQLite's way of
/// rebuilding a table that others reference asks (a migration that rebuilds checks them).
fn migrate(connection: &mut Connection) -> StorageResult<()> {
    connection.execute_batch("PRAGMA foreign_keys = OFF")?;
    let migrated = migrations().to_latest(connection);
    connection.execute_batch("PRAGMA foreign_keys = ON")?;
    Ok(migrated?)
}

/// `Ok` holds the number of migrations not applied yet. Never creates the file.
pub fn probe(path: &Path) -> Result<i32, &'static str> {
    use rusqlite::OpenFlags;
    let logged = |what: &'static str| {
        move |error: rusqlite_migration::Error| {
            tracing::warn!(error = %error, "readiness: {what}");
            what
        }
    };
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|error| logged("the database file cannot be opened")(error.into()))?;
    connection
        .busy_timeout(Duration::from_secs(2))
        .and_then(|()| connection.query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get::<_, i64>(0)))
        .map_err(|error| logged("the database does not answer")(error.into()))?;
    // A file the service's user may no longer write opens read-only.
    if connection.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
        tracing::warn!("readiness: the database file is read-only");
        return Err(Outage::Unwritable.reason());
    }
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

/// A column read as `T`, or the stored data is not valid.
pub(super) fn corrupt(what: impl std::fmt::Display) -> StorageError {
    StorageError::Corrupt(what.to_string())
}

/// Many rows per statement: a few statement sizes only, so each is prepared once per
/// connection. Returns the ids SQLite gave the rows, in the order of `rows`.
pub(super) fn insert_rows(
    connection: &Connection,
    insert: &str,
    columns: usize,
    rows: &[Vec<rusqlite::types::Value>],
) -> StorageResult<Vec<i64>> {
    let mut ids = Vec::with_capacity(rows.len());
    let mut rest = rows;
    while !rest.is_empty() {
        // SQLite allows 32,766 parameters a statement.
        let size =
            [256, 64, 16, 4, 1].into_iter().find(|size| *size <= rest.len() && size * columns <= 32_000).unwrap_or(1);
        let (chunk, remaining) = rest.split_at(size);
        rest = remaining;
        let placeholders: Vec<String> = (0..size)
            .map(|row| {
                let numbers: Vec<String> = (1..=columns).map(|column| format!("?{}", row * columns + column)).collect();
                format!("({})", numbers.join(", "))
            })
            .collect();
        let sql = format!("{insert} VALUES {} RETURNING id", placeholders.join(", "));
        let mut statement = connection.prepare_cached(&sql)?;
        let values = chunk.iter().flatten();
        let mut chunk_ids = statement
            .query_map(rusqlite::params_from_iter(values), |row| row.get::<_, i64>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        // Rows of one statement are numbered in their order; RETURNING may not list them so.
        chunk_ids.sort_unstable();
        ids.extend(chunk_ids);
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }

    #[test]
    fn ids_are_kept_by_0011_and_never_given_twice() {
        let mut connection = Connection::open_in_memory().expect("database");
        connection.execute_batch("PRAGMA foreign_keys = ON;").expect("pragma");
        migrations().to_version(&mut connection, 10).expect("migrated to 0010");
        connection
            .execute_batch(
                "INSERT INTO subscribers (id, email, client_id, public_key, secret_hash, created_at)
                     VALUES (1, 'a@example.com', 'c', 'p', 'h', 0);
                 INSERT INTO cards (id, subscriber_id, fingerprint, last_four, brand, first_name, last_name,
                                    exp_month, exp_year, country_code, enrolled_at)
                     VALUES (5, 1, x'01', 4242, 'visa', 'A', 'B', 12, 2030, 'USA', 0);
                 INSERT INTO transactions (id, card_id, last_four, created_at, pending, amount_minor, currency,
                     merchant_name, descriptor, category, street, street_no, city, country, zip, change_seq)
                     VALUES (9, 5, 4242, 0, 0, 100, 'USD', 'M', 'M', '5812', 'S', '1', 'C', 'USA', '1', 3);",
            )
            .expect("rows made before 0011");
        migrate(&mut connection).expect("migrated to the latest");
        let kept: (i64, i64) = connection
            .query_row("SELECT id, change_seq FROM transactions WHERE card_id = 5", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .expect("the row is still there");
        assert_eq!(kept, (9, 3));
        connection.execute_batch("DELETE FROM transactions; DELETE FROM cards;").expect("deleted");
        connection
            .execute(
                "INSERT INTO cards (subscriber_id, fingerprint, last_four, brand, first_name, last_name, exp_month,
                     exp_year, country_code, enrolled_at) VALUES (1, x'02', 1111, 'visa', 'A', 'B', 12, 2030, 'USA', 0)",
                [],
            )
            .expect("a new card");
        assert_eq!(connection.last_insert_rowid(), 6, "the deleted card's id 5 is not given again");
    }

    #[test]
    fn bank_links_keep_their_rows_and_refuse_unknown_states_after_0007() {
        let mut connection = Connection::open_in_memory().expect("database");
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
        migrate(&mut connection).expect("migrated to the latest");
        let sql = format!("SELECT {} FROM bank_accounts WHERE id = 7", crate::storage::rows::bank_accounts::COLUMNS);
        let row: crate::storage::rows::bank_accounts::BankAccountRow =
            rows::first(&connection, sql.as_str(), []).expect("read").expect("the link is still there");
        assert_eq!(
            (row.stage, row.status),
            (
                crate::storage::rows::bank_accounts::LinkStage::Mfa,
                crate::storage::rows::bank_accounts::LinkStatus::Pending
            )
        );
        for update in ["UPDATE bank_accounts SET stage = 'lost'", "UPDATE bank_accounts SET status = 'expired'"] {
            assert!(connection.execute(update, []).is_err(), "{update} is refused");
        }
    }
}
