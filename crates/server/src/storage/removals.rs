//! Removing one of a subscriber's objects: an erasure (`rows::removals` says what each kind
//! erases), in one write with its `*.removed` event.

use super::notices::Change;
use super::rows::events::StoredEvent;
use super::rows::transactions::Owner;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

pub use super::rows::removals::{Erased, ObjectRemoval, RemovedEvent, UserObject};

impl Store {
    /// Erases the subscriber's `object` and records `event`, in one write; `false` (nothing
    /// changed) when there is no such object of the subscriber's. A removed card is announced
    /// to the other instances: what they keep of it goes and its streams end.
    pub async fn remove(
        &self,
        subscriber_id: SubscriberId,
        object: UserObject,
        event: StoredEvent,
        now: UnixSeconds,
    ) -> StorageResult<bool> {
        let removal = ObjectRemoval { subscriber_id, object, event, now };
        let removed = dispatch!(self,
            db => db.write(move |connection| sqlite::removals::remove(connection, removal)).await,
            db => postgres::removals::remove(db, removal).await,
        )?;
        if let (true, UserObject::Card(card_id)) = (removed, object) {
            self.announce(&Change::Removed(Owner::Card(card_id)));
        }
        Ok(removed)
    }

    /// Erases every card, bank account and person of the subscriber's user `client_user_id`,
    /// each with its `*.removed` event (`event_of`), in one write: all of them or, on a
    /// failure, none. The removed cards are announced as [`Store::remove`] announces one.
    pub async fn remove_user(
        &self,
        subscriber_id: SubscriberId,
        client_user_id: String,
        event_of: RemovedEvent,
        now: UnixSeconds,
    ) -> StorageResult<Erased> {
        let erased = dispatch!(self,
            db => db.write(move |connection| sqlite::removals::remove_user(connection, subscriber_id, &client_user_id, &event_of, now)).await,
            db => postgres::removals::remove_user(db, subscriber_id, client_user_id, event_of, now).await,
        )?;
        for card_id in &erased.cards {
            self.announce(&Change::Removed(Owner::Card(*card_id)));
        }
        Ok(erased)
    }
}
