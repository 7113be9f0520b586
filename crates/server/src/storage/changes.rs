//! What a write tells the other instances sharing a PostgreSQL database, and how an instance
//! hears it: `NOTIFY` in the writing transaction (delivered at its commit, dropped with its
//! rollback) and `LISTEN` on a connection of its own. On SQLite, which one instance serves,
//! there is nothing to tell.

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use super::sql::{Dialect, Transaction, params};
use super::{Db, StorageError, StorageResult};

const CHANNEL: &str = "subscriber_changes";

/// A kind of change other instances keep in memory and must follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Events were recorded (transactions for the streams, locations for discovery).
    Events,
    /// The subscriber's credential generation moved on: older tokens are revoked.
    Credentials(i64),
    /// The subscriber's sandbox data was deleted: what was kept of it goes too.
    Reset(i64),
    /// The subscriber's pinned API version moved.
    ApiVersion(i64),
}

impl Change {
    fn payload(self) -> String {
        match self {
            Self::Events => "events".to_owned(),
            Self::Credentials(subscriber_id) => format!("credentials:{subscriber_id}"),
            Self::Reset(subscriber_id) => format!("reset:{subscriber_id}"),
            Self::ApiVersion(subscriber_id) => format!("api_version:{subscriber_id}"),
        }
    }

    fn parse(payload: &str) -> Option<Self> {
        match payload.split_once(':') {
            None if payload == "events" => Some(Self::Events),
            Some(("credentials", id)) => id.parse().ok().map(Self::Credentials),
            Some(("reset", id)) => id.parse().ok().map(Self::Reset),
            Some(("api_version", id)) => id.parse().ok().map(Self::ApiVersion),
            _ => None,
        }
    }
}

/// Tells the other instances, at commit.
pub fn announce(transaction: &Transaction<'_>, change: Change) -> StorageResult<()> {
    if transaction.dialect() == Dialect::Postgres {
        transaction.execute("SELECT pg_notify(?1, ?2)", params![CHANNEL, change.payload()])?;
    }
    Ok(())
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
    db: Db,
    client: Option<super::postgres::Client>,
}

impl Listener {
    /// `None` on SQLite.
    pub fn new(db: &Db) -> Option<Self> {
        (db.dialect() == Dialect::Postgres).then(|| Self { db: db.clone(), client: None })
    }

    /// Waits up to `wait` for changes; blocking (run it on a thread of its own).
    pub fn next(&mut self, wait: Duration) -> StorageResult<Heard> {
        let Some(client) = self.client.as_mut() else {
            let mut client = self.db.connect_postgres()?;
            client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
            self.client = Some(client);
            return Ok(Heard::Reconnected);
        };
        let mut heard = Vec::new();
        let first = client.notifications().timeout_iter(wait).next();
        match first {
            Err(error) => {
                self.client = None;
                return Err(StorageError::Postgres(error));
            }
            Ok(Some(notification)) => {
                heard.extend(Change::parse(notification.payload()));
                // Whatever else has arrived too, without waiting again.
                let mut notifications = client.notifications();
                let mut pending = notifications.iter();
                while let Ok(Some(notification)) = pending.next() {
                    heard.extend(Change::parse(notification.payload()));
                }
            }
            Ok(None) => {}
        }
        if heard.is_empty() {
            // A closed connection reads as silence: make sure it is open.
            if self.client.as_ref().is_some_and(|client| client.is_closed()) {
                self.client = None;
            }
            return Ok(Heard::Nothing);
        }
        heard.dedup();
        Ok(Heard::Changes(heard))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_read_back() {
        for change in [Change::Events, Change::Credentials(42), Change::Reset(7), Change::ApiVersion(3)] {
            assert_eq!(Change::parse(&change.payload()), Some(change));
        }
        assert_eq!(Change::parse("credentials:x"), None);
        assert_eq!(Change::parse("other"), None);
    }
}
