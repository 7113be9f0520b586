use futures::FutureExt;
use subscriber_protocol::{LocationId, SubscriberId};
use tokio_postgres::types::ToSql;

use super::{Database, LOCK_SUBSCRIBERS, execute, prepare_all};
use crate::storage::StorageResult;
use crate::storage::rows::sandbox::{ADVANCE_CLOCK, LOCATIONS_OF, RESET};
use crate::storage::sandbox::Removed;

/// All the statements in one round trip (and the commit), under the subscriber's lock.
pub async fn advance_clock(db: &Database, subscriber_id: SubscriberId, seconds: i64) -> StorageResult<u64> {
    db.write_again(move |client| {
        async move {
            let statements = prepare_all(client, &ADVANCE_CLOCK.map(|sql| sql.numbered())).await?;
            let subscribers = vec![subscriber_id];
            let (lock_params, params): ([&(dyn ToSql + Sync); 1], [&(dyn ToSql + Sync); 2]) =
                ([&subscribers], [&subscriber_id, &seconds]);
            let locked = execute(client, LOCK_SUBSCRIBERS, &lock_params);
            let moves =
                futures::future::try_join_all(statements.iter().map(|statement| client.execute(statement, &params)));
            let (locked, moved) = futures::future::join(locked, moves).await;
            locked?;
            Ok(moved?.into_iter().sum())
        }
        .boxed()
    })
    .await
}

/// All the statements in one round trip (and the commit), under the subscriber's lock.
pub async fn reset(db: &Database, subscriber_id: SubscriberId) -> StorageResult<Removed> {
    db.write_again(move |client| {
        async move {
            // In the order written: the statements depend on each other's effects.
            let mut sqls = vec![LOCATIONS_OF.numbered()];
            sqls.extend(RESET.map(|sql| sql.numbered()));
            let statements = prepare_all(client, &sqls).await?;
            let (locations_of, deleting) = statements
                .split_first()
                .ok_or_else(|| crate::storage::StorageError::Corrupt("no statements".into()))?;
            let subscribers = vec![subscriber_id];
            let (lock_params, params): ([&(dyn ToSql + Sync); 1], [&(dyn ToSql + Sync); 1]) =
                ([&subscribers], [&subscriber_id]);
            let locked = execute(client, LOCK_SUBSCRIBERS, &lock_params);
            let locations = client.query(locations_of, &params);
            let deletes =
                futures::future::try_join_all(deleting.iter().map(|statement| client.execute(statement, &params)));
            let (locked, locations, deleted) = futures::future::join3(locked, locations, deletes).await;
            locked?;
            deleted?;
            let location_ids = locations?.iter().map(|row| row.try_get(0)).collect::<Result<Vec<LocationId>, _>>()?;
            Ok(Removed { location_ids })
        }
        .boxed()
    })
    .await
}
