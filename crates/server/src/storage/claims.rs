//! Claims other instances see, on PostgreSQL: an idempotency key whose first request one
//! instance is serving is refused by the others until it is done. A claim is a session
//! advisory lock on one connection each instance keeps for its claims, so the claims of an
//! instance that crashes end with its connection: nothing is left to refuse a retry forever.

use parking_lot::Mutex;

use super::sql::Dialect;
use super::{Db, StorageResult};

pub struct Claims {
    db: Db,
    session: Mutex<Option<super::postgres::Client>>,
}

impl Claims {
    /// `None` on SQLite (one instance: its in-process set is enough).
    pub fn new(db: &Db) -> Option<Self> {
        (db.dialect() == Dialect::Postgres).then(|| Self { db: db.clone(), session: Mutex::new(None) })
    }

    /// Claims `id`; `false` when another instance holds it. Blocking.
    pub fn try_claim(&self, id: i64) -> StorageResult<bool> {
        let mut session = self.session.lock();
        if session.as_ref().is_none_or(|client| client.is_closed()) {
            *session = Some(self.db.connect_postgres()?);
        }
        let Some(client) = session.as_mut() else { return Ok(false) };
        match client.query_one("SELECT pg_try_advisory_lock($1)", &[&id]) {
            Ok(row) => Ok(row.try_get(0)?),
            Err(error) => {
                *session = None;
                Err(error.into())
            }
        }
    }

    /// Ends the claim on `id` (a connection lost since has ended it already). Blocking.
    pub fn release(&self, id: i64) {
        if let Some(client) = self.session.lock().as_mut() {
            let _ = client.query_one("SELECT pg_advisory_unlock($1)", &[&id]);
        }
    }
}
