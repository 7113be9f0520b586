use rusqlite::{Connection, params_from_iter};

use super::events::record_other;
use super::rows::first;
use crate::storage::StorageResult;
use crate::storage::rows::bank_accounts::Outcome;
use crate::storage::sql::{Param, Sql};

/// A step of the link (`Store::link_step`), in the one write.
pub fn step(
    connection: &Connection,
    update: &Sql,
    args: &[Param<'_>],
    now: i64,
    outcome: &Outcome,
    ends: impl FnOnce(u32) -> bool,
) -> StorageResult<Option<u32>> {
    let Some((subscriber_id, failures)) = first::<(i64, u32)>(connection, update, params_from_iter(args))? else {
        return Ok(None);
    };
    if ends(failures) {
        record_other(connection, subscriber_id, outcome.event_type, &outcome.data, now)?;
    }
    Ok(Some(failures))
}
