use futures::FutureExt;

use super::events::record_other;
use super::rows::{bound, first};
use super::{Client, Database, LOCK_ACCOUNT_OWNER, execute};
use crate::storage::StorageResult;
use crate::storage::notices::Change;
use crate::storage::rows::bank_accounts::Outcome;
use crate::storage::sql::{Param, Sql};

/// A step of link `id` (`Store::link_step`): in one write that first locks the subscriber who
/// opened it (one round trip with the update).
pub async fn step<const N: usize>(
    db: &Database,
    id: i64,
    update: &'static Sql,
    args: [Param<'static>; N],
    now: i64,
    outcome: Outcome,
    ends: impl FnOnce(u32) -> bool + Send + 'static,
) -> StorageResult<Option<u32>> {
    let (changed, queued) = db
        .write(move |client: &Client| {
            async move {
                let (locked, updated) = futures::future::join(
                    execute(client, LOCK_ACCOUNT_OWNER, &[&id]),
                    first::<(i64, u32)>(client, update, &bound(&args)),
                )
                .await;
                locked?;
                let Some((subscriber_id, failures)) = updated? else { return Ok((None, 0)) };
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
