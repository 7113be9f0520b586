use rusqlite::{Connection, OptionalExtension, params};
use subscriber_protocol::UnixMillis;

use crate::storage::StorageResult;
use crate::storage::login_failures::{Limited, Scope};

pub fn record(connection: &Connection, subjects: &[(Scope, Vec<u8>)], at_ms: UnixMillis) -> StorageResult<()> {
    let mut statement =
        connection.prepare_cached("INSERT INTO login_failures (scope, subject, failed_at_ms) VALUES (?1, ?2, ?3)")?;
    for (scope, subject) in subjects {
        statement.execute(params![scope.as_str(), subject, at_ms])?;
    }
    Ok(())
}

pub fn deciding(
    connection: &Connection,
    subjects: &[Limited],
    since_ms: UnixMillis,
) -> StorageResult<Option<UnixMillis>> {
    let mut statement = connection.prepare_cached(
        "SELECT failed_at_ms FROM login_failures WHERE scope = ?1 AND subject = ?2 AND failed_at_ms > ?3
         ORDER BY failed_at_ms DESC LIMIT 1 OFFSET ?4",
    )?;
    let mut latest = None;
    for (scope, subject, limit) in subjects {
        // Only the newest `limit` failures decide: the wait runs from the oldest of them.
        let offset = i64::try_from(limit.saturating_sub(1)).unwrap_or(i64::MAX);
        let at: Option<UnixMillis> =
            statement.query_row(params![scope.as_str(), subject, since_ms, offset], |row| row.get(0)).optional()?;
        latest = latest.max(at);
    }
    Ok(latest)
}
