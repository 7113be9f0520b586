//! What removing one of a subscriber's objects erases (contract: "Lifecycle"): a removal is
//! an erasure, so the object's rows go and so does every row that holds its data, in one
//! write, before its one `*.removed` event (the id alone) is recorded. Each statement takes
//! the subscriber as `$1` and the object's id as `$2`, and both backends run them in the order
//! written (they depend on each other's effects), after `owned` has found the object to be the
//! subscriber's.
//!
//! The events whose JSON data names the object (`card.enrolled` names its `cardId`, last four
//! and brand) go too; how an event's data is searched differs by database, so each backend
//! writes that one statement (`named_by` is the data's key).

use super::events::StoredEvent;
use crate::storage::sql::{Sql, sql};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{AccountId, CardId, PersonId, SubscriberId};

/// One of the objects a subscriber makes for its users (`clientUserId`), which it labels and
/// removes: its kind and its id together, so a kind's statements only ever run with an id of
/// that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserObject {
    Card(CardId),
    Account(AccountId),
    Person(PersonId),
}

impl UserObject {
    /// What erasing it takes.
    pub fn removal(self) -> &'static Removal {
        match self {
            Self::Card(_) => &CARD,
            Self::Account(_) => &ACCOUNT,
            Self::Person(_) => &PERSON,
        }
    }

    /// Its id as its removal's statements take it (`$2`) and events' data names it.
    pub fn id(self) -> i64 {
        match self {
            Self::Card(id) => id.get(),
            Self::Account(id) => id.get(),
            Self::Person(id) => id.get(),
        }
    }
}

/// What [`crate::storage::Store::remove`] is asked: the subscriber's object to erase, and the
/// `*.removed` event to record with it, at `now`.
#[derive(Debug, Clone)]
pub struct ObjectRemoval {
    pub subscriber_id: SubscriberId,
    pub object: UserObject,
    pub event: StoredEvent,
    pub now: UnixSeconds,
}

/// One kind of removal.
pub struct Removal {
    /// What is removed, for errors and logs.
    pub noun: &'static str,
    /// A row when `$2` is `$1`'s.
    pub owned: &'static Sql,
    /// The erasing statements, in order.
    pub erase: &'static [&'static Sql],
    /// The key of an event's data that names the object (`cardId`).
    pub named_by: &'static str,
    /// The ids of the subscriber's (`$1`) objects of this kind that its user `$2`
    /// (`clientUserId`) has, oldest first.
    pub of_user: &'static Sql,
    /// The object of this kind with an id [`Removal::of_user`] read.
    pub object: fn(i64) -> UserObject,
}

sql! { static CARDS_OF_USER = "SELECT id FROM cards WHERE subscriber_id = $1 AND client_user_id = $2 ORDER BY id"; }
sql! { static CARD_OWNED = "SELECT id FROM cards WHERE id = $2 AND subscriber_id = $1"; }
/// The card is the subscriber's: checked before, and again in each statement that would not
/// name the subscriber otherwise (PostgreSQL types every parameter from the text).
const OWNED: &str = "EXISTS (SELECT 1 FROM cards c WHERE c.id = $2 AND c.subscriber_id = $1)";
sql! {
    // A purchase the card made at an enrolled merchant is that merchant's sale too: the
    // merchant keeps its record as it showed it (the last four digits, never the card's id),
    // so only the card holder's side goes. When the card holder is that merchant too, the
    // event stays theirs as the merchant's.
    static CARD_SHARED_EVENTS_UNLISTED = "DELETE FROM event_recipients
         WHERE subscriber_id = $1
           AND event_id IN (SELECT e.id FROM events e WHERE e.card_id = $2 AND e.merchant_id IS NOT NULL
                              AND e.merchant_id NOT IN (SELECT m.id FROM merchants m WHERE m.subscriber_id = $1))";
}
sql! {
    static CARD_SHARED_EVENTS_UNLINKED = "UPDATE events SET card_id = NULL
         WHERE card_id = $2 AND merchant_id IS NOT NULL AND {OWNED}";
}
sql! {
    static CARD_SHARED_PURCHASES_UNLINKED = "UPDATE transactions SET card_id = NULL
         WHERE card_id = $2 AND merchant_id IS NOT NULL AND {OWNED}";
}
sql! {
    // Their events go with them (`ON DELETE CASCADE`), and those events' deliveries with those.
    static CARD_TRANSACTIONS = "DELETE FROM transactions WHERE card_id = $2 AND {OWNED}";
}
sql! { static CARD_SESSIONS = "DELETE FROM card_sessions WHERE card_id = $2 AND subscriber_id = $1"; }
sql! {
    // The ids of its reversed authorizations, kept for sync.
    static CARD_REMOVED_TRANSACTIONS = "DELETE FROM removed_transactions WHERE card_id = $2 AND {OWNED}";
}
sql! {
    // The fingerprint goes with the row: the same card number enrolls again, with a new id.
    static CARD_ROW = "DELETE FROM cards WHERE id = $2 AND subscriber_id = $1";
}

