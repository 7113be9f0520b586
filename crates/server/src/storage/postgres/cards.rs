use futures::FutureExt;
use subscriber_protocol::UnixSeconds;

use super::events::record_other;
use super::rows::{bound, first};
use super::transactions::Arrays;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, query_opt};
use crate::storage::cards::SessionEvent;
use crate::storage::notices::Change;
use crate::storage::rows::card_sessions::COMPLETE;
use crate::storage::rows::cards::{INSERT, Inserted, NewCard, WITH_FINGERPRINT, insert_args};
use crate::storage::rows::idempotency::Replay;
use crate::storage::{StorageError, StorageResult};
use subscriber_protocol::CardId;
use subscriber_protocol::CardSessionId;

/// Inside a write: locks the subscriber and inserts the card (one round trip), then its
/// history, its event and the replay (one more). Returns how many deliveries were queued too.
async fn insert(client: &Client, card: NewCard, replay: Option<Replay>) -> StorageResult<(Inserted, i64)> {
    let subscribers = vec![card.subscriber_id];
    let args = insert_args(&card);
    let (locked, inserted) = futures::future::join(
        execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
        first::<CardId>(client, &INSERT, &bound(&args)),
    )
    .await;
    locked?;
    let Some(card_id) = inserted? else {
        let existing = first(client, &WITH_FINGERPRINT, &[&card.subscriber_id, &card.fingerprint]).await?;
        let existing = existing.ok_or_else(|| StorageError::Corrupt("a card neither inserted nor found".into()))?;
        return Ok((Inserted::Duplicate(existing), 0));
    };
    let history = Arrays::of(card.history);
    let event = (card.event_data)(card_id);
    let (stored, recorded, replayed) = futures::future::join3(
        history.insert(client, Some(card_id)),
        record_other(client, card.subscriber_id, event.event_type, &event.data, card.enrolled.enrolled_at),
        super::idempotency::store_replay(client, replay, card_id.get(), card.enrolled.enrolled_at),
    )
    .await;
    stored?;
    replayed?;
    let (_, queued) = recorded?;
    Ok((Inserted::Created(card_id), queued))
}

fn announce(db: &Database, queued: i64) {
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
}

pub async fn enroll(db: &Database, card: NewCard, replay: Option<Replay>) -> StorageResult<Inserted> {
    let (inserted, queued) = db.write(move |client| insert(client, card, replay).boxed()).await?;
    announce(db, queued);
    Ok(inserted)
}

pub async fn enroll_from_session(
    db: &Database,
    session_id: CardSessionId,
    card: NewCard,
    now: UnixSeconds,
    completed: SessionEvent,
) -> StorageResult<Option<Inserted>> {
    let outcome = db
        .write(move |client| {
            async move {
                // The session's row stays locked to the end: a second submission waits, then
                // finds it closed.
                let open = query_opt(
                    client,
                    "SELECT id FROM card_sessions WHERE id = $1 AND completed_at IS NULL AND expires_at > $2 FOR UPDATE",
                    &[&session_id, &now],
                )
                .await?;
                if open.is_none() {
                    return Ok(None);
                }
                let subscriber_id = card.subscriber_id;
                let (inserted, queued) = insert(client, card, None).await?;
                let event = completed(inserted.card_id());
                let (done, recorded) = futures::future::join(
                    execute(client, COMPLETE.numbered(), &[&session_id, &now, &inserted.card_id()]),
                    record_other(client, subscriber_id, event.event_type, &event.data, now),
                )
                .await;
                done?;
                let (_, also_queued) = recorded?;
                Ok(Some((inserted, queued + also_queued)))
            }
            .boxed()
        })
        .await?;
    Ok(outcome.map(|(inserted, queued)| {
        announce(db, queued);
        inserted
    }))
}
