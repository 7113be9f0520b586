use rusqlite::Connection;
use subscriber_protocol::{LocationId, SubscriberId};

use crate::storage::StorageResult;
use crate::storage::rows::sandbox::{ADVANCE_CLOCK, LOCATIONS_OF, RESET};
use crate::storage::sandbox::Removed;

pub fn advance_clock(connection: &Connection, subscriber_id: SubscriberId, seconds: i64) -> StorageResult<u64> {
    let mut moved = 0;
    for statement in ADVANCE_CLOCK {
        moved += connection.prepare_cached(statement.sqlite())?.execute(rusqlite::params![subscriber_id, seconds])?;
    }
    Ok(moved as u64)
}

pub fn reset(connection: &Connection, subscriber_id: SubscriberId) -> StorageResult<Removed> {
    let location_ids = connection
        .prepare_cached(LOCATIONS_OF.sqlite())?
        .query_map([subscriber_id], |row| row.get(0))?
        .collect::<Result<Vec<LocationId>, _>>()?;
    for statement in RESET {
        connection.prepare_cached(statement.sqlite())?.execute([subscriber_id])?;
    }
    Ok(Removed { location_ids })
}
