//! The in-process announcement of transaction events to the open streams (`realtime`).
//!
//! The hub carries wake-ups, not events: "owner X has new events". A stream that wakes reads
//! what came after the last event it sent from the database, where one card's or merchant's
//! events are in id order on both backends (see `storage`). So the order in which wake-ups
//! arrive, from this instance's writes or from another instance's (`crate::instances`), never
//! matters, and nothing is lost between two of them.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use subscriber_protocol::{EventId, SubscriberId};

use parking_lot::{Mutex, RwLock};
use tokio::sync::{broadcast, watch};

use crate::storage::events::{EventRow, NO_EVENT};
use crate::storage::transactions::Owner;
use crate::storage::{StorageResult, Store};

/// An event's id as the API shows it (`GET /events`, the streams' `id:`, webhook deliveries).
pub fn public_id(id: EventId) -> String {
    format!("evt_{id}")
}

/// An event id the API showed (`evt_` and digits).
pub fn parse_public_id(text: &str) -> Option<EventId> {
    parse_digits(text.strip_prefix("evt_")?)
}

/// A stream's `Last-Event-ID`: an event id, or the bare number streams sent before events had
/// a prefix.
pub fn parse_stream_id(text: &str) -> Option<EventId> {
    parse_digits(text.strip_prefix("evt_").unwrap_or(text))
}

fn parse_digits(digits: &str) -> Option<EventId> {
    // At most 18 digits: every id fits, and no text overflows.
    if !(1..=18).contains(&digits.len()) || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse::<EventId>().ok()
}

/// Wake-ups a slow stream may fall behind by; past them it simply reads the database.
pub(crate) const CAPACITY: usize = 1024;

/// Streams one subscriber may hold open at once (the contract's live-environment rule).
pub const MAX_STREAMS_PER_SUBSCRIBER: usize = 10;

/// What the hub tells the streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// The owner has new events.
    Owner(Owner),
    /// Any owner may have new events (another instance changed too many to name, or this
    /// instance may have missed what another said).
    All,
    /// The subscriber's sandbox data was deleted: its streams end.
    Reset(SubscriberId),
    /// The owner was removed: its streams end.
    Removed(Owner),
}

pub struct EventHub {
    sender: broadcast::Sender<Wake>,
    closed: watch::Sender<bool>,
    /// Open streams per subscriber; a subscriber without any has no entry.
    open_streams: Mutex<HashMap<SubscriberId, usize>>,
    /// The most streams this instance holds open at once (`--max-streams`): each is a
    /// connection, and past the process's file limit nothing else (not even a probe) connects.
    max_streams: usize,
    /// The database places (`storage::stream_places`) of this instance's open streams, which
    /// it keeps renewed.
    places: Mutex<HashSet<String>>,
    /// The id of the newest event of each card and merchant announced here since the start:
    /// on SQLite every change of a transaction comes with an event announced here, so a page
    /// read while that id was the newest is still the page (`transaction_pages`).
    latest: RwLock<HashMap<Owner, EventId>>,
}

impl Default for EventHub {
    fn default() -> Self {
        Self::new(usize::MAX)
    }
}

/// Why a stream was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamsFull {
    /// The subscriber holds [`MAX_STREAMS_PER_SUBSCRIBER`] streams (on any instance).
    Subscriber,
    /// This instance holds `--max-streams`.
    Instance,
}

