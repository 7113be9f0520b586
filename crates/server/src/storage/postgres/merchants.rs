use futures::FutureExt;

use super::events::record_other;
use super::rows::{bound, first};
use super::{Database, LOCK_SUBSCRIBERS, execute};
use crate::storage::notices::Change;
use crate::storage::rows::idempotency::Replay;
use crate::storage::rows::merchants::{INSERT_LOCATION, NewLocation, location_args};
use crate::storage::{StorageError, StorageResult};

/// Two round trips and the commit: the row (with `BEGIN` and the subscriber's lock), then its
/// event and the replay, which need its id.
pub async fn insert_location(db: &Database, location: NewLocation, replay: Option<Replay>) -> StorageResult<i64> {
    let (id, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![location.subscriber_id];
                let args = location_args(&location.row);
                let (locked, inserted) = futures::future::join(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    first::<i64>(client, &INSERT_LOCATION, &bound(&args)),
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
