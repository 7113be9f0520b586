//! PostgreSQL: a pool of connections, its own migrations, and one rule that keeps the store
//! operations as they are on SQLite: every write transaction of every instance first takes one
//! database-wide lock, so writes commit one at a time and in the order of their ids (what
//! SQLite's single writer gives), while reads run in parallel on every instance.

use std::time::Duration;

use super::sql::{Connection, PgSession, Transaction};
use super::{StorageError, StorageResult};

/// The advisory lock every write transaction holds until it ends ("SDW" + 1).
const WRITE_LOCK: i64 = 0x5344_5701;
/// Held while migrating, so instances started together migrate once.
const MIGRATION_LOCK: i64 = 0x5344_5702;

/// PostgreSQL migrations, oldest first; `0001` is SQLite's schema after its `0010`. Never
/// edit one that has shipped: add the next here and SQLite's beside it.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_schema.sql"),
    // 0002 is taken by the storage rework (issue 24): it goes before this one when merged.
    include_str!("../../migrations/postgres/0003_api_versions.sql"),
];

/// Connections per instance.
const POOL_SIZE: u32 = 16;

pub struct Manager {
    config: postgres::Config,
}

impl r2d2::ManageConnection for Manager {
    type Connection = PgSession;
    type Error = StorageError;

    fn connect(&self) -> Result<PgSession, StorageError> {
        Ok(PgSession::new(connect(&self.config)?))
    }

    fn is_valid(&self, session: &mut PgSession) -> Result<(), StorageError> {
        Ok(session.client.simple_query("").map(|_| ())?)
    }

    fn has_broken(&self, session: &mut PgSession) -> bool {
        session.is_broken()
    }
}

/// A connection: TLS when the address asks for it (`sslmode=require`), the server's
/// certificate checked against the system's trusted roots (`SSL_CERT_FILE` adds one), never
/// falling back to plain TCP; plain otherwise (`prefer` included: a certificate nobody can
/// check is no better than none).
pub fn connect(config: &postgres::Config) -> StorageResult<Client> {
    let client = match config.get_ssl_mode() {
        postgres::config::SslMode::Disable | postgres::config::SslMode::Prefer => config.connect(postgres::NoTls)?,
        _ => {
            let (tls, _) = tokio_postgres_rustls::MakeRustlsConnect::with_native_certs()
                .map_err(|_| StorageError::Corrupt("no trusted root certificates for TLS to PostgreSQL".into()))?;
            config.connect(tls)?
        }
    };
    Ok(Client::new(client))
}

fn config(url: &str) -> StorageResult<postgres::Config> {
    let mut config: postgres::Config = url.parse()?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    config.application_name("subscriber-data");
    Ok(config)
}

/// Connects, migrates, and returns the pool (and the settings, for connections of their own).
pub fn open(url: &str) -> StorageResult<(r2d2::Pool<Manager>, postgres::Config)> {
    let config = config(url)?;
    let mut client = connect(&config)?;
    migrate(&mut client)?;
    // No test query at checkout: it is a round trip more on every request. A connection the
    // driver knows is closed is replaced at checkout (`has_broken`); one that died silently
    // fails its request once and is dropped.
    let pool = r2d2::Pool::builder()
        .max_size(POOL_SIZE)
        .min_idle(Some(2))
        .connection_timeout(Duration::from_secs(30))
        .test_on_check_out(false)
        .build(Manager { config: config.clone() })?;
    Ok((pool, config))
}

fn migrate(client: &mut postgres::Client) -> StorageResult<()> {
    let mut transaction = client.transaction()?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    transaction.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
    )?;
    let applied: i64 = transaction.query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[])?.get(0);
    for (index, migration) in MIGRATIONS.iter().enumerate() {
        let version = i64::try_from(index + 1).unwrap_or(i64::MAX);
        if version > applied {
            transaction.batch_execute(migration)?;
            transaction.execute("INSERT INTO schema_migrations (version) VALUES ($1)", &[&version])?;
            tracing::info!(version, "PostgreSQL migration applied");
        }
    }
    transaction.commit()?;
    Ok(())
}

