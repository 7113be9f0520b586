//! Billable request counts: every authenticated request in `established`, counted in memory
//! by `http::usage` and flushed to the database in the background.

use std::collections::HashMap;
use subscriber_protocol::SubscriberId;

use chrono::Utc;
use parking_lot::Mutex;
use subscriber_protocol::Environment;

use crate::storage::{StorageResult, Store};

type Key = (SubscriberId, String, String);

/// A response extension: what the request is billed as, when it is more than one (each
/// transaction of `POST /transactions/enrich`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Billable(pub u64);

/// Counts in memory on the hot path; `flush` moves them to the database.
pub struct UsageRecorder {
    billing: bool,
    pending: Mutex<HashMap<Key, u64>>,
}

impl UsageRecorder {
    pub fn new(environment: Environment) -> Self {
        Self { billing: environment == Environment::Established, pending: Mutex::default() }
    }

    pub fn is_billing(&self) -> bool {
        self.billing
    }

    /// Counts `units` billable items of one request (the transactions of an enrich batch).
    pub fn record_units(&self, subscriber_id: SubscriberId, endpoint: String, units: u64) {
        let day = Utc::now().date_naive().to_string();
        *self.pending.lock().entry((subscriber_id, day, endpoint)).or_default() += units;
    }

    pub async fn flush(&self, db: &Store) -> StorageResult<()> {
        let batch: Vec<(Key, u64)> = self.pending.lock().drain().collect();
        if batch.is_empty() {
            return Ok(());
        }
        db.add_usage(batch).await
    }
}
