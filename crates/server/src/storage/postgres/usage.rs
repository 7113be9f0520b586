use super::{Database, execute, query};
use crate::storage::StorageResult;
use crate::storage::usage::UsageCount;

pub async fn add(db: &Database, counts: Vec<UsageCount>) -> StorageResult<()> {
    let mut subscribers = Vec::with_capacity(counts.len());
    let mut days = Vec::with_capacity(counts.len());
    let mut endpoints = Vec::with_capacity(counts.len());
    let mut numbers = Vec::with_capacity(counts.len());
    for ((subscriber_id, day, endpoint), count) in counts {
        subscribers.push(subscriber_id);
        days.push(day);
        endpoints.push(endpoint);
        numbers.push(i64::try_from(count).unwrap_or(i64::MAX));
    }
    let client = db.client().await?;
    execute(
        &client,
        "INSERT INTO usage_counts (subscriber_id, day, endpoint, count)
         SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::BIGINT[])
         ON CONFLICT (subscriber_id, day, endpoint) DO UPDATE SET count = usage_counts.count + excluded.count",
        &[&subscribers, &days, &endpoints, &numbers],
    )
    .await?;
    Ok(())
}

pub async fn list(db: &Database, subscriber_id: i64) -> StorageResult<Vec<(String, String, u64)>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        "SELECT day, endpoint, count FROM usage_counts WHERE subscriber_id = $1 ORDER BY day DESC, endpoint",
        &[&subscriber_id],
    )
    .await?;
    rows.iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, u64::try_from(row.try_get::<_, i64>(2)?).unwrap_or(0))))
        .collect()
}
