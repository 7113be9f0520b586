use std::sync::Arc;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use futures::FutureExt;
use tokio_postgres::types::ToSql;

use super::events::record_other;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, prepare_all, query, query_opt};
use crate::storage::StorageResult;
use crate::storage::notices::Change;
use crate::storage::rows::events::StoredEvent;
use crate::storage::rows::removals::{Erased, OF_A_USER, ObjectRemoval, RemovedEvent, UserObject};

/// The events of the subscriber whose JSON data names the object (`$3` the key).
const NAMED_EVENTS: &str = "DELETE FROM events
     WHERE transaction_id IS NULL AND data IS NOT NULL
       AND id IN (SELECT event_id FROM event_recipients WHERE subscriber_id = $1)
       AND (data::jsonb ->> $3::TEXT) = $2::BIGINT::TEXT";

/// Under the subscriber's lock: finds the object the subscriber's (one round trip with the
/// lock), erases it (one more, the statements in order) and records `event` (one more).
/// `false` (nothing changed) when it is not the subscriber's.
pub async fn remove(db: &Database, removal: ObjectRemoval) -> StorageResult<bool> {
    let ObjectRemoval { subscriber_id, object, event, now } = removal;
    let (removal, id) = (object.removal(), object.id());
    let queued = db
        .write_again(move |client| {
            let event = event.clone();
            async move {
                let subscribers = vec![subscriber_id];
                let params: [&(dyn ToSql + Sync); 2] = [&subscriber_id, &id];
                let (locked, owned) = futures::future::join(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    query_opt(client, removal.owned.numbered(), &params),
                )
                .await;
                locked?;
                if owned?.is_none() {
                    return Ok(None);
                }
                erase(client, subscriber_id, object, &event, now).await.map(Some)
            }
            .boxed()
        })
        .await?;
    match queued {
        None => Ok(false),
        Some(queued) => {
            if queued > 0 {
                db.notify(Change::Deliveries.payload());
            }
            Ok(true)
        }
    }
}

/// Under the subscriber's lock, in one transaction: every object of its user
/// `client_user_id`, erased as [`remove`] erases one, each with its event.
pub async fn remove_user(
    db: &Database,
    subscriber_id: SubscriberId,
    client_user_id: String,
    event_of: RemovedEvent,
    now: UnixSeconds,
) -> StorageResult<Erased> {
    let event_of = Arc::new(event_of);
    let (erased, queued) = db
        .write_again(move |client| {
            let (client_user_id, event_of) = (client_user_id.clone(), Arc::clone(&event_of));
            async move {
                execute(client, LOCK_SUBSCRIBERS, &[&vec![subscriber_id]]).await?;
                let (mut erased, mut queued) = (Erased::default(), 0);
                for removal in OF_A_USER {
                    let rows = query(client, removal.of_user.numbered(), &[&subscriber_id, &client_user_id]).await?;
                    for row in rows {
                        let object = (removal.object)(row.try_get(0)?);
                        queued += erase(client, subscriber_id, object, &event_of(object), now).await?;
                        erased.push(object);
                    }
                }
                Ok((erased, queued))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(erased)
}

/// Erases an object found the subscriber's (the statements in order, one round trip) and
/// records its event (one more); the deliveries queued for it.
async fn erase(
    client: &Client,
    subscriber_id: SubscriberId,
    object: UserObject,
    event: &StoredEvent,
    now: UnixSeconds,
) -> StorageResult<i64> {
    let (removal, id) = (object.removal(), object.id());
    let params: [&(dyn ToSql + Sync); 2] = [&subscriber_id, &id];
    let mut sqls = vec![NAMED_EVENTS];
    sqls.extend(removal.erase.iter().map(|sql| sql.numbered()));
    let statements = prepare_all(client, &sqls).await?;
    let named: [&(dyn ToSql + Sync); 3] = [&subscriber_id, &id, &removal.named_by];
    let erasing = statements.iter().enumerate().map(|(index, statement)| {
        if index == 0 { client.execute(statement, &named) } else { client.execute(statement, &params) }
    });
    client.within(futures::future::try_join_all(erasing)).await?;
    let (_, queued) = record_other(client, subscriber_id, event.event_type, &event.data, now).await?;
    Ok(queued)
}
