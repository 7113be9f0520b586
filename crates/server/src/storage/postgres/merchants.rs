use futures::FutureExt;
use subscriber_protocol::LocationId;

use super::events::record_other;
use super::rows::{bound, bound_all, first};
use super::{Database, LOCK_SUBSCRIBERS, execute};
use crate::storage::notices::Change;
use crate::storage::rows::idempotency::Replay;
use crate::storage::rows::merchants::{
    INSERT_LOCATION, LocationChange, NewLocation, location_args, location_change_args,
};
use crate::storage::{StorageError, StorageResult};

/// Two round trips and the commit: the row (with `BEGIN` and the subscriber's lock), then its
/// event and the replay, which need its id.
pub async fn insert_location(
    db: &Database,
    location: NewLocation,
    replay: Option<Replay>,
) -> StorageResult<LocationId> {
    let (id, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![location.subscriber_id];
                let args = location_args(&location.row);
                let (locked, inserted) = futures::future::join(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    first::<LocationId>(client, &INSERT_LOCATION, &bound(&args)),
                )
                .await;
                locked?;
                let id = inserted?.ok_or_else(|| StorageError::Corrupt("a location insert returned no id".into()))?;
                let event = (location.event_data)(id);
                let (recorded, replayed) = futures::future::join(
                    record_other(
                        client,
                        location.subscriber_id,
                        event.event_type,
                        &event.data,
                        location.row.created_at,
                    ),
                    super::idempotency::store_replay(client, replay, id, location.row.created_at),
                )
                .await;
                replayed?;
                Ok((id, recorded?.1))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(id)
}

/// Applies the change and records its event, under the subscriber's lock; `false` (and nothing
/// recorded) when the location is not there (any more).
pub async fn change_location(db: &Database, change: LocationChange) -> StorageResult<bool> {
    let (changed, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![change.subscriber_id];
                let (statement, args) = location_change_args(&change.kind);
                let (locked, changed) = futures::future::join(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    super::rows::execute(client, statement, &bound_all(&args)),
                )
                .await;
                locked?;
                if changed? == 0 {
                    return Ok((false, 0));
                }
                let event = &change.event;
                let (_, queued) =
                    record_other(client, change.subscriber_id, event.event_type, &event.data, change.at).await?;
                Ok((true, queued))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(changed)
}
