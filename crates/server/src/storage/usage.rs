use super::sql::{Connection, Transaction, params};

use super::StorageResult;

pub fn add(
    transaction: &Transaction<'_>,
    subscriber_id: i64,
    day: &str,
    endpoint: &str,
    count: u64,
) -> StorageResult<()> {
    transaction.execute(
        "INSERT INTO usage_counts (subscriber_id, day, endpoint, count) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (subscriber_id, day, endpoint) DO UPDATE SET count = usage_counts.count + excluded.count",
        params![subscriber_id, day, endpoint, i64::try_from(count).unwrap_or(i64::MAX)],
    )?;
    Ok(())
}

/// (day, endpoint, count), newest day first.
pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<(String, String, u64)>> {
    let mut statement = connection.prepare_cached(
        "SELECT day, endpoint, count FROM usage_counts WHERE subscriber_id = ?1 ORDER BY day DESC, endpoint",
    )?;
    let rows = statement
        .query_map([subscriber_id], |row| Ok((row.get::<String>(0)?, row.get::<String>(1)?, row.get::<i64>(2)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (day, endpoint, count) = row?;
        out.push((day, endpoint, u64::try_from(count).unwrap_or(0)));
    }
    Ok(out)
}
