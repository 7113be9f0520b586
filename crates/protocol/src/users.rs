//! The subscriber's end users (contract: "Lifecycle", fourth round): what was created with a
//! `clientUserId`, found and erased together.

use macro_rules_attribute::apply;

use crate::{Account, AccountId, CardId, CardRecord, Metadata, Person, PersonId};

/// `PATCH /card/{cardId}`, `/account/{accountId}`, `/persons/{personId}`: the pairs to set.
#[apply(wire!)]
#[derive(Eq)]
pub struct UpdateMetadataRequest {
    /// Keys merge with those already set; a key sent with "" is removed. At most 20 pairs in
    /// all (key at most 40 characters, value at most 500).
    pub metadata: Metadata,
}

/// Everything of one of the subscriber's users (`GET /users/{clientUserId}`), newest first.
#[apply(wire!)]
pub struct EndUser {
    /// The subscriber's own id for the user.
    pub client_user_id: String,
    /// The user's cards.
    pub cards: Vec<CardRecord>,
    /// The user's bank accounts.
    pub accounts: Vec<Account>,
    /// The user's persons.
    pub persons: Vec<Person>,
}

/// The answer to `DELETE /users/{clientUserId}`: what was erased, in one write.
#[apply(wire!)]
#[derive(Eq)]
pub struct EndUserRemoved {
    /// `User removed`.
    pub message: String,
    /// The subscriber's own id for the user.
    pub client_user_id: String,
    /// The removed cards (each with its `card.removed` event).
    pub card_ids: Vec<CardId>,
    /// The removed bank accounts (`account.removed`).
    pub account_ids: Vec<AccountId>,
    /// The removed persons (`person.removed`).
    pub person_ids: Vec<PersonId>,
}
