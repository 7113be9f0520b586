use rusqlite::{Connection, params};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use super::events::record_other;
use crate::storage::StorageResult;
use crate::storage::rows::removals::{Erased, OF_A_USER, ObjectRemoval, RemovedEvent};

/// The events of the subscriber whose JSON data names the object (`$3` the key, with no
/// quoting to do: the keys are the catalogue's own camel-case names).
const NAMED_EVENTS: &str = "DELETE FROM events
     WHERE transaction_id IS NULL AND data IS NOT NULL
       AND id IN (SELECT event_id FROM event_recipients WHERE subscriber_id = ?1)
       AND json_valid(data) AND json_extract(data, '$.' || ?3) = ?2";

/// Erases the object in the writer's transaction and records `event`; `false` (nothing
/// changed) when it is not the subscriber's.
pub fn remove(connection: &Connection, removal: ObjectRemoval) -> StorageResult<bool> {
    let ObjectRemoval { subscriber_id, object, event, now } = removal;
    let (removal, id) = (object.removal(), object.id());
    let owned = connection.prepare_cached(removal.owned.sqlite())?.exists(params![subscriber_id, id])?;
    if !owned {
        return Ok(false);
    }
    connection.prepare_cached(NAMED_EVENTS)?.execute(params![subscriber_id, id, removal.named_by])?;
    for statement in removal.erase {
        connection.prepare_cached(statement.sqlite())?.execute(params![subscriber_id, id])?;
    }
    record_other(connection, subscriber_id, event.event_type, &event.data, now)?;
    Ok(true)
}

/// Every object of the subscriber's user `client_user_id`, erased as [`remove`] erases one,
/// each with its event, in the writer's one transaction.
pub fn remove_user(
    connection: &Connection,
    subscriber_id: SubscriberId,
    client_user_id: &str,
    event_of: &RemovedEvent,
    now: UnixSeconds,
) -> StorageResult<Erased> {
    let mut erased = Erased::default();
    for removal in OF_A_USER {
        let ids = connection
            .prepare_cached(removal.of_user.sqlite())?
            .query_map(params![subscriber_id, client_user_id], |row| row.get::<_, i64>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        for object in ids.into_iter().map(removal.object) {
            if remove(connection, ObjectRemoval { subscriber_id, object, event: event_of(object), now })? {
                erased.push(object);
            }
        }
    }
    Ok(erased)
}
