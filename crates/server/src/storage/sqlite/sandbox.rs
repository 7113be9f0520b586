use rusqlite::Connection;

use crate::storage::StorageResult;
use crate::storage::sandbox::Removed;

/// What moving a subscriber's clock changes: each statement takes the subscriber (`?1`) and
/// the seconds (`?2`). Purchases settle, open card-entry pages, bank links and identity
/// questions expire, and locks run out that much sooner.
const ADVANCE_CLOCK: [&str; 5] = [
    "UPDATE transactions SET settles_at = settles_at - ?2
         WHERE pending = 1 AND settles_at IS NOT NULL
           AND (card_id IN (SELECT id FROM cards WHERE subscriber_id = ?1)
                OR merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = ?1))",
    "UPDATE card_sessions SET expires_at = expires_at - ?2 WHERE subscriber_id = ?1 AND completed_at IS NULL",
    "UPDATE bank_accounts SET expires_at = expires_at - ?2 WHERE subscriber_id = ?1 AND status = 'pending'",
    "UPDATE persons SET locked_until = locked_until - ?2 WHERE subscriber_id = ?1 AND locked_until IS NOT NULL",
    "UPDATE person_question_sets SET expires_at = expires_at - ?2
         WHERE answered_at IS NULL AND person_id IN (SELECT id FROM persons WHERE subscriber_id = ?1)",
];

/// What a reset deletes (each statement takes the subscriber as `?1`): everything of the
/// subscriber's but the account itself (and its usage, which is billing): cards and their
/// transactions, the merchant and its locations, bank accounts, persons, webhook endpoints and
/// events. A purchase between this subscriber and another one stays on the other side's list
/// exactly as it was (its row changes only where a foreign key makes it: the deleted card's
/// id on a merchant's row, which the merchant's list does not show), so nothing another
/// subscriber reads changes and nothing they keep needs forgetting.
const RESET: [&str; 12] = [
    "DELETE FROM webhooks WHERE subscriber_id = ?1",
    // Events only this subscriber sees go; the others lose this recipient.
    "DELETE FROM events WHERE id IN (SELECT event_id FROM event_recipients WHERE subscriber_id = ?1)
           AND NOT EXISTS (SELECT 1 FROM event_recipients o WHERE o.event_id = events.id AND o.subscriber_id <> ?1)",
    "DELETE FROM event_recipients WHERE subscriber_id = ?1",
    // Purchases with another subscriber keep that side: a merchant's row loses the card
    // (a foreign key), a card's row keeps the merchant and location ids it showed, and the
    // events they share keep the ids they name (ids never come again, and that merchant was
    // never the card holder's to read).
    "UPDATE transactions SET card_id = NULL
         WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = ?1)
           AND merchant_id IN (SELECT id FROM merchants WHERE subscriber_id <> ?1)",
    "DELETE FROM transactions WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = ?1)
           OR (card_id IS NULL AND merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = ?1))",
    "DELETE FROM card_sessions WHERE subscriber_id = ?1",
    "DELETE FROM cards WHERE subscriber_id = ?1",
    "DELETE FROM locations WHERE merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = ?1)",
    "DELETE FROM merchants WHERE subscriber_id = ?1",
    "DELETE FROM bank_accounts WHERE subscriber_id = ?1",
    "DELETE FROM person_question_sets WHERE person_id IN (SELECT id FROM persons WHERE subscriber_id = ?1)",
    "DELETE FROM persons WHERE subscriber_id = ?1",
];

/// The ids of the subscriber's enrolled locations (`?1`).
const LOCATIONS_OF: &str =
    "SELECT l.id FROM locations l JOIN merchants m ON m.id = l.merchant_id WHERE m.subscriber_id = ?1";

pub fn advance_clock(connection: &Connection, subscriber_id: i64, seconds: i64) -> StorageResult<u64> {
    let mut moved = 0;
    for statement in ADVANCE_CLOCK {
        moved += connection.prepare_cached(statement)?.execute(rusqlite::params![subscriber_id, seconds])?;
    }
    Ok(moved as u64)
}

pub fn reset(connection: &Connection, subscriber_id: i64) -> StorageResult<Removed> {
    let location_ids = connection
        .prepare_cached(LOCATIONS_OF)?
        .query_map([subscriber_id], |row| row.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    for statement in RESET {
        connection.prepare_cached(statement)?.execute([subscriber_id])?;
    }
    Ok(Removed { location_ids })
}
