//! Snapshots on PostgreSQL: the rows never leave the server. A snapshot is one statement that
//! reads every part (`json_agg` of each table's rows of the subscriber, one view of the
//! database); a restore puts each part back with `json_populate_recordset`, every statement
//! pipelined in one round trip after the one that reads what sync must be told.

use std::sync::LazyLock;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{SnapshotId, SubscriberId};

use futures::FutureExt;
use tokio_postgres::types::ToSql;

use super::rows::{all, first};
use super::{Database, LOCK_SUBSCRIBERS, execute, prepare_all};
use crate::storage::StorageResult;
use crate::storage::rows::sandbox::RESET;
use crate::storage::rows::snapshots::{
    CHANGED_AGAIN, CHANGED_SINCE, CLEAR_QUEUES, CLEAR_REMOVED, COUNT, COUNTED, FORGET_REPLAYS, ONE, OWNED_IDS, PARTS,
    REMOVED_AGAIN, REMOVED_SINCE, Restored, SnapshotRow,
};

/// Every part read into the new snapshot's rows (`$1` the subscriber, `$2` its name, `$3` the
/// time): the snapshot's id and each part's name and row count.
static TAKE: LazyLock<String> = LazyLock::new(|| {
    let parts: Vec<String> = PARTS
        .iter()
        .map(|part| {
            format!(
                "SELECT '{table}' AS name, (SELECT COALESCE(json_agg(t), '[]'::json) FROM {table} t WHERE {owned}) AS rows",
                table = part.table,
                owned = part.owned
            )
        })
        .collect();
    format!(
        "WITH snapshot AS (
             INSERT INTO sandbox_snapshots (subscriber_id, name, created_at, event_seq)
             VALUES ($1, $2, $3, (SELECT COALESCE(MAX(id), 0) FROM events)) RETURNING id
         ), parts AS ({parts})
         INSERT INTO sandbox_snapshot_parts (snapshot_id, name, rows)
         SELECT snapshot.id, parts.name, parts.rows::text FROM snapshot, parts
         RETURNING snapshot_id, name, CAST(CASE WHEN name IN ('cards', 'transactions')
                                                THEN json_array_length(rows::json) ELSE 0 END AS BIGINT)",
        parts = parts.join(" UNION ALL ")
    )
});

/// Each part put back, in order (`$1` the snapshot).
static PUT_BACK: LazyLock<Vec<String>> = LazyLock::new(|| {
    PARTS
        .iter()
        .map(|part| {
            format!(
                "INSERT INTO {table} SELECT * FROM json_populate_recordset(NULL::{table},
                     (SELECT rows::json FROM sandbox_snapshot_parts WHERE snapshot_id = $1 AND name = '{table}')) {on_conflict}",
                table = part.table,
                on_conflict = part.on_conflict
            )
        })
        .collect()
});

pub async fn take(
    db: &Database,
    subscriber_id: SubscriberId,
    name: String,
    now: UnixSeconds,
    max: i64,
) -> StorageResult<Option<SnapshotRow>> {
    db.write_again(move |client| {
        let name = name.clone();
        async move {
            let subscribers = vec![subscriber_id];
            let lock_params: [&(dyn ToSql + Sync); 1] = [&subscribers];
            let by_subscriber: [&(dyn ToSql + Sync); 1] = [&subscriber_id];
            let (locked, held) = futures::future::join(
                execute(client, LOCK_SUBSCRIBERS, &lock_params),
                first::<i64>(client, &COUNT, &by_subscriber),
            )
            .await;
            locked?;
            if held?.unwrap_or_default() >= max {
                return Ok(None);
            }
            let parts: Vec<(SnapshotId, String, i64)> =
                all(client, TAKE.as_str(), &[&subscriber_id, &name, &now]).await?;
            let Some(&(id, _, _)) = parts.first() else { return Ok(None) };
            let count = |table: &str| parts.iter().find(|part| part.1 == table).map_or(0, |part| part.2);
            let (cards, transactions) = (count("cards"), count("transactions"));
            first(client, &COUNTED, &[&id, &cards, &transactions]).await
        }
        .boxed()
    })
    .await
}

