//! Claims other instances see, on PostgreSQL: an idempotency key whose first request one
//! instance is serving is refused by the others until it is done. A claim is a session
//! advisory lock on one connection each instance keeps for its claims, so the claims of an
//! instance that crashes end with its connection: nothing is left to refuse a retry forever.

#[cfg(feature = "postgres")]
use tokio::sync::Mutex;

#[cfg(feature = "postgres")]
use super::{Database, StorageError};
use super::{StorageResult, Store};

pub struct Claims {
    #[cfg(feature = "postgres")]
    store: Store,
    #[cfg(feature = "postgres")]
    session: Mutex<Option<super::postgres::Session>>,
}

impl Claims {
    /// `None` on SQLite (one instance: its in-process set is enough).
    pub fn new(store: &Store) -> Option<Self> {
        #[cfg(feature = "postgres")]
        return store.is_shared().then(|| Self { store: store.clone(), session: Mutex::new(None) });
        #[cfg(not(feature = "postgres"))]
        return store.is_shared().then_some(Self {});
    }

    /// Without PostgreSQL there are never claims to share.
    #[cfg(not(feature = "postgres"))]
    pub async fn try_claim(&self, _lock: i64) -> StorageResult<bool> {
        Ok(true)
    }

    #[cfg(not(feature = "postgres"))]
    pub async fn release(&self, _lock: i64) {}

    /// Takes the advisory lock numbered `lock`; `false` when another instance holds it.
    #[cfg(feature = "postgres")]
    pub async fn try_claim(&self, lock: i64) -> StorageResult<bool> {
        let Database::Postgres(db) = &*self.store.backend else { return Ok(true) };
        let limit = db.timeouts().statement;
        // Claims wait for each other here, within the statement limit: a hung session holds
        // up no request for longer.
        let mut session = tokio::time::timeout(limit, self.session.lock())
            .await
            .map_err(|_| StorageError::timed_out("an idempotency claim", limit))?;
        if session.as_deref().is_none_or(tokio_postgres::Client::is_closed) {
            *session = Some(db.connect_own().await?);
        }
        let Some(client) = session.as_ref() else { return Ok(false) };
        match tokio::time::timeout(limit, client.query_one("SELECT pg_try_advisory_lock($1)", &[&lock])).await {
            Ok(Ok(row)) => Ok(row.try_get(0)?),
            Ok(Err(error)) => {
                *session = None;
                Err(StorageError::Postgres(error))
            }
            // Its answer may still come: the session is dropped (its claims end with it).
            Err(_) => {
                *session = None;
                Err(StorageError::timed_out("an idempotency claim", limit))
            }
        }
    }

    /// Ends the claim on `lock` (a connection lost since has ended it already).
    #[cfg(feature = "postgres")]
    pub async fn release(&self, lock: i64) {
        let Database::Postgres(db) = &*self.store.backend else { return };
        let limit = db.timeouts().statement;
        let Ok(mut session) = tokio::time::timeout(limit, self.session.lock()).await else { return };
        if let Some(client) = session.as_ref()
            && !matches!(
                tokio::time::timeout(limit, client.query_one("SELECT pg_advisory_unlock($1)", &[&lock])).await,
                Ok(Ok(_))
            )
        {
            // A session that cannot unlock is dropped, and every claim on it with it.
            *session = None;
        }
    }
}
