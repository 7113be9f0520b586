use rusqlite::{Connection, params};

use crate::storage::StorageResult;
use crate::storage::usage::UsageCount;

pub fn add(connection: &Connection, counts: &[UsageCount]) -> StorageResult<()> {
    let mut statement = connection.prepare_cached(
        "INSERT INTO usage_counts (subscriber_id, day, endpoint, count) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (subscriber_id, day, endpoint) DO UPDATE SET count = usage_counts.count + excluded.count",
    )?;
    for ((subscriber_id, day, endpoint), count) in counts {
        statement.execute(params![subscriber_id, day, endpoint, i64::try_from(*count).unwrap_or(i64::MAX)])?;
    }
    Ok(())
}

pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<(String, String, u64)>> {
    let mut statement = connection.prepare_cached(
        "SELECT day, endpoint, count FROM usage_counts WHERE subscriber_id = ?1 ORDER BY day DESC, endpoint",
    )?;
    let rows = statement.query_map([subscriber_id], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0)))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
