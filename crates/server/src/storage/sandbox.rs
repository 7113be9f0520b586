//! The sandbox's controls over a subscriber's own data: its clock and a reset.

use super::sql::{Transaction, params};

use super::StorageResult;

/// Moves the subscriber's pending deadlines `seconds` earlier, as if its clock ran ahead:
/// purchases settle, open card-entry pages, bank links and identity questions expire, and
/// locks run out that much sooner. Returns how many deadlines moved.
pub fn advance_clock(transaction: &Transaction<'_>, subscriber_id: i64, seconds: i64) -> StorageResult<usize> {
    let statements = [
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
    let mut moved = 0;
    for statement in statements {
        moved += transaction.prepare_cached(statement)?.execute(params![subscriber_id, seconds])?;
    }
    Ok(moved)
}

/// What a reset removed that lives outside the database too.
#[derive(Debug, Default)]
pub struct Removed {
    /// Enrolled locations, findable by discovery until now.
    pub location_ids: Vec<i64>,
}

/// Deletes everything of the subscriber's but the account itself (and its usage, which is
/// billing): cards and their transactions, the merchant and its locations, bank accounts,
/// persons, webhook endpoints and events. A purchase between this subscriber and another one
/// stays on the other side's list, without this side.
pub fn reset(transaction: &Transaction<'_>, subscriber_id: i64) -> StorageResult<Removed> {
    let location_ids = {
        let mut statement = transaction.prepare_cached(
            "SELECT l.id FROM locations l JOIN merchants m ON m.id = l.merchant_id WHERE m.subscriber_id = ?1",
        )?;
        let rows = statement.query_map([subscriber_id], |row| row.get::<i64>(0))?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    let statements = [
        "DELETE FROM webhooks WHERE subscriber_id = ?1",
        // Events only this subscriber sees go; the others lose this recipient.
        "DELETE FROM events WHERE id IN (SELECT event_id FROM event_recipients WHERE subscriber_id = ?1)
           AND NOT EXISTS (SELECT 1 FROM event_recipients o WHERE o.event_id = events.id AND o.subscriber_id <> ?1)",
        "DELETE FROM event_recipients WHERE subscriber_id = ?1",
        // Purchases with another subscriber keep that side.
        "UPDATE transactions SET card_id = NULL
         WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = ?1)
           AND merchant_id IN (SELECT id FROM merchants WHERE subscriber_id <> ?1)",
        "UPDATE transactions SET merchant_id = NULL, location_id = NULL
         WHERE merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = ?1)
           AND card_id IN (SELECT id FROM cards WHERE subscriber_id <> ?1)",
        "UPDATE events SET card_id = NULL WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = ?1)",
        "UPDATE events SET merchant_id = NULL WHERE merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = ?1)",
        "DELETE FROM transactions WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = ?1)
           OR merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = ?1)",
        "DELETE FROM card_sessions WHERE subscriber_id = ?1",
        "DELETE FROM cards WHERE subscriber_id = ?1",
        "DELETE FROM locations WHERE merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = ?1)",
        "DELETE FROM merchants WHERE subscriber_id = ?1",
        "DELETE FROM bank_accounts WHERE subscriber_id = ?1",
        "DELETE FROM person_question_sets WHERE person_id IN (SELECT id FROM persons WHERE subscriber_id = ?1)",
        "DELETE FROM persons WHERE subscriber_id = ?1",
    ];
    for statement in statements {
        transaction.prepare_cached(statement)?.execute([subscriber_id])?;
    }
    super::changes::announce(transaction, super::changes::Change::Reset(subscriber_id))?;
    Ok(Removed { location_ids })
}
