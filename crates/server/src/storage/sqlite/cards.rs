use rusqlite::{Connection, params, params_from_iter};
use subscriber_protocol::UnixSeconds;

use super::events::record_other;
use super::rows::first;
use crate::storage::StorageResult;
use crate::storage::cards::SessionEvent;
use crate::storage::rows::card_sessions::COMPLETE;
use crate::storage::rows::cards::{INSERT, Inserted, NewCard, WITH_FINGERPRINT, insert_args};
use crate::storage::rows::idempotency::Replay;
use crate::storage::rows::transactions::TransactionRow;
use subscriber_protocol::CardId;
use subscriber_protocol::CardSessionId;

pub fn enroll(connection: &Connection, card: NewCard, replay: Option<Replay>) -> StorageResult<Inserted> {
    let enrolled_at = card.enrolled.enrolled_at;
    let inserted = insert(connection, card)?;
    if let Inserted::Created(card_id) = inserted {
        super::idempotency::store_replay(connection, replay, card_id.get(), enrolled_at)?;
    }
    Ok(inserted)
}

fn insert(connection: &Connection, card: NewCard) -> StorageResult<Inserted> {
    let Some(card_id) = first::<CardId>(connection, &INSERT, params_from_iter(insert_args(&card)))? else {
        let existing = first(connection, &WITH_FINGERPRINT, params![card.subscriber_id, card.fingerprint])?;
        return existing.map(Inserted::Duplicate).ok_or_else(|| super::corrupt("a card neither inserted nor found"));
    };
    let rows: Vec<TransactionRow> =
        card.history.into_iter().map(|row| TransactionRow { card_id: Some(card_id), ..row }).collect();
    super::transactions::insert_many(connection, &rows)?;
    let event = (card.event_data)(card_id);
    record_other(connection, card.subscriber_id, event.event_type, &event.data, card.enrolled.enrolled_at)?;
    Ok(Inserted::Created(card_id))
}

pub fn enroll_from_session(
    connection: &Connection,
    session_id: CardSessionId,
    card: NewCard,
    now: UnixSeconds,
    completed: SessionEvent,
) -> StorageResult<Option<Inserted>> {
    if !super::card_sessions::is_open(connection, session_id, now)? {
        return Ok(None);
    }
    let subscriber_id = card.subscriber_id;
    let inserted = insert(connection, card)?;
    connection.prepare_cached(COMPLETE.sqlite())?.execute(params![session_id, now, inserted.card_id()])?;
    let event = completed(inserted.card_id());
    record_other(connection, subscriber_id, event.event_type, &event.data, now)?;
    Ok(Some(inserted))
}
