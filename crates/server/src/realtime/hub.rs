//! The in-process announcement of transaction events to the open streams.

use std::sync::Arc;

use rusqlite::Transaction;
use tokio::sync::{broadcast, watch};

use crate::storage::events::EventRow;
use crate::storage::{Db, StorageResult};

/// Events a slow stream may fall behind by before it catches up from the database.
pub(super) const CAPACITY: usize = 1024;

pub struct EventHub {
    sender: broadcast::Sender<Arc<EventRow>>,
    closed: watch::Sender<bool>,
}

impl Default for EventHub {
    fn default() -> Self {
        Self { sender: broadcast::channel(CAPACITY).0, closed: watch::channel(false).0 }
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
        for event in events {
            // An error only means that no stream is open.
            let _ = self.sender.send(Arc::new(event.clone()));
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
        let (value, _) = db.write_then(work, move |(_, events)| hub.publish(events)).await?;
        Ok(value)
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
