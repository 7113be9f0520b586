use futures::FutureExt;
use subscriber_protocol::UnixSeconds;

use super::Database;
use super::rows::{all, execute};
use crate::storage::StorageResult;
use crate::storage::rows::keys::{ALL, KeyRow, REMOVE_KEYS};

/// Every check in one statement (`unnest`).
pub async fn settle_checks(db: &Database, checks: Vec<KeyRow>, now: UnixSeconds) -> StorageResult<Vec<KeyRow>> {
    db.write(move |client| {
        async move {
            execute(client, &REMOVE_KEYS, &[]).await?;
            let (names, values): (Vec<String>, Vec<Vec<u8>>) = checks.into_iter().unzip();
            execute(
                client,
                "INSERT INTO server_keys (name, value, created_at)
                 SELECT name, value, $3 FROM unnest($1::TEXT[], $2::BYTEA[]) AS k(name, value)
                 ON CONFLICT (name) DO NOTHING",
                &[&names, &values, &now],
            )
            .await?;
            all(client, &ALL, &[]).await
        }
        .boxed()
    })
    .await
}
