use crate::{CardId, LocationId, ObjectId, SnapshotId, TransactionId};
use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

use crate::CardTransaction;

/// A point-of-sale purchase to make now (sandbox only). Every field is optional: the service picks one of the caller's cards, a location and an amount.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct SandboxTransactionRequest {
    /// The card that pays: one of the caller's.
    pub card_id: Option<CardId>,
    /// Where: one of the caller's locations, or a directory merchant's.
    pub location_id: Option<LocationId>,
    /// The amount.
    pub amount: Option<f64>,
    /// The merchant's name, for a purchase at no known location.
    pub merchant_name: Option<String>,
    /// When it happened (RFC 3339), from 36 months ago to now; now when absent. A purchase
    /// older than the settlement delay is settled already.
    pub created_at: Option<String>,
    /// The card's issuer declines it: `transaction.declined` is sent, and it never enters the
    /// lists.
    pub declined: Option<bool>,
}

/// How a pending sandbox purchase settles. May be empty.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct SandboxSettleRequest {
    /// The amount it settles at, of the purchase's sign (a tip on a restaurant bill, a fuel
    /// pre-authorization settled at the pump's figure); its own amount when absent.
    pub amount: Option<f64>,
}

/// A refund of a settled sandbox purchase. May be empty.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct SandboxRefundRequest {
    /// How much is given back (positive, major units): at most what is left of the purchase
    /// after its earlier refunds; all of that when absent.
    pub amount: Option<f64>,
}

/// An event to send now (sandbox only).
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct SandboxEventRequest {
    /// A catalogue type (`transaction.created`, `account.consent_expiring`, …).
    #[serde(rename = "type")]
    pub event_type: String,
    /// The object it is about: one of the caller's transactions for a transaction event; for
    /// any other type, the id its payload names. A made-up one when absent.
    pub object_id: Option<ObjectId>,
}

/// A pending authorization reversed.
#[apply(wire!)]
pub struct SandboxReversal {
    /// What was done, in words.
    pub message: String,
    /// The transaction that is gone: sync reports it in `removed`.
    pub transaction_id: TransactionId,
}

/// The purchase made.
#[apply(wire!)]
pub struct SandboxTransactionResponse {
    /// What was done, in words.
    pub message: String,
    /// The transaction's id.
    pub transaction_id: TransactionId,
    /// The card that paid; `null` for a card of the sandbox's synthetic population (a
    /// purchase at one of the caller's locations by nobody enrolled here).
    pub card_id: Option<CardId>,
    /// Last four digits of the card that paid, as the merchant's list shows them.
    pub last_four: u16,
    /// The purchase as the card's list shows it (its `cardId` is 0 for a synthetic card).
    pub transaction: CardTransaction,
    /// `true` when the issuer declined it (asked with `declined`): it is in no list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub declined: Option<bool>,
}

/// A card number the sandbox accepts.
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxCard {
    /// The test card number.
    pub pan: String,
    /// The card network.
    pub brand: String,
    /// The country that issued it (ISO 3166-1 alpha-3).
    pub country_code: String,
    /// Credit, debit or prepaid.
    pub funding: CardFunding,
    /// The card in words.
    pub description: String,
}

/// How a card is funded: what a subscriber's code may treat differently (a debit card's
/// purchases leave the holder's account at once; a prepaid one has no credit line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CardFunding {
    Credit,
    Debit,
    Prepaid,
}

/// The sandbox's test cards.
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxCardList {
    /// Every test card.
    pub cards: Vec<SandboxCard>,
}

/// The most snapshots a subscriber keeps: taking one more asks to delete one first.
pub const MAX_SANDBOX_SNAPSHOTS: usize = 20;

/// The longest name of a snapshot, in characters.
pub const SNAPSHOT_NAME_MAX: usize = 80;

/// A snapshot of the caller's sandbox to take now (sandbox only).
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxSnapshotRequest {
    /// What it is for, in the caller's words (1 to 80 characters), e.g. "10 cards, before refunds".
    pub name: String,
}

/// The caller's sandbox as it was at one moment: cards and their transactions, the merchant and
/// its locations, bank accounts, persons, webhook endpoints with their deliveries, events, and
/// the pending deadlines its clock had.
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxSnapshot {
    /// The snapshot's id.
    pub snapshot_id: SnapshotId,
    /// Its name.
    pub name: String,
    /// When it was taken (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// Cards it holds.
    pub cards: u64,
    /// Transactions it holds (of the cards and of the merchant).
    pub transactions: u64,
    /// Its size as stored, in bytes.
    pub bytes: u64,
}

/// The caller's snapshots, newest first.
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxSnapshotList {
    /// Every snapshot of the caller (at most 20).
    pub snapshots: Vec<SandboxSnapshot>,
}

/// The caller's sandbox, put back as a snapshot held it.
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxRestored {
    /// What was done, in words.
    pub message: String,
    /// The snapshot put back (it stays, to be restored again).
    pub snapshot: SandboxSnapshot,
}

/// A snapshot deleted.
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxSnapshotDeleted {
    /// What was done, in words.
    pub message: String,
    /// The snapshot that was deleted.
    pub snapshot_id: SnapshotId,
}
