//! Leases on work one instance at a time does, when several instances share a database.

use std::time::Duration;

use subscriber_protocol::UnixMillis;

use crate::storage::Store;

/// How long a lease lasts unless renewed; its holder renews it every third of that.
const LEASE: Duration = Duration::from_secs(15);

/// A lease on work one instance at a time does (instances share the database): the holder
/// does the work; the others check again every few seconds and take over once it lapses
/// (its holder stopped or crashed).
pub struct Lease {
    name: &'static str,
    /// This process, for the life of the lease.
    holder: String,
    holding: bool,
    next_check: UnixMillis,
}

impl Lease {
    pub fn new(name: &'static str) -> Self {
        Self { name, holder: uuid::Uuid::new_v4().to_string(), holding: false, next_check: UnixMillis(0) }
    }

    /// Whether this instance holds the lease now, renewing (or trying to take) it when a third
    /// of its time has passed since the last look. A failed renewal stops the work: doing it
    /// twice is worse than pausing it.
    pub async fn held(&mut self, db: &Store) -> bool {
        let now = UnixMillis::now();
        if now < self.next_check {
            return self.holding;
        }
        let (name, holder) = (self.name, self.holder.clone());
        let held = db.hold_lease(name, holder, now, now.plus(LEASE)).await;
        if let Err(error) = &held {
            tracing::warn!(error = %error, lease = self.name, "a lease could not be renewed: its work pauses");
        }
        let holding = matches!(held, Ok(true));
        if holding != self.holding {
            tracing::info!(lease = self.name, holding, "lease changed hands");
        }
        self.holding = holding;
        self.next_check = now.plus(LEASE / 3);
        holding
    }
}
