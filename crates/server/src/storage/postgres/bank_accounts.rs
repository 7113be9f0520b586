use futures::FutureExt;
use subscriber_protocol::SubscriberId;

use super::events::record_other;
use super::rows::{bound_all, first};
use super::{Client, Database, LOCK_ACCOUNT_OWNER, execute};
use crate::storage::StorageResult;
use crate::storage::notices::Change;
use crate::storage::rows::bank_accounts::LinkStep;

/// A step of the link, in one write that first locks the subscriber who opened it (one round
/// trip with the update).
pub async fn step(db: &Database, step: LinkStep) -> StorageResult<Option<u32>> {
    let LinkStep { id, update, args, now, outcome, ends, then } = step;
    let (changed, queued) = db
        .write(move |client: &Client| {
            async move {
                let (locked, updated) = futures::future::join(
                    execute(client, LOCK_ACCOUNT_OWNER, &[&id]),
                    first::<(SubscriberId, u32)>(client, update, &bound_all(&args)),
                )
                .await;
                locked?;
                let Some((subscriber_id, failures)) = updated? else { return Ok((None, 0)) };
                if let Some((sql, args)) = &then {
                    execute(client, sql.numbered(), &bound_all(args)).await?;
                }
                let mut queued = 0;
                if ends(failures) {
                    queued = record_other(client, subscriber_id, outcome.event_type, &outcome.data, now).await?.1;
                }
                Ok((Some(failures), queued))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(changed)
}
