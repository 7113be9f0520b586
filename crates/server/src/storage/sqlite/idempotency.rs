use rusqlite::{Connection, params_from_iter};
use subscriber_protocol::UnixSeconds;

use super::rows::{execute, first};
use crate::storage::StorageResult;
use crate::storage::rows::idempotency::{Replay, STORE};
use crate::storage::sql::{Param, Sql};

/// Stores a creating request's replay, inside the transaction that created row `id`.
pub fn store_replay(
    connection: &Connection,
    replay: Option<Replay>,
    id: impl Into<i64>,
    now: UnixSeconds,
) -> StorageResult<()> {
    if let Some(finished) = replay.map(|replay| replay.finish(id, now)).transpose()? {
        execute(connection, &STORE, params_from_iter(finished.args()))?;
    }
    Ok(())
}

/// Runs `insert` (an `INSERT … RETURNING id`) and keeps the creating request's replay with the
/// new row's id, in the one write. The new id; `None` (and no replay kept) when it inserted
/// nothing.
pub fn insert_keeping_replay(
    connection: &Connection,
    insert: &Sql,
    args: &[Param<'_>],
    now: UnixSeconds,
    replay: Option<Replay>,
) -> StorageResult<Option<i64>> {
    let Some(id) = first(connection, insert, params_from_iter(args))? else { return Ok(None) };
    store_replay(connection, replay, id, now)?;
    Ok(Some(id))
}
