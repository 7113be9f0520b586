//! The sandbox controls' statements, as both databases run them: each backend runs them in the
//! order written, in one write (SQLite one by one in the writer's transaction, PostgreSQL
//! pipelined in one round trip under the subscriber's lock).

use crate::storage::sql::{Sql, sql};

sql! {
    static SETTLE_SOONER = "UPDATE transactions SET settles_at = settles_at - $2
         WHERE pending = 1 AND settles_at IS NOT NULL
           AND (card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
                OR merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1))";
}
sql! {
    static CARD_PAGES_SOONER =
        "UPDATE card_sessions SET expires_at = expires_at - $2 WHERE subscriber_id = $1 AND completed_at IS NULL";
}
sql! {
    static BANK_LINKS_SOONER =
        "UPDATE bank_accounts SET expires_at = expires_at - $2 WHERE subscriber_id = $1 AND status = 'pending'";
}
sql! {
    // A linked account's times all move: its consent runs out sooner, and its link and last
    // refresh lie further back, so a refresh after an advance fetches the days in between.
    static CONSENTS_SOONER = "UPDATE bank_accounts SET consent_expires_at = consent_expires_at - $2,
             linked_at = linked_at - $2, refreshed_at = refreshed_at - $2
         WHERE subscriber_id = $1 AND consent_expires_at IS NOT NULL";
}
sql! {
    static LOCKS_SOONER =
        "UPDATE persons SET locked_until = locked_until - $2 WHERE subscriber_id = $1 AND locked_until IS NOT NULL";
}
sql! {
    static QUESTIONS_SOONER = "UPDATE person_question_sets SET expires_at = expires_at - $2
         WHERE answered_at IS NULL AND person_id IN (SELECT id FROM persons WHERE subscriber_id = $1)";
}

/// What moving a subscriber's clock changes: each statement takes the subscriber (`$1`) and
/// the seconds (`$2`). Purchases settle, open card-entry pages, bank links and identity
/// questions expire, and bank consents and locks run out that much sooner.
pub(in crate::storage) static ADVANCE_CLOCK: [&Sql; 6] =
    [&SETTLE_SOONER, &CARD_PAGES_SOONER, &BANK_LINKS_SOONER, &CONSENTS_SOONER, &LOCKS_SOONER, &QUESTIONS_SOONER];

sql! { static DELETE_WEBHOOKS = "DELETE FROM webhooks WHERE subscriber_id = $1"; }
sql! {
    // Events only this subscriber sees go; the others lose this recipient.
    static DELETE_OWN_EVENTS = "DELETE FROM events WHERE id IN (SELECT event_id FROM event_recipients WHERE subscriber_id = $1)
           AND NOT EXISTS (SELECT 1 FROM event_recipients o WHERE o.event_id = events.id AND o.subscriber_id <> $1)";
}
sql! { static DELETE_RECIPIENTS = "DELETE FROM event_recipients WHERE subscriber_id = $1"; }
sql! {
    // Purchases with another subscriber keep that side: a merchant's row loses the card
    // (a foreign key), a card's row keeps the merchant and location ids it showed, and the
    // events they share keep the ids they name (ids never come again, and that merchant was
    // never the card holder's to read).
    static UNLINK_SHARED_PURCHASES = "UPDATE transactions SET card_id = NULL
         WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
           AND merchant_id IN (SELECT id FROM merchants WHERE subscriber_id <> $1)";
}
sql! {
    static DELETE_TRANSACTIONS = "DELETE FROM transactions WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
           OR (card_id IS NULL AND merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1))";
}
sql! { static DELETE_CARD_SESSIONS = "DELETE FROM card_sessions WHERE subscriber_id = $1"; }
sql! { static DELETE_CARDS = "DELETE FROM cards WHERE subscriber_id = $1"; }
sql! {
    static DELETE_LOCATIONS =
        "DELETE FROM locations WHERE merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1)";
}
sql! { static DELETE_MERCHANT = "DELETE FROM merchants WHERE subscriber_id = $1"; }
sql! { static DELETE_BANK_ACCOUNTS = "DELETE FROM bank_accounts WHERE subscriber_id = $1"; }
sql! {
    static DELETE_QUESTIONS =
        "DELETE FROM person_question_sets WHERE person_id IN (SELECT id FROM persons WHERE subscriber_id = $1)";
}
sql! { static DELETE_PERSON_SESSIONS = "DELETE FROM person_sessions WHERE subscriber_id = $1"; }
sql! { static DELETE_PERSONS = "DELETE FROM persons WHERE subscriber_id = $1"; }

/// What a reset deletes (each statement takes the subscriber as `$1`): everything of the
/// subscriber's but the account itself (and its usage, which is billing): cards and their
/// transactions, the merchant and its locations, bank accounts, persons, webhook endpoints and
/// events. A purchase between this subscriber and another one stays on the other side's list
/// exactly as it was (its row changes only where a foreign key makes it: the deleted card's
/// id on a merchant's row, which the merchant's list does not show), so nothing another
/// subscriber reads changes and nothing they keep needs forgetting.
pub(in crate::storage) static RESET: [&Sql; 13] = [
    &DELETE_WEBHOOKS,
    &DELETE_OWN_EVENTS,
    &DELETE_RECIPIENTS,
    &UNLINK_SHARED_PURCHASES,
    &DELETE_TRANSACTIONS,
    &DELETE_CARD_SESSIONS,
    &DELETE_CARDS,
    &DELETE_LOCATIONS,
    &DELETE_MERCHANT,
    &DELETE_BANK_ACCOUNTS,
    &DELETE_QUESTIONS,
    &DELETE_PERSON_SESSIONS,
    &DELETE_PERSONS,
];

sql! {
    /// The ids of the subscriber's enrolled locations (`$1`).
    pub(in crate::storage) static LOCATIONS_OF =
        "SELECT l.id FROM locations l JOIN merchants m ON m.id = l.merchant_id WHERE m.subscriber_id = $1";
}
