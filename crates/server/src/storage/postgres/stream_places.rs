use std::time::Duration;
use subscriber_protocol::SubscriberId;

use super::{Database, execute, query_opt};
use crate::storage::StorageResult;

/// Tries so many times when another instance took the same free place at the same moment.
const TRIES: usize = 3;

/// A place is held for `held_for` unless renewed.
pub async fn take(
    db: &Database,
    subscriber_id: SubscriberId,
    holder: &str,
    max: usize,
    held_for: Duration,
) -> StorageResult<bool> {
    let client = db.client().await?;
    let places = i32::try_from(max).unwrap_or(i32::MAX);
    let held_for = held_for.as_secs_f64();
    for _ in 0..TRIES {
        // The lowest place not held by a live stream, taken in one statement; a lapsed place
        // (its instance stopped renewing) is taken over.
        let taken = query_opt(
            &client,
            "INSERT INTO stream_places (subscriber_id, place, holder, held_until)
             SELECT $1, candidate.place, $2, clock_timestamp() + make_interval(secs => $4)
             FROM generate_series(0, $3 - 1) AS candidate (place)
             WHERE NOT EXISTS (
                 SELECT 1 FROM stream_places held
                 WHERE held.subscriber_id = $1 AND held.place = candidate.place
                   AND held.held_until > clock_timestamp())
             ORDER BY candidate.place LIMIT 1
             ON CONFLICT (subscriber_id, place) DO UPDATE
                 SET holder = excluded.holder, held_until = excluded.held_until
                 WHERE stream_places.held_until <= clock_timestamp()
             RETURNING place",
            &[&subscriber_id, &holder, &places, &held_for],
        )
        .await?;
        if taken.is_some() {
            return Ok(true);
        }
        let live: i64 = super::query_one(
            &client,
            "SELECT count(*) FROM stream_places WHERE subscriber_id = $1 AND held_until > clock_timestamp()",
            &[&subscriber_id],
        )
        .await?
        .try_get(0)?;
        if usize::try_from(live).unwrap_or(usize::MAX) >= max {
            return Ok(false);
        }
    }
    Ok(false)
}

pub async fn renew(db: &Database, holders: &[String], held_for: Duration) -> StorageResult<()> {
    if holders.is_empty() {
        return Ok(());
    }
    let client = db.client().await?;
    execute(
        &client,
        "UPDATE stream_places SET held_until = clock_timestamp() + make_interval(secs => $2) WHERE holder = ANY($1)",
        &[&holders, &held_for.as_secs_f64()],
    )
    .await?;
    Ok(())
}

pub async fn free(db: &Database, holder: &str) -> StorageResult<()> {
    let client = db.client().await?;
    execute(&client, "DELETE FROM stream_places WHERE holder = $1", &[&holder]).await?;
    Ok(())
}
