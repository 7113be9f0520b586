use rusqlite::{Connection, params_from_iter};
use subscriber_protocol::SubscriberId;

use super::events::record_other;
use super::rows::{execute, first};
use crate::storage::StorageResult;
use crate::storage::rows::bank_accounts::LinkStep;

/// A step of the link, in the one write.
pub fn step(connection: &Connection, step: LinkStep) -> StorageResult<Option<u32>> {
    let LinkStep { update, args, now, outcome, ends, then, .. } = step;
    let Some((subscriber_id, failures)) = first::<(SubscriberId, u32)>(connection, update, params_from_iter(&args))?
    else {
        return Ok(None);
    };
    if let Some((sql, args)) = then {
        execute(connection, sql, params_from_iter(&args))?;
    }
    if ends(failures) {
        record_other(connection, subscriber_id, outcome.event_type, &outcome.data, now)?;
    }
    Ok(Some(failures))
}
