use rusqlite::{Connection, params};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardSessionId, SubscriberId};

use super::events::record_other;
use super::rows::first;
use crate::storage::StorageResult;
use crate::storage::events::StoredEvent;
use crate::storage::rows::card_sessions::MARK_EXPIRED;
use crate::storage::sql::sql;

/// Whether the session can still take a card at `now` (read inside the writing transaction,
/// so two submissions cannot both pass).
pub(super) fn is_open(connection: &Connection, id: CardSessionId, now: UnixSeconds) -> StorageResult<bool> {
    let sql = sql!("SELECT id FROM card_sessions WHERE id = $1 AND completed_at IS NULL AND expires_at > $2");
    Ok(first::<CardSessionId>(connection, sql, params![id, now])?.is_some())
}

/// Marks the session's expiry as recorded and records its event, when it is expired and
/// unmarked (`Store::record_card_session_expiry`).
pub fn record_expiry(
    connection: &Connection,
    subscriber_id: SubscriberId,
    id: CardSessionId,
    now: UnixSeconds,
    event: StoredEvent,
) -> StorageResult<bool> {
    if first::<CardSessionId>(connection, &MARK_EXPIRED, params![id, subscriber_id, now])?.is_none() {
        return Ok(false);
    }
    record_other(connection, subscriber_id, event.event_type, &event.data, now)?;
    Ok(true)
}
