//! Removing one of a subscriber's objects (`DELETE /card/{id}`, `/account/{id}`,
//! `/persons/{id}`) is an erasure: the rows that hold its data go in one write with its
//! `*.removed` event (`storage::removals`), then what is kept of it outside those rows: the
//! stored replays of the requests that created it, the request history's bodies that named it
//! and, on SQLite, the old copies of the
//! erased pages in the write-ahead log.

use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{AccountRemovedData, CardRemovedData, EventData, PersonRemovedData};

use crate::error::ApiError;
use crate::http::idempotency::forget_replays_naming;
use crate::state::AppState;
use crate::storage::events::StoredEvent;
use crate::storage::removals::{Erased, RemovedEvent, UserObject};

/// Erases the subscriber's `object` and records its `*.removed` event; `false` when the
/// subscriber has no such object (nothing changed: the caller answers 404).
pub async fn erase(state: &AppState, subscriber_id: SubscriberId, object: UserObject) -> Result<bool, ApiError> {
    let event = StoredEvent::new(&removed_event(object));
    if !state.db.remove(subscriber_id, object, event, UnixSeconds::now()).await? {
        return Ok(false);
    }
    forget_kept(state, subscriber_id, object).await;
    checkpoint(state).await;
    Ok(true)
}

/// Erases every card, bank account and person the subscriber created for its user
/// `client_user_id` (`DELETE /users/{clientUserId}`), all in one write, each with its
/// `*.removed` event; what was erased (nothing, when the user has nothing).
pub async fn erase_user(
    state: &AppState,
    subscriber_id: SubscriberId,
    client_user_id: &str,
) -> Result<Erased, ApiError> {
    let event_of: RemovedEvent = Box::new(|object| StoredEvent::new(&removed_event(object)));
    let erased = state.db.remove_user(subscriber_id, client_user_id.to_owned(), event_of, UnixSeconds::now()).await?;
    for object in erased.objects() {
        forget_kept(state, subscriber_id, object).await;
    }
    checkpoint(state).await;
    Ok(erased)
}

/// The one event a removal leaves: the id alone.
pub fn removed_event(object: UserObject) -> EventData {
    match object {
        UserObject::Card(id) => EventData::CardRemoved(CardRemovedData { card_id: id }),
        UserObject::Account(id) => EventData::AccountRemoved(AccountRemovedData { account_id: id }),
        UserObject::Person(id) => EventData::PersonRemoved(PersonRemovedData { person_id: id }),
    }
}

/// The stored replays of the requests that created the object. The object is gone whatever
/// follows; a replay left by a failure here only names its id, and the daily purge takes it.
async fn forget_kept(state: &AppState, subscriber_id: SubscriberId, object: UserObject) {
    let (removal, id) = (object.removal(), object.id());
    // The request history's bodies that named it: what is waiting is written first, so none
    // lands after.
    let pattern = crate::request_history::object_pattern(&format!("{}:{id}", removal.named_by));
    let erased = match state.request_history.flush(&state.db).await {
        Ok(()) => state.db.erase_request_bodies(subscriber_id, pattern).await,
        Err(error) => Err(error),
    };
    match erased {
        Ok(erased) => {
            tracing::info!(id, erased, noun = removal.noun, "erased; its requests' bodies erased from the history")
        }
        Err(error) => {
            tracing::warn!(id, error = %error, noun = removal.noun, "erased; its requests' bodies not erased yet")
        }
    }
    match forget_replays_naming(state, subscriber_id, removal.named_by, id).await {
        Ok(forgotten) => tracing::info!(id, forgotten, noun = removal.noun, "erased; its kept replays forgotten"),
        Err(error) => tracing::warn!(id, error = %error, noun = removal.noun, "erased; its kept replays not forgotten"),
    }
}

/// SQLite overwrites what it deletes (`secure_delete`), but the pages as they were stay in the
/// write-ahead log until it is checkpointed: the file keeps nothing of the object after.
async fn checkpoint(state: &AppState) {
    if let Err(error) = state.db.checkpoint().await {
        tracing::warn!(error = %error, "erased; the write-ahead log not checkpointed yet");
    }
}
