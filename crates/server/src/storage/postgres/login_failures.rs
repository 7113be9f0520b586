use super::{Database, execute, query_one};
use crate::storage::StorageResult;
use crate::storage::login_failures::{Limited, Scope};
use subscriber_protocol::UnixMillis;

pub async fn record(db: &Database, subjects: Vec<(Scope, Vec<u8>)>, at_ms: UnixMillis) -> StorageResult<()> {
    let (scopes, subjects): (Vec<&str>, Vec<Vec<u8>>) =
        subjects.into_iter().map(|(scope, subject)| (scope.as_str(), subject)).unzip();
    let client = db.client().await?;
    execute(
        &client,
        "INSERT INTO login_failures (scope, subject, failed_at_ms)
         SELECT scope, subject, $3 FROM unnest($1::TEXT[], $2::BYTEA[]) AS f(scope, subject)",
        &[&scopes, &subjects, &at_ms],
    )
    .await?;
    Ok(())
}

/// Every subject in one statement: one round trip whatever their number.
pub async fn deciding(db: &Database, subjects: &[Limited], since_ms: UnixMillis) -> StorageResult<Option<UnixMillis>> {
    let scopes: Vec<&str> = subjects.iter().map(|(scope, _, _)| scope.as_str()).collect();
    let keys: Vec<&[u8]> = subjects.iter().map(|(_, subject, _)| subject.as_slice()).collect();
    let offsets: Vec<i64> =
        subjects.iter().map(|(_, _, limit)| i64::try_from(limit.saturating_sub(1)).unwrap_or(i64::MAX)).collect();
    let client = db.client().await?;
    let row = query_one(
        &client,
        "SELECT MAX(deciding) FROM unnest($1::TEXT[], $2::BYTEA[], $3::BIGINT[]) AS s(scope, subject, skip),
             LATERAL (SELECT failed_at_ms AS deciding FROM login_failures f
                      WHERE f.scope = s.scope AND f.subject = s.subject AND f.failed_at_ms > $4
                      ORDER BY f.failed_at_ms DESC LIMIT 1 OFFSET s.skip) AS d",
        &[&scopes, &keys, &offsets, &since_ms],
    )
    .await?;
    Ok(row.try_get(0)?)
}
