use futures::FutureExt;

use super::{Database, execute, query};
use crate::storage::StorageResult;
use crate::storage::keys::KeyRow;

pub async fn all(db: &Database) -> StorageResult<Vec<KeyRow>> {
    let client = db.client().await?;
    let rows = query(&client, "SELECT name, value FROM server_keys ORDER BY name", &[]).await?;
    rows.iter().map(|row| Ok((row.try_get(0)?, row.try_get(1)?))).collect()
}

pub async fn settle_checks(db: &Database, checks: Vec<KeyRow>, now: i64) -> StorageResult<Vec<KeyRow>> {
    db.write(move |client| {
        async move {
            execute(client, "DELETE FROM server_keys WHERE name NOT LIKE 'check:%'", &[]).await?;
            let (names, values): (Vec<String>, Vec<Vec<u8>>) = checks.into_iter().unzip();
            execute(
                client,
                "INSERT INTO server_keys (name, value, created_at)
                 SELECT name, value, $3 FROM unnest($1::TEXT[], $2::BYTEA[]) AS k(name, value)
                 ON CONFLICT (name) DO NOTHING",
                &[&names, &values, &now],
            )
            .await?;
            let rows = query(client, "SELECT name, value FROM server_keys ORDER BY name", &[]).await?;
            rows.iter().map(|row| Ok((row.try_get(0)?, row.try_get(1)?))).collect()
        }
        .boxed()
    })
    .await
}
