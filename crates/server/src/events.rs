//! The in-process announcement of transaction events to the open streams (`realtime`).
//!
//! Each instance announces every transaction event once, in id order: its own writes' events
//! after they commit, and, on PostgreSQL, the events other instances commit (`crate::instances`
//! reads them). Ids grow in commit order (one write at a time, see `storage::postgres`), so
//! whichever path announces first, an event never comes after a later one.

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
    /// The newest event id announced: nothing at or below it is announced again.
    announced: Mutex<i64>,
}

impl Default for EventHub {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(CAPACITY).0,
            closed: watch::channel(false).0,
            open_streams: Mutex::default(),
            latest: RwLock::default(),
            announced: Mutex::new(0),
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

    /// Starts announcing after `id` (the newest event when the service starts).
    pub fn start_after(&self, id: i64) {
        let mut announced = self.announced.lock();
        *announced = (*announced).max(id);
    }

    /// The newest event id announced.
    pub fn announced(&self) -> i64 {
        *self.announced.lock()
    }

    /// Announces committed events, given in id order with every event committed between the
    /// last announced and the last given (see [`EventHub::write`]); those announced already
    /// are skipped.
    pub fn publish(&self, events: &[EventRow]) {
        let mut announced = self.announced.lock();
        let events: Vec<&EventRow> = events.iter().filter(|event| event.id > *announced).collect();
        if let Some(last) = events.last() {
            *announced = last.id;
        }
        // Held to the end: two announcers (a write, the follower of other instances) keep id order.
        if !events.is_empty() {
            let mut latest = self.latest.write();
            for event in &events {
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
        drop(announced);
    }

    /// Every transaction event committed after the last announced (others' and this write's),
    /// read inside a write transaction, where every lower id is committed already.
    fn since_announced(&self, transaction: &Transaction<'_>) -> StorageResult<Vec<EventRow>> {
        crate::storage::events::all_after(transaction, self.announced(), u32::MAX)
    }

    /// The id of the newest event of `owner`'s transactions announced since the start (0 for
    /// none). Read it before reading the transactions: a change committed after the read
    /// announces a newer id.
    pub fn latest_event(&self, owner: Owner) -> i64 {
        self.latest.read().get(&owner).copied().unwrap_or(0)
    }

    /// The id of the newest event of `owner`'s transactions: what a kept page of them is checked
    /// against (`transaction_pages`). On SQLite this instance announced every one; on a shared
    /// PostgreSQL database another instance may have committed one not heard of here yet, so
    /// the database answers (one look-up on an index).
    pub async fn newest_event_of(&self, db: &Db, owner: Owner) -> StorageResult<i64> {
        match db.dialect() {
            crate::storage::Dialect::Sqlite => Ok(self.latest_event(owner)),
            crate::storage::Dialect::Postgres => {
                db.read_by_key(move |connection| crate::storage::events::newest_of(connection, owner)).await
            }
        }
    }

    /// Runs `work` in one write transaction and announces the events it returns once they are
    /// committed, before the next write can commit.
    pub async fn write<T, F>(self: &Arc<Self>, db: &Db, work: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> StorageResult<(T, Vec<EventRow>)> + Send + 'static,
    {
        let hub = Arc::clone(self);
        let reader = Arc::clone(self);
        let shared = db.dialect() == crate::storage::Dialect::Postgres;
        let work = move |transaction: &Transaction<'_>| {
            let (value, events) = work(transaction)?;
            // On a shared database other instances' events may precede this write's: announced
            // here, before this write's, or a stream would see them out of order.
            let events = if shared && !events.is_empty() { reader.since_announced(transaction)? } else { events };
            Ok((value, events))
        };
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