/// Migrations not applied yet (negative: the database is newer than this service), or what
/// is wrong, in words fit for an unauthenticated caller.
pub fn probe(url: &str) -> Result<i32, &'static str> {
    let logged = |what: &'static str| {
        move |error: postgres::Error| {
            tracing::warn!(error = %error, "readiness: {what}");
            what
        }
    };
    let mut config = config(url).map_err(|_| "the database address is not valid")?;
    config.connect_timeout(Duration::from_secs(2));
    let mut client = connect(&config).map_err(|error| {
        tracing::warn!(error = %error, "readiness: the database cannot be reached");
        "the database cannot be reached"
    })?;
    let applied: i64 = client
        .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[])
        .and_then(|row| row.try_get(0))
        .map_err(logged("the schema version cannot be read"))?;
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    Ok(i32::try_from(known - applied).unwrap_or(i32::MIN))
}

/// Reads run statement by statement (each sees what is committed when it starts), as SQLite's
/// pooled readers do.
pub fn read<T>(pool: &r2d2::Pool<Manager>, work: impl FnOnce(&Connection<'_>) -> StorageResult<T>) -> StorageResult<T> {
    let mut session = pool.get()?;
    work(&Connection::postgres(&mut session))
}

/// One write transaction holding [`WRITE_LOCK`]; committed when `work` returns `Ok`, rolled
/// back otherwise (and when `work` panics: the connection goes back to the pool clean).
pub fn write<T>(
    pool: &r2d2::Pool<Manager>,
    work: impl FnOnce(&Transaction<'_>) -> StorageResult<T>,
) -> StorageResult<T> {
    struct Open<'a> {
        session: &'a mut PgSession,
        done: bool,
    }
    impl Drop for Open<'_> {
        fn drop(&mut self) {
            if !self.done {
                let _ = self.session.client.batch_execute("ROLLBACK");
            }
        }
    }
    let mut session = pool.get()?;
    session.client.batch_execute(&format!("BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})"))?;
    let mut open = Open { session: &mut session, done: false };
    let value = work(&Transaction::new(Connection::postgres(open.session)))?;
    open.session.client.batch_execute("COMMIT")?;
    open.done = true;
    Ok(value)
}

/// What went wrong, with the database's own message (not its `detail`, which may quote the
/// values of a row).
pub fn describe(error: &postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => error.to_string(),
    }
}

/// A connection whose closing never blocks an async thread: the driver closes a connection by
/// blocking on it, which panics on a thread that drives async tasks (a router dropped at
/// shutdown, say); there it is closed on a thread of its own.
pub struct Client(Option<postgres::Client>);

impl Client {
    pub fn new(client: postgres::Client) -> Self {
        Self(Some(client))
    }
}

impl std::ops::Deref for Client {
    type Target = postgres::Client;
    fn deref(&self) -> &postgres::Client {
        self.0.as_ref().unwrap_or_else(|| unreachable!("only taken when dropped"))
    }
}

impl std::ops::DerefMut for Client {
    fn deref_mut(&mut self) -> &mut postgres::Client {
        self.0.as_mut().unwrap_or_else(|| unreachable!("only taken when dropped"))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(client) = self.0.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            let _ = std::thread::Builder::new().name("postgres-close".into()).spawn(move || drop(client));
        }
    }
}

/// The address without its password, for logs.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let Some((credentials, host)) = rest.rsplit_once('@') else { return url.to_owned() };
    let user = credentials.split(':').next().unwrap_or_default();
    let query_free = host.split('?').next().unwrap_or(host);
    format!("{scheme}://{user}@{query_free}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_name_names_the_default_key_file() {
        use super::super::Location;
        let name = |url: &str| url.parse::<Location>().ok().and_then(|location| location.database_name());
        assert_eq!(name("postgres://app:s3cret@db.internal:5432/data?sslmode=require").as_deref(), Some("data"));
        assert_eq!(name("postgresql://db/subscriber_data").as_deref(), Some("subscriber_data"));
        assert_eq!(name("postgres://db").as_deref(), None);
        assert_eq!(name("postgres://db/../etc").as_deref(), None);
        assert_eq!(name("service.sqlite3"), None);
    }

    #[test]
    fn passwords_stay_out_of_logs() {
        assert_eq!(
            without_password("postgres://app:s3cret@db.internal:5432/data?sslmode=require"),
            "postgres://app@db.internal:5432/data"
        );
        assert_eq!(without_password("postgres://db/data"), "postgres://db/data");
    }
}
