//! Rendered JSON bodies of resources that never change once created (a card), so a read of
//! one is answered without the database or the serializer: on `GET /card/{id}` those were
//! most of the service's own time. Keyed by id with the owner checked on every hit, so a body
//! is only ever served to the subscriber it belongs to; another subscriber's read misses and
//! gets its 404 from the database as before.

use std::collections::HashMap;
use subscriber_protocol::{CardId, SubscriberId};

use bytes::Bytes;
use parking_lot::RwLock;

pub struct BodyCache {
    bodies: RwLock<HashMap<CardId, (SubscriberId, Bytes)>>,
    capacity: usize,
}

impl BodyCache {
    pub fn new(capacity: usize) -> Self {
        Self { bodies: RwLock::new(HashMap::new()), capacity }
    }

    /// The body of `id` when it belongs to `owner`.
    pub fn get(&self, id: CardId, owner: SubscriberId) -> Option<Bytes> {
        let bodies = self.bodies.read();
        let (kept_owner, body) = bodies.get(&id)?;
        (*kept_owner == owner).then(|| body.clone())
    }

    /// Forgets `owner`'s bodies (a sandbox reset deleted its cards); everyone else's stay.
    pub fn forget_owner(&self, owner: SubscriberId) {
        self.bodies.write().retain(|_, (kept_owner, _)| *kept_owner != owner);
    }

    /// Forgets the body of `id` (it was removed).
    pub fn forget(&self, id: CardId) {
        self.bodies.write().remove(&id);
    }

    /// Forgets every body (notices of other instances' resets may have been missed).
    pub fn clear(&self) {
        self.bodies.write().clear();
    }

    /// Keeps `body` as `owner`'s body of `id`. At capacity the cache starts afresh: a simple
    /// bound on memory, and a miss costs only what a read cost before.
    pub fn insert(&self, id: CardId, owner: SubscriberId, body: Bytes) {
        let mut bodies = self.bodies.write();
        if bodies.len() >= self.capacity {
            bodies.clear();
        }
        bodies.insert(id, (owner, body));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_served_to_its_owner_only() {
        let cache = BodyCache::new(2);
        cache.insert(CardId(7), SubscriberId(1), Bytes::from_static(b"{}"));
        assert_eq!(cache.get(CardId(7), SubscriberId(1)).as_deref(), Some(&b"{}"[..]));
        assert_eq!(cache.get(CardId(7), SubscriberId(2)), None, "another subscriber's read misses");
        assert_eq!(cache.get(CardId(8), SubscriberId(1)), None);
    }

    #[test]
    fn forgetting_an_owner_keeps_everyone_elses() {
        let cache = BodyCache::new(10);
        cache.insert(CardId(7), SubscriberId(1), Bytes::from_static(b"{}"));
        cache.insert(CardId(8), SubscriberId(2), Bytes::from_static(b"{}"));
        cache.forget_owner(SubscriberId(1));
        assert_eq!(cache.get(CardId(7), SubscriberId(1)), None);
        assert!(cache.get(CardId(8), SubscriberId(2)).is_some());
    }

    #[test]
    fn it_stays_within_its_capacity() {
        let cache = BodyCache::new(2);
        for id in 0..5 {
            cache.insert(CardId(id), SubscriberId(1), Bytes::from_static(b"{}"));
            assert!(cache.bodies.read().len() <= 2);
        }
        assert!(cache.get(CardId(4), SubscriberId(1)).is_some(), "the newest is kept");
    }
}