/// One of a subscriber's open streams; dropped when the stream ends.
pub struct StreamSlot {
    hub: Arc<EventHub>,
    subscriber_id: SubscriberId,
    /// Its place in the database, freed when the stream ends.
    place: Option<(Store, String)>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        if let Some((store, holder)) = self.place.take() {
            self.hub.places.lock().remove(&holder);
            // Dropped where a stream ends, inside the runtime; were it not, the place lapses.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    if let Err(error) = store.free_stream_place(holder).await {
                        tracing::warn!(error = %error, "a stream's place not freed: it lapses by itself");
                    }
                });
            }
        }
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
    /// A hub for an instance that holds at most `max_streams` streams open at once.
    pub fn new(max_streams: usize) -> Self {
        Self {
            sender: broadcast::channel(CAPACITY).0,
            closed: watch::channel(false).0,
            open_streams: Mutex::default(),
            max_streams,
            places: Mutex::default(),
            latest: RwLock::default(),
        }
    }

    /// Wake-ups from now on. Subscribe before reading what the database already holds, so
    /// nothing falls between the two.
    pub fn subscribe(&self) -> broadcast::Receiver<Wake> {
        self.sender.subscribe()
    }

    /// Announces transaction events this instance committed.
    pub fn publish(&self, events: &[EventRow]) {
        let changes: Vec<(Owner, EventId)> =
            events.iter().flat_map(|event| Owner::of(&event.transaction).map(|owner| (owner, event.id))).collect();
        self.changed(&changes);
    }

    /// Announces events of owners' transactions this instance committed, each `(owner, event
    /// id)`: what is kept of those owners' transactions is stale from that id on (a reversal's
    /// `transaction.removed` as well as a transaction's own events).
    pub fn changed(&self, changes: &[(Owner, EventId)]) {
        if changes.is_empty() {
            return;
        }
        let mut woken = Vec::new();
        {
            let mut latest = self.latest.write();
            for (owner, id) in changes {
                let newest = latest.entry(*owner).or_insert(NO_EVENT);
                *newest = (*newest).max(*id);
                if !woken.contains(owner) {
                    woken.push(*owner);
                }
            }
        }
        for owner in woken {
            // An error only means that no stream is open.
            let _ = self.sender.send(Wake::Owner(owner));
        }
    }

    /// Wakes the streams of owners another instance changed (`None`: of every owner).
    pub fn wake(&self, owners: Option<&[Owner]>) {
        match owners {
            Some(owners) => {
                for owner in owners {
                    let _ = self.sender.send(Wake::Owner(*owner));
                }
            }
            None => {
                let _ = self.sender.send(Wake::All);
            }
        }
    }

    /// Ends the subscriber's open streams (its sandbox data was deleted).
    pub fn end_streams_of(&self, subscriber_id: SubscriberId) {
        let _ = self.sender.send(Wake::Reset(subscriber_id));
    }

    /// `owner` was removed: its newest event reads as `REMOVED` from now on and its open
    /// streams end.
    pub fn removed(&self, owner: Owner) {
        self.latest.write().insert(owner, crate::storage::events::REMOVED);
        let _ = self.sender.send(Wake::Removed(owner));
    }

    /// `owners` (`None`: everyone) were put back as a snapshot held them: their newest event
    /// is read afresh (a page kept, or read meanwhile, under the one before never matches it
    /// again), and a removed card that came back is no longer removed.
    pub fn restored(&self, owners: Option<&[Owner]>) {
        let mut latest = self.latest.write();
        match owners {
            None => latest.clear(),
            Some(owners) => {
                for owner in owners {
                    latest.remove(owner);
                }
            }
        }
    }

    /// The id of the newest event of `owner`'s transactions announced here since the start
    /// (0 for none). Read it before reading the transactions: a change committed after the
    /// read announces a newer id.
    pub fn latest_event(&self, owner: Owner) -> EventId {
        self.latest.read().get(&owner).copied().unwrap_or(NO_EVENT)
    }

    /// The id of the newest event of `owner`'s transactions: what a kept page of them is checked
    /// against (`transaction_pages`). On SQLite this instance announced every one; on a shared
    /// PostgreSQL database another instance may have committed one not heard of here yet, so
    /// the database answers (one look-up on an index).
    pub async fn newest_event_of(&self, store: &Store, owner: Owner) -> StorageResult<EventId> {
        if store.is_shared() { store.newest_transaction_event(owner).await } else { Ok(self.latest_event(owner)) }
    }

    /// A slot for one more stream of the subscriber, counted on this instance and, when
    /// instances share the database, among the subscriber's places there.
    pub async fn claim_stream(
        self: &Arc<Self>,
        store: &Store,
        subscriber_id: SubscriberId,
    ) -> Result<StreamSlot, StreamsFull> {
        let mut slot = {
            let mut open = self.open_streams.lock();
            if open.values().sum::<usize>() >= self.max_streams {
                return Err(StreamsFull::Instance);
            }
            let count = open.entry(subscriber_id).or_insert(0);
            if *count >= MAX_STREAMS_PER_SUBSCRIBER {
                return Err(StreamsFull::Subscriber);
            }
            *count += 1;
            StreamSlot { hub: Arc::clone(self), subscriber_id, place: None }
        };
        if store.is_shared() {
            let holder = uuid::Uuid::new_v4().simple().to_string();
            match store.take_stream_place(subscriber_id, holder.clone(), MAX_STREAMS_PER_SUBSCRIBER).await {
                Ok(true) => {
                    self.places.lock().insert(holder.clone());
                    slot.place = Some((store.clone(), holder));
                }
                Ok(false) => return Err(StreamsFull::Subscriber),
                // The database is failing: this instance's own count still caps the streams.
                Err(error) => tracing::warn!(error = %error, "a stream's place not taken: counted here only"),
            }
        }
        Ok(slot)
    }

    /// The database places of this instance's open streams, to renew.
    pub fn held_places(&self) -> Vec<String> {
        self.places.lock().iter().cloned().collect()
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
