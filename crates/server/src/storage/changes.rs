//! What a write tells the other instances sharing a PostgreSQL database, and how an instance
//! hears it: a `NOTIFY` sent once the write has committed (by one task, in batches: see
//! `postgres`) and `LISTEN` on a connection of its own, an async task that reconnects. On
//! SQLite, which one instance serves, there is nothing to tell.

use std::time::Duration;

use super::{Database, StorageResult, Store, postgres};

pub use super::notices::Change;

impl Store {
    /// Tells the other instances, once committed (nothing to tell on SQLite).
    pub fn announce(&self, change: &Change) {
        if *change == Change::Deliveries {
            self.wake_deliveries();
        }
        #[cfg(feature = "postgres")]
        if let Database::Postgres(db) = &*self.backend {
            db.notify(change.payload());
        }
    }
}

/// What an instance hears.
pub enum Heard {
    Changes(Vec<Change>),
    /// Nothing within the wait.
    Nothing,
    /// The connection was (re)made: whatever was said meanwhile was missed.
    Reconnected,
}

/// A connection listening for other instances' changes (PostgreSQL only).
pub struct Listener {
    #[cfg(feature = "postgres")]
    store: Store,
    #[cfg(feature = "postgres")]
    connection: Option<postgres::Session>,
}

impl Listener {
    /// `None` on SQLite.
    pub fn new(store: &Store) -> Option<Self> {
        #[cfg(feature = "postgres")]
        return store.is_shared().then(|| Self { store: store.clone(), connection: None });
        #[cfg(not(feature = "postgres"))]
        return store.is_shared().then_some(Self {});
    }

    /// Waits up to `wait` for changes (without PostgreSQL there is never a listener).
    #[cfg(not(feature = "postgres"))]
    pub async fn next(&mut self, _wait: Duration) -> StorageResult<Heard> {
        Ok(Heard::Nothing)
    }

    /// Waits up to `wait` for changes.
    #[cfg(feature = "postgres")]
    pub async fn next(&mut self, wait: Duration) -> StorageResult<Heard> {
        let Some(session) = self.connection.as_mut() else {
            let Database::Postgres(db) = &*self.store.backend else { return Ok(Heard::Nothing) };
            let session = db.connect_own().await?;
            let limit = db.timeouts().statement;
            tokio::time::timeout(limit, session.batch_execute(&format!("LISTEN {}", postgres::CHANNEL)))
                .await
                .map_err(|_| super::StorageError::timed_out("LISTEN", limit))??;
            self.connection = Some(session);
            return Ok(Heard::Reconnected);
        };
        let mut heard = Vec::new();
        match tokio::time::timeout(wait, session.notifications.recv()).await {
            // The connection ended: made again at the next call.
            Ok(None) => {
                self.connection = None;
                return Err(super::StorageError::Unavailable(
                    super::Outage::Unreachable,
                    "the listening connection ended".into(),
                ));
            }
            Ok(Some(notification)) => {
                heard.extend(Change::parse(notification.payload()));
                // Whatever else has arrived too, without waiting again.
                while let Ok(notification) = session.notifications.try_recv() {
                    heard.extend(Change::parse(notification.payload()));
                }
            }
            Err(_) => {
                if session.is_closed() {
                    self.connection = None;
                }
                return Ok(Heard::Nothing);
            }
        }
        heard.dedup();
        Ok(Heard::Changes(heard))
    }
}
