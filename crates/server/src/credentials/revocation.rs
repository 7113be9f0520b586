//! Token revocation by secret rotation. Every token carries the credential generation of its
//! subscriber at login (`gen`); a rotation moves the generation on, and a token of an older
//! generation is refused. The current generations are kept in memory, so checking a token
//! costs no database read after the subscriber's first request; the generation of each
//! subscriber is a watch channel, so the open streams of a subscriber end at its rotation.

use std::collections::HashMap;
use subscriber_protocol::SubscriberId;

use parking_lot::RwLock;
use tokio::sync::watch;

use crate::storage::{StorageResult, Store};

#[derive(Default)]
pub struct CredentialGenerations {
    /// One entry per subscriber seen since the start: bounded by the subscribers there are.
    current: RwLock<HashMap<SubscriberId, watch::Sender<i64>>>,
}

impl CredentialGenerations {
    /// The subscriber's current generation; `None` when there is no such subscriber.
    pub async fn current(&self, db: &Store, subscriber_id: SubscriberId) -> StorageResult<Option<i64>> {
        if let Some(generation) = self.current.read().get(&subscriber_id) {
            return Ok(Some(*generation.borrow()));
        }
        let stored = db.credential_generation(subscriber_id).await?;
        Ok(stored.map(|generation| self.note(subscriber_id, generation)))
    }

    /// Records a generation read from or written to the database, and returns the current one.
    /// Generations only move on, so a stale read racing a rotation cannot undo it.
    pub fn note(&self, subscriber_id: SubscriberId, generation: i64) -> i64 {
        if let Some(sender) = self.current.read().get(&subscriber_id) {
            sender.send_if_modified(|current| raise(current, generation));
            return *sender.borrow();
        }
        let mut current = self.current.write();
        let sender = current.entry(subscriber_id).or_insert_with(|| watch::channel(generation).0);
        sender.send_if_modified(|current| raise(current, generation));
        *sender.borrow()
    }

    /// The subscribers whose generation is known here.
    pub fn known(&self) -> Vec<SubscriberId> {
        self.current.read().keys().copied().collect()
    }

    /// Follows the subscriber's generation (for open streams), once it is known.
    pub fn watch(&self, subscriber_id: SubscriberId) -> Option<watch::Receiver<i64>> {
        self.current.read().get(&subscriber_id).map(watch::Sender::subscribe)
    }
}

fn raise(current: &mut i64, generation: i64) -> bool {
    if generation > *current {
        *current = generation;
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_only_move_on_and_wake_watchers() {
        let generations = CredentialGenerations::default();
        assert_eq!(generations.note(SubscriberId(1), 2), 2);
        let mut watcher = generations.watch(SubscriberId(1)).expect("known");
        assert_eq!(generations.note(SubscriberId(1), 1), 2, "a stale read does not undo a rotation");
        assert!(!watcher.has_changed().expect("open"));
        assert_eq!(generations.note(SubscriberId(1), 3), 3);
        assert!(watcher.has_changed().expect("open"));
        assert_eq!(*watcher.borrow_and_update(), 3);
        assert!(generations.watch(SubscriberId(2)).is_none());
    }
}
