//! Enrolled cards' rows: never the card number, only its last four digits and a keyed
//! fingerprint that recognises it enrolled twice.

use super::labels::Labels;
use super::transactions::TransactionRow;
use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::{Param, args, sql};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, SubscriberId};

/// What is kept of an enrolled card: stored as enrolled, read back as stored.
#[derive(Debug, Clone)]
pub struct EnrolledCard {
    pub last_four: u16,
    pub brand: String,
    pub first_name: String,
    pub last_name: String,
    pub exp_month: u32,
    pub exp_year: u32,
    pub country_code: String,
    pub enrolled_at: UnixSeconds,
}

#[derive(Debug, Clone)]
pub struct CardRow {
    pub id: CardId,
    pub subscriber_id: SubscriberId,
    pub enrolled: EnrolledCard,
    pub labels: Labels,
}

pub(in crate::storage) const COLUMNS: &str = "id, subscriber_id, last_four, brand, first_name, last_name, exp_month, exp_year, country_code, enrolled_at, \
     client_user_id, metadata";

/// A card to enroll, with its history and the data of its `card.enrolled` event.
pub struct NewCard {
    pub subscriber_id: SubscriberId,
    /// HMAC of the card number under the fingerprint key.
    pub fingerprint: Vec<u8>,
    pub enrolled: EnrolledCard,
    pub labels: Labels,
    /// The sandbox's generated history (their `card_id` is set once the card has its id).
    pub history: Vec<TransactionRow>,
    /// The `card.enrolled` event's data (JSON), given the card's id.
    pub event_data: Box<dyn FnOnce(CardId) -> super::events::StoredEvent + Send>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    Created(CardId),
    /// The subscriber already enrolled this card, under this id.
    Duplicate(CardId),
}

impl Inserted {
    pub fn card_id(self) -> CardId {
        match self {
            Self::Created(id) | Self::Duplicate(id) => id,
        }
    }
}

impl FromRow for CardRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            enrolled: EnrolledCard {
                last_four: row.column(2)?,
                brand: row.column(3)?,
                first_name: row.column(4)?,
                last_name: row.column(5)?,
                exp_month: row.column(6)?,
                exp_year: row.column(7)?,
                country_code: row.column(8)?,
                enrolled_at: row.column(9)?,
            },
            labels: super::labels::read(row, 10)?,
        })
    }
}

/// [`INSERT`]'s arguments.
pub(in crate::storage) fn insert_args(card: &NewCard) -> [Param<'_>; 12] {
    let enrolled = &card.enrolled;
    let [client_user_id, metadata] = super::labels::args(&card.labels);
    args![
        card.subscriber_id,
        &card.fingerprint,
        enrolled.last_four,
        &enrolled.brand,
        &enrolled.first_name,
        &enrolled.last_name,
        enrolled.exp_month,
        enrolled.exp_year,
        &enrolled.country_code,
        enrolled.enrolled_at,
        client_user_id,
        metadata,
    ]
}

sql! {
    /// Inserts a card (`$1` the subscriber, `$2` the fingerprint, then [`EnrolledCard`]'s fields
    /// in order); returns its id, or nothing when the subscriber has that card already.
    pub(in crate::storage) static INSERT = "INSERT INTO cards (subscriber_id, fingerprint, last_four, brand,
            first_name, last_name, exp_month, exp_year, country_code, enrolled_at, client_user_id, metadata)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        ON CONFLICT (subscriber_id, fingerprint) DO NOTHING RETURNING id";
}

sql! {
    /// The id of the subscriber's (`$1`) card with fingerprint `$2`.
    pub(in crate::storage) static WITH_FINGERPRINT = "SELECT id FROM cards WHERE subscriber_id = $1 AND fingerprint = $2";
}
