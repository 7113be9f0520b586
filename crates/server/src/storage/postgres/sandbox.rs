use futures::FutureExt;
use tokio_postgres::types::ToSql;

use super::{Database, LOCK_SUBSCRIBERS, execute, prepare_all};
use crate::storage::StorageResult;
use crate::storage::sandbox::Removed;

/// What moving a subscriber's clock changes: each statement takes the subscriber (`$1`) and
/// the seconds (`$2`). Purchases settle, open card-entry pages, bank links and identity
/// questions expire, and locks run out that much sooner.
const ADVANCE_CLOCK: [&str; 5] = [
    "UPDATE transactions SET settles_at = settles_at - $2
         WHERE pending = 1 AND settles_at IS NOT NULL
           AND (card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
                OR merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1))",
    "UPDATE card_sessions SET expires_at = expires_at - $2 WHERE subscriber_id = $1 AND completed_at IS NULL",
    "UPDATE bank_accounts SET expires_at = expires_at - $2 WHERE subscriber_id = $1 AND status = 'pending'",
    "UPDATE persons SET locked_until = locked_until - $2 WHERE subscriber_id = $1 AND locked_until IS NOT NULL",
    "UPDATE person_question_sets SET expires_at = expires_at - $2
         WHERE answered_at IS NULL AND person_id IN (SELECT id FROM persons WHERE subscriber_id = $1)",
];

/// What a reset deletes (each statement takes the subscriber as `$1`): everything of the
/// subscriber's but the account itself (and its usage, which is billing): cards and their
/// transactions, the merchant and its locations, bank accounts, persons, webhook endpoints and
/// events. A purchase between this subscriber and another one stays on the other side's list
/// exactly as it was (its row changes only where a foreign key makes it: the deleted card's
/// id on a merchant's row, which the merchant's list does not show), so nothing another
/// subscriber reads changes and nothing they keep needs forgetting.
const RESET: [&str; 12] = [
    "DELETE FROM webhooks WHERE subscriber_id = $1",
    // Events only this subscriber sees go; the others lose this recipient.
    "DELETE FROM events WHERE id IN (SELECT event_id FROM event_recipients WHERE subscriber_id = $1)
           AND NOT EXISTS (SELECT 1 FROM event_recipients o WHERE o.event_id = events.id AND o.subscriber_id <> $1)",
    "DELETE FROM event_recipients WHERE subscriber_id = $1",
    // Purchases with another subscriber keep that side: a merchant's row loses the card
    // (a foreign key), a card's row keeps the merchant and location ids it showed, and the
    // events they share keep the ids they name (ids never come again, and that merchant was
    // never the card holder's to read).
    "UPDATE transactions SET card_id = NULL
         WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
           AND merchant_id IN (SELECT id FROM merchants WHERE subscriber_id <> $1)",
    "DELETE FROM transactions WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
           OR (card_id IS NULL AND merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1))",
    "DELETE FROM card_sessions WHERE subscriber_id = $1",
    "DELETE FROM cards WHERE subscriber_id = $1",
    "DELETE FROM locations WHERE merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1)",
    "DELETE FROM merchants WHERE subscriber_id = $1",
    "DELETE FROM bank_accounts WHERE subscriber_id = $1",
    "DELETE FROM person_question_sets WHERE person_id IN (SELECT id FROM persons WHERE subscriber_id = $1)",
    "DELETE FROM persons WHERE subscriber_id = $1",
];

/// The ids of the subscriber's enrolled locations (`$1`).
const LOCATIONS_OF: &str =
    "SELECT l.id FROM locations l JOIN merchants m ON m.id = l.merchant_id WHERE m.subscriber_id = $1";

/// All the statements in one round trip (and the commit), under the subscriber's lock.
pub async fn advance_clock(db: &Database, subscriber_id: i64, seconds: i64) -> StorageResult<u64> {
    db.write_again(move |client| {
        async move {
            let statements = prepare_all(client, &ADVANCE_CLOCK).await?;
            let subscribers = vec![subscriber_id];
            let (lock_params, params): ([&(dyn ToSql + Sync); 1], [&(dyn ToSql + Sync); 2]) =
                ([&subscribers], [&subscriber_id, &seconds]);
            let locked = execute(client, LOCK_SUBSCRIBERS, &lock_params);
            let moves =
                futures::future::try_join_all(statements.iter().map(|statement| client.execute(statement, &params)));
            let (locked, moved) = futures::future::join(locked, moves).await;
            locked?;
            Ok(moved?.into_iter().sum())
        }
        .boxed()
    })
    .await
}

/// All the statements in one round trip (and the commit), under the subscriber's lock.
pub async fn reset(db: &Database, subscriber_id: i64) -> StorageResult<Removed> {
    db.write_again(move |client| {
        async move {
            // In the order written: the statements depend on each other's effects.
            let mut sqls = vec![LOCATIONS_OF];
            sqls.extend(RESET);
            let statements = prepare_all(client, &sqls).await?;
            let (locations_of, deleting) = statements
                .split_first()
                .ok_or_else(|| crate::storage::StorageError::Corrupt("no statements".into()))?;
            let subscribers = vec![subscriber_id];
            let (lock_params, params): ([&(dyn ToSql + Sync); 1], [&(dyn ToSql + Sync); 1]) =
                ([&subscribers], [&subscriber_id]);
            let locked = execute(client, LOCK_SUBSCRIBERS, &lock_params);
            let locations = client.query(locations_of, &params);
            let deletes =
                futures::future::try_join_all(deleting.iter().map(|statement| client.execute(statement, &params)));
            let (locked, locations, deleted) = futures::future::join3(locked, locations, deletes).await;
            locked?;
            deleted?;
            let location_ids = locations?.iter().map(|row| row.try_get(0)).collect::<Result<Vec<i64>, _>>()?;
            Ok(Removed { location_ids })
        }
        .boxed()
    })
    .await
}