/// A card: its transactions (recurring streams and kept pages are made from them), its
/// completed card-entry sessions, its fingerprint and its events.
pub static CARD: Removal = Removal {
    noun: "card",
    owned: &CARD_OWNED,
    erase: &[
        &CARD_SHARED_EVENTS_UNLISTED,
        &CARD_SHARED_EVENTS_UNLINKED,
        &CARD_SHARED_PURCHASES_UNLINKED,
        &CARD_TRANSACTIONS,
        &CARD_REMOVED_TRANSACTIONS,
        &CARD_SESSIONS,
        &CARD_ROW,
    ],
    named_by: "cardId",
    of_user: &CARDS_OF_USER,
    object: |id| UserObject::Card(CardId(id)),
};

sql! { static ACCOUNT_OWNED = "SELECT id FROM bank_accounts WHERE id = $2 AND subscriber_id = $1"; }
sql! {
    // The bank's access token goes with the row: nothing can use it again.
    static ACCOUNT_ROW = "DELETE FROM bank_accounts WHERE id = $2 AND subscriber_id = $1";
}

/// A bank account: its row with the bank's token, and its events.
pub static ACCOUNT: Removal = Removal {
    noun: "bank account",
    owned: &ACCOUNT_OWNED,
    erase: &[&ACCOUNT_ROW],
    named_by: "accountId",
    of_user: &ACCOUNTS_OF_USER,
    object: |id| UserObject::Account(AccountId(id)),
};
sql! {
    static ACCOUNTS_OF_USER =
        "SELECT id FROM bank_accounts WHERE subscriber_id = $1 AND client_user_id = $2 ORDER BY id";
}

sql! { static PERSON_OWNED = "SELECT id FROM persons WHERE id = $2 AND subscriber_id = $1"; }
sql! {
    static PERSON_QUESTIONS = "DELETE FROM person_question_sets WHERE person_id = $2
         AND person_id IN (SELECT id FROM persons WHERE subscriber_id = $1)";
}
sql! { static PERSON_SESSIONS = "DELETE FROM person_sessions WHERE person_id = $2 AND subscriber_id = $1"; }
sql! { static PERSON_ROW = "DELETE FROM persons WHERE id = $2 AND subscriber_id = $1"; }

/// A person: their row, the questions they were asked with the answers, their hosted pages,
/// and their events.
pub static PERSON: Removal = Removal {
    noun: "person",
    owned: &PERSON_OWNED,
    erase: &[&PERSON_QUESTIONS, &PERSON_SESSIONS, &PERSON_ROW],
    named_by: "personId",
    of_user: &PERSONS_OF_USER,
    object: |id| UserObject::Person(PersonId(id)),
};
sql! { static PERSONS_OF_USER = "SELECT id FROM persons WHERE subscriber_id = $1 AND client_user_id = $2 ORDER BY id"; }

/// What removing one of the subscriber's users erases, kind by kind (cards first: a card's
/// purchases may name nothing else, and nothing names a person).
pub static OF_A_USER: [&Removal; 3] = [&CARD, &ACCOUNT, &PERSON];

/// What [`OF_A_USER`] erased, by kind, in its order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Erased {
    pub cards: Vec<CardId>,
    pub accounts: Vec<AccountId>,
    pub persons: Vec<PersonId>,
}

impl Erased {
    /// Adds an erased object to the list of its kind.
    pub fn push(&mut self, object: UserObject) {
        match object {
            UserObject::Card(id) => self.cards.push(id),
            UserObject::Account(id) => self.accounts.push(id),
            UserObject::Person(id) => self.persons.push(id),
        }
    }

    /// Every object erased, cards first.
    pub fn objects(&self) -> impl Iterator<Item = UserObject> + '_ {
        let cards = self.cards.iter().copied().map(UserObject::Card);
        let accounts = self.accounts.iter().copied().map(UserObject::Account);
        cards.chain(accounts).chain(self.persons.iter().copied().map(UserObject::Person))
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty() && self.accounts.is_empty() && self.persons.is_empty()
    }
}

/// The `*.removed` event of an erased object.
pub type RemovedEvent = Box<dyn Fn(UserObject) -> super::events::StoredEvent + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Each statement is sent with both parameters: PostgreSQL refuses a statement that does
    /// not say what an unnamed parameter's type is.
    #[test]
    fn every_statement_names_the_subscriber_and_the_object() {
        for removal in [&CARD, &ACCOUNT, &PERSON] {
            for sql in std::iter::once(removal.owned).chain(removal.erase.iter().copied()) {
                let text = sql.numbered();
                assert!(text.contains("$1") && text.contains("$2"), "{}: {text}", removal.noun);
            }
        }
    }

    /// An object read back of a user's is of the kind whose statement read it.
    #[test]
    fn each_kind_makes_its_own_objects() {
        for removal in OF_A_USER {
            let object = (removal.object)(7);
            assert!(std::ptr::eq(object.removal(), removal), "{}", removal.noun);
            assert_eq!(object.id(), 7);
        }
    }
}
