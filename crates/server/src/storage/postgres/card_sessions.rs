use futures::FutureExt;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardSessionId, SubscriberId};

use super::events::record_other;
use super::rows::first;
use super::{Client, Database};
use crate::storage::StorageResult;
use crate::storage::events::StoredEvent;
use crate::storage::notices::Change;
use crate::storage::rows::card_sessions::MARK_EXPIRED;

/// Marks the session's expiry as recorded and records its event, in one write, when it is
/// expired and unmarked (`Store::record_card_session_expiry`). The update holds the row, so a
/// second reader waits and then finds it marked.
pub async fn record_expiry(
    db: &Database,
    subscriber_id: SubscriberId,
    id: CardSessionId,
    now: UnixSeconds,
    event: StoredEvent,
) -> StorageResult<bool> {
    let (recorded, queued) = db
        .write(move |client: &Client| {
            async move {
                let marked = first::<CardSessionId>(client, &MARK_EXPIRED, &[&id, &subscriber_id, &now]).await?;
                if marked.is_none() {
                    return Ok((false, 0));
                }
                let (_, queued) = record_other(client, subscriber_id, event.event_type, &event.data, now).await?;
                Ok((true, queued))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(recorded)
}