pub async fn restore(
    db: &Database,
    subscriber_id: SubscriberId,
    snapshot_id: SnapshotId,
    replays: String,
) -> StorageResult<Option<Restored>> {
    db.write_again(move |client| {
        let replays = replays.clone();
        async move {
            let subscribers = vec![subscriber_id];
            let lock_params: [&(dyn ToSql + Sync); 1] = [&subscribers];
            let by_subscriber: [&(dyn ToSql + Sync); 1] = [&subscriber_id];
            let by_snapshot: [&(dyn ToSql + Sync); 1] = [&snapshot_id];
            let both: [&(dyn ToSql + Sync); 2] = [&subscriber_id, &snapshot_id];
            let forget_replays: [&(dyn ToSql + Sync); 2] = [&replays, &snapshot_id];
            let (locked, snapshot, owned, changed, reappearing, seq) = tokio::join!(
                execute(client, LOCK_SUBSCRIBERS, &lock_params),
                first::<SnapshotRow>(client, &ONE, &both),
                all::<(String, i64)>(client, &OWNED_IDS, &by_subscriber),
                all::<(i64, i64)>(client, &CHANGED_SINCE, &both),
                all::<(i64, i64)>(client, &REMOVED_SINCE, &both),
                first::<i64>(client, "SELECT nextval(pg_get_serial_sequence('events', 'id'))", &[]),
            );
            locked?;
            let Some(snapshot) = snapshot? else { return Ok(None) };
            let (mut owned, changed, reappearing) = (owned?, changed?, reappearing?);
            let seq = seq?.unwrap_or_default();

            // In the order written: each statement depends on the ones before.
            let mut sqls: Vec<&str> = vec![FORGET_REPLAYS.numbered(), CLEAR_REMOVED.numbered()];
            sqls.extend(RESET.iter().map(|sql| sql.numbered()));
            let first_part = sqls.len();
            for (part, sql) in PARTS.iter().zip(PUT_BACK.iter()) {
                if part.table == "webhook_queues" {
                    sqls.push(CLEAR_QUEUES.numbered());
                }
                sqls.push(sql);
            }
            sqls.extend([CHANGED_AGAIN.numbered(), REMOVED_AGAIN.numbered()]);
            let statements = prepare_all(client, &sqls).await?;
            let (changed_again, removed_again) = (&statements[sqls.len() - 2], &statements[sqls.len() - 1]);

            let changed_params: Vec<[i64; 3]> =
                changed.iter().chain(&reappearing).map(|&(id, _)| [subscriber_id.get(), id, seq]).collect();
            let removed_params: Vec<[i64; 4]> =
                changed.iter().map(|&(id, card_id)| [subscriber_id.get(), id, card_id, seq]).collect();
            let changed_refs: Vec<[&(dyn ToSql + Sync); 3]> =
                changed_params.iter().map(|[a, b, c]| [a as _, b as _, c as _]).collect();
            let removed_refs: Vec<[&(dyn ToSql + Sync); 4]> =
                removed_params.iter().map(|[a, b, c, d]| [a as _, b as _, c as _, d as _]).collect();
            let mut writes = Vec::new();
            for (index, statement) in statements[..sqls.len() - 2].iter().enumerate() {
                let is_part = index >= first_part && sqls[index] != CLEAR_QUEUES.numbered();
                let params: &[&(dyn ToSql + Sync)] = match index {
                    0 => &forget_replays,
                    _ if is_part => &by_snapshot,
                    _ => &by_subscriber,
                };
                writes.push(client.execute(statement, params).boxed());
            }
            // A transaction changed since goes back changed; one made since (it did not come
            // back) is removed: each statement does nothing where the other applies.
            for params in &changed_refs {
                writes.push(client.execute(changed_again, params).boxed());
            }
            for params in &removed_refs {
                writes.push(client.execute(removed_again, params).boxed());
            }
            let after = all::<(String, i64)>(client, &OWNED_IDS, &by_subscriber);
            let (written, after) = futures::future::join(futures::future::try_join_all(writes), after).await;
            written?;
            owned.extend(after?);
            Ok(Some(Restored::new(snapshot, owned)))
        }
        .boxed()
    })
    .await
}
