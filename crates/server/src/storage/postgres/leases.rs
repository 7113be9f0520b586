use super::{Database, execute};
use crate::storage::StorageResult;

pub async fn hold(db: &Database, name: &str, holder: &str, now_ms: i64, until_ms: i64) -> StorageResult<bool> {
    let client = db.client().await?;
    let changed = execute(
        &client,
        "INSERT INTO leases (name, holder, expires_at_ms) VALUES ($1, $2, $4)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
         WHERE leases.holder = excluded.holder OR leases.expires_at_ms < $3",
        &[&name, &holder, &now_ms, &until_ms],
    )
    .await?;
    Ok(changed == 1)
}
