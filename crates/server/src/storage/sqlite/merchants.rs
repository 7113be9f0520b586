use rusqlite::{Connection, params_from_iter};

use super::events::record_other;
use super::rows::first;
use crate::storage::StorageResult;
use crate::storage::rows::idempotency::Replay;
use crate::storage::rows::merchants::{INSERT_LOCATION, NewLocation, location_args};

pub fn insert_location(connection: &Connection, location: NewLocation, replay: Option<Replay>) -> StorageResult<i64> {
    let id = first(connection, &INSERT_LOCATION, params_from_iter(location_args(&location.row)))?
        .ok_or_else(|| super::corrupt("a location insert returned no id"))?;
    super::idempotency::store_replay(connection, replay, id, location.row.created_at)?;
    let event = (location.event_data)(id);
    record_other(connection, location.subscriber_id, event.event_type, &event.data, location.row.created_at)?;
    Ok(id)
}
