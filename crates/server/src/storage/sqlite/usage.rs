use rusqlite::{Connection, params};

use crate::storage::StorageResult;
use crate::storage::rows::usage::UsageCount;

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
