use futures::FutureExt;
use subscriber_protocol::UnixSeconds;

use super::rows::{bound, execute, first};
use super::{Client, Database};
use crate::storage::StorageResult;
use crate::storage::rows::idempotency::{Replay, STORE};
use crate::storage::sql::{Param, Sql};

/// Stores a creating request's replay, inside the transaction that created row `id`.
pub async fn store_replay(
    client: &Client,
    replay: Option<Replay>,
    id: impl Into<i64>,
    now: UnixSeconds,
) -> StorageResult<()> {
    if let Some(finished) = replay.map(|replay| replay.finish(id, now)).transpose()? {
        execute(client, &STORE, &bound(&finished.args())).await?;
    }
    Ok(())
}

/// Runs `insert` (an `INSERT … RETURNING id`) and keeps the creating request's replay with the
/// new row's id: without a replay one statement on its own, with one both in a transaction (a
/// replay is never kept for a row that is not there). The new id; `None` (and no replay kept)
/// when it inserted nothing.
pub async fn insert_keeping_replay<const N: usize>(
    db: &Database,
    insert: &'static Sql,
    args: [Param<'static>; N],
    now: UnixSeconds,
    replay: Option<Replay>,
) -> StorageResult<Option<i64>> {
    let Some(replay) = replay else {
        let client = db.client().await?;
        return first(&client, insert, &bound(&args)).await;
    };
    // An insert met by a deadlock was rolled back: it runs again, its replay made again.
    db.write_again(move |client| {
        let (args, replay) = (args.clone(), replay.clone());
        async move {
            let Some(id) = first(client, insert, &bound(&args)).await? else { return Ok(None) };
            store_replay(client, Some(replay), id, now).await?;
            Ok(Some(id))
        }
        .boxed()
    })
    .await
}
