use rusqlite::{Connection, params_from_iter};
use subscriber_protocol::LocationId;

use super::events::record_other;
use super::rows::{execute, first};
use crate::storage::StorageResult;
use crate::storage::rows::idempotency::Replay;
use crate::storage::rows::merchants::{
    INSERT_LOCATION, LocationChange, NewLocation, location_args, location_change_args,
};

pub fn insert_location(
    connection: &Connection,
    location: NewLocation,
    replay: Option<Replay>,
) -> StorageResult<LocationId> {
    let id: LocationId = first(connection, &INSERT_LOCATION, params_from_iter(location_args(&location.row)))?
        .ok_or_else(|| super::corrupt("a location insert returned no id"))?;
    super::idempotency::store_replay(connection, replay, id, location.row.created_at)?;
    let event = (location.event_data)(id);
    record_other(connection, location.subscriber_id, event.event_type, &event.data, location.row.created_at)?;
    Ok(id)
}

/// Applies the change and records its event; `false` (and nothing recorded) when the location
/// is not there (any more).
pub fn change_location(connection: &Connection, change: LocationChange) -> StorageResult<bool> {
    let (statement, args) = location_change_args(&change.kind);
    if execute(connection, statement, params_from_iter(args))? == 0 {
        return Ok(false);
    }
    record_other(connection, change.subscriber_id, change.event.event_type, &change.event.data, change.at)?;
    Ok(true)
}
