use super::{Database, execute};
use crate::storage::StorageResult;
use crate::storage::rows::usage::UsageCount;

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
