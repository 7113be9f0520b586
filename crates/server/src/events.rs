//! The in-process announcement of transaction events to the open streams (`realtime`).

use std::collections::HashMap;
use std::sync::Arc;

use crate::storage::Transaction;
use parking_lot::{Mutex, RwLock};
use tokio::sync::{broadcast, watch};

use crate::storage::events::EventRow;
use crate::storage::transactions::Owner;
use crate::storage::{Db, StorageResult};

/// An event's id as the API shows it (`GET /events`, the streams' `id:`, webhook deliveries).
pub fn public_id(id: i64) -> String {
    format!("evt_{id}")
}

/// An event id the API showed (`evt_` and digits).
pub fn parse_public_id(text: &str) -> Option<i64> {
    parse_digits(text.strip_prefix("evt_")?)
}

/// A stream's `Last-Event-ID`: an event id, or the bare number streams sent before events had
/// a prefix.
pub fn parse_stream_id(text: &str) -> Option<i64> {
    parse_digits(text.strip_prefix("evt_").unwrap_or(text))
}

fn parse_digits(digits: &str) -> Option<i64> {
    // At most 18 digits: every id fits, and no text overflows.
    if !(1..=18).contains(&digits.len()) || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse::<i64>().ok()
}

/// Events a slow stream may fall behind by before it catches up from the database.
pub(crate) const CAPACITY: usize = 1024;

/// Streams one subscriber may hold open at once (the contract's live-environment rule).
pub const MAX_STREAMS_PER_SUBSCRIBER: usize = 10;

pub struct EventHub {
    sender: broadcast::Sender<Arc<EventRow>>,
    closed: watch::Sender<bool>,
    /// Open streams per subscriber; a subscriber without any has no entry.
    open_streams: Mutex<HashMap<i64, usize>>,
    /// The id of the newest event of each card and merchant that has had one since the start:
    /// every change of a transaction comes with an event, so a page read while that id was
    /// the newest is still the page (`transaction_pages`).
    latest: RwLock<HashMap<Owner, i64>>,
}

impl Default for EventHub {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(CAPACITY).0,
            closed: watch::channel(false).0,
            open_streams: Mutex::default(),
            latest: RwLock::default(),
        }
    }
}

/// One of a subscriber's open streams; dropped when the stream ends.
pub struct StreamSlot {
    hub: Arc<EventHub>,
    subscriber_id: i64,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.hub.open_streams.lock();
        if let Some(count) = open.get_mut(&self.subscriber_id) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.subscriber_id);
            }
        }
    }
}

impl EventHub {
    /// Events committed from now on, in id order. Subscribe before reading what the database
    /// already holds, so nothing falls between the two.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<EventRow>> {
        self.sender.subscribe()
    }

    /// Announces committed events; call in commit order (see [`EventHub::write`]).
    pub fn publish(&self, events: &[EventRow]) {
        if !events.is_empty() {
            let mut latest = self.latest.write();
            for event in events {
                let row = &event.transaction;
                let owners = [row.card_id.map(Owner::Card), row.merchant_id.map(Owner::Merchant)];
                for owner in owners.into_iter().flatten() {
                    latest.insert(owner, event.id);
                }
            }
        }
        for event in events {
            // An error only means that no stream is open.
            let _ = self.sender.send(Arc::new(event.clone()));
        }
    }

    /// The id of the newest event of `owner`'s transactions announced since the start (0 for
    /// none). Read it before reading the transactions: a change committed after the read
    /// announces a newer id.
    pub fn latest_event(&self, owner: Owner) -> i64 {
        self.latest.read().get(&owner).copied().unwrap_or(0)
    }

    /// Runs `work` in one write transaction and announces the events it returns once they are
    /// committed, before the next write can commit.
    pub async fn write<T, F>(self: &Arc<Self>, db: &Db, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> StorageResult<(T, Vec<EventRow>)> + Send + 'static,
    {
        let hub = Arc::clone(self);
        let (value, _) = db.write_then(work, move |(_, events)| hub.publish(events)).await?;
        Ok(value)
    }

    /// A slot for one more stream of the subscriber; `None` when it holds the most it may.
    pub fn claim_stream(self: &Arc<Self>, subscriber_id: i64) -> Option<StreamSlot> {
        let mut open = self.open_streams.lock();
        let count = open.entry(subscriber_id).or_insert(0);
        if *count >= MAX_STREAMS_PER_SUBSCRIBER {
            return None;
        }
        *count += 1;
        Some(StreamSlot { hub: Arc::clone(self), subscriber_id })
    }

    /// Ends every open stream: the service is shutting down, and graceful shutdown waits for
    /// open responses.
    pub fn close(&self) {
        self.closed.send_replace(true);
    }

    /// Streams open now (each holds one subscription), for the metrics.
    pub fn open_streams(&self) -> usize {
        self.sender.receiver_count()
    }

    pub fn closed(&self) -> watch::Receiver<bool> {
        self.closed.subscribe()
    }
}
