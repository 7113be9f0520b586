//! Transactions' rows: every payment, whichever side looks at it (the card's owner or the
//! merchant).

use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{
    CardId, DirectoryEntryId, EventData, EventId, LocationId, MerchantId, SubscriberId, TransactionId,
    TransactionRemovedData,
};

use super::events::StoredEvent;
use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::sql;

#[derive(Debug, Clone, PartialEq)]
pub struct TransactionRow {
    pub id: TransactionId,
    pub card_id: Option<CardId>,
    pub last_four: u16,
    pub created_at: UnixSeconds,
    pub pending: bool,
    pub settles_at: Option<UnixSeconds>,
    pub amount_minor: i64,
    pub currency: String,
    pub merchant_name: String,
    pub descriptor: String,
    pub category: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub country: String,
    pub zip: String,
    pub directory_id: Option<DirectoryEntryId>,
    pub merchant_id: Option<MerchantId>,
    pub location_id: Option<LocationId>,
    /// On a refund made as one (the sandbox's): the purchase it gives back. Others are
    /// matched to their purchase by the history (`enrichment::history`).
    pub refund_of: Option<TransactionId>,
}

/// A row to insert; `id` is ignored.
pub type NewTransaction = TransactionRow;

/// The columns of a row, in `TransactionRow`'s order.
pub(in crate::storage) const COLUMNS: &str = "id, card_id, last_four, created_at, pending, settles_at, amount_minor, currency, \
     merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id, merchant_id, location_id, \
     refund_of";

/// How many columns [`COLUMNS`] are: what a statement selects after them starts here.
pub(in crate::storage) const WIDTH: usize = 20;

/// [`COLUMNS`] of the table aliased `t`.
pub(in crate::storage) const T_COLUMNS: &str = "t.id, t.card_id, t.last_four, t.created_at, t.pending, t.settles_at, \
     t.amount_minor, t.currency, t.merchant_name, t.descriptor, t.category, t.street, t.street_no, t.city, t.country, \
     t.zip, t.directory_id, t.merchant_id, t.location_id, t.refund_of";

/// Which transactions a page shows. Times are Unix seconds, both bounds inclusive.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub from: Option<UnixSeconds>,
    pub to: Option<UnixSeconds>,
    pub pending: Option<bool>,
    pub location_id: Option<LocationId>,
    /// Position after which the page starts: the last (created_at, id) of the previous page.
    pub after: Option<(UnixSeconds, i64)>,
}

/// Whose transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    Card(CardId),
    Merchant(MerchantId),
}

impl Owner {
    /// The column of `transactions` and `events` that holds the owner's id, and the id.
    pub(in crate::storage) fn column(self) -> (&'static str, i64) {
        match self {
            Self::Card(id) => ("card_id", id.get()),
            Self::Merchant(id) => ("merchant_id", id.get()),
        }
    }

    /// A total order (cards first), for sorting owners.
    pub fn sort_key(self) -> (u8, i64) {
        match self {
            Self::Card(id) => (0, id.get()),
            Self::Merchant(id) => (1, id.get()),
        }
    }

    /// Whether the row is one of the owner's.
    pub fn owns(self, row: &TransactionRow) -> bool {
        match self {
            Self::Card(card_id) => row.card_id == Some(card_id),
            Self::Merchant(merchant_id) => row.merchant_id == Some(merchant_id),
        }
    }

    /// The owners of a row.
    pub fn of(row: &TransactionRow) -> impl Iterator<Item = Self> {
        [row.card_id.map(Self::Card), row.merchant_id.map(Self::Merchant)].into_iter().flatten()
    }
}

/// A row with its place in the card's change order (incremental sync).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangedRow {
    pub row: TransactionRow,
    /// The event that created it (0 for rows no event announced).
    pub created_seq: i64,
    /// The event that last changed it.
    pub change_seq: i64,
}

impl FromRow for TransactionRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            card_id: row.column(1)?,
            last_four: row.column(2)?,
            created_at: row.column(3)?,
            pending: row.column(4)?,
            settles_at: row.column(5)?,
            amount_minor: row.column(6)?,
            currency: row.column(7)?,
            merchant_name: row.column(8)?,
            descriptor: row.column(9)?,
            category: row.column(10)?,
            street: row.column(11)?,
            street_no: row.column(12)?,
            city: row.column(13)?,
            country: row.column(14)?,
            zip: row.column(15)?,
            directory_id: row.column(16)?,
            merchant_id: row.column(17)?,
            location_id: row.column(18)?,
            refund_of: row.column(19)?,
        })
    }
}

/// [`COLUMNS`], then `created_seq, change_seq`.
impl FromRow for ChangedRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            row: TransactionRow::from_row(row)?,
            created_seq: row.column(WIDTH)?,
            change_seq: row.column(WIDTH + 1)?,
        })
    }
}

sql! {
    /// A pending authorization reversed: the row goes (its events with it, `ON DELETE CASCADE`).
    pub(in crate::storage) static REVERSE = "DELETE FROM transactions WHERE id = $1 AND pending = 1 RETURNING {COLUMNS}";
}
sql! {
    /// Who sees transaction `$1`: the subscriber of its card and of its merchant (each NULL
    /// when nobody here has that side).
    pub(in crate::storage) static SIDES = "SELECT c.subscriber_id, m.subscriber_id FROM transactions t
         LEFT JOIN cards c ON c.id = t.card_id LEFT JOIN merchants m ON m.id = t.merchant_id
         WHERE t.id = $1";
}
sql! {
    /// A `transaction.removed` event names the sides its recipient owns, so that side's kept
    /// pages and rows are stale from it on, on every instance (the newest event of an owner).
    pub(in crate::storage) static MARK_REMOVAL = "UPDATE events SET card_id = $2, merchant_id = $3 WHERE id = $1";
}
sql! {
    pub(in crate::storage) static TOMBSTONE = "INSERT INTO removed_transactions (transaction_id, card_id, removed_seq)
         VALUES ($1, $2, $3)";
}

/// A reversed authorization: the row as it was, and each owner told with its event's id.
#[derive(Debug, Clone, PartialEq)]
pub struct Reversed {
    pub row: TransactionRow,
    pub events: Vec<(Owner, EventId)>,
}

/// One subscriber's `transaction.removed`: the sides of the row that subscriber owns.
pub(in crate::storage) struct RemovalNotice {
    pub subscriber_id: SubscriberId,
    pub card_id: Option<CardId>,
    pub merchant_id: Option<MerchantId>,
    pub event: StoredEvent,
}

impl RemovalNotice {
    /// The owners the notice names, each with the event's id.
    pub fn owners(&self, event_id: EventId) -> impl Iterator<Item = (Owner, EventId)> {
        [self.card_id.map(Owner::Card), self.merchant_id.map(Owner::Merchant)]
            .into_iter()
            .flatten()
            .map(move |owner| (owner, event_id))
    }
}

/// Who is told of `row`'s removal (the subscribers of its card and its merchant, `owners`):
/// one event per subscriber, naming only what that subscriber owns.
pub(in crate::storage) fn removal_notices(
    row: &TransactionRow,
    owners: (Option<SubscriberId>, Option<SubscriberId>),
) -> Vec<RemovalNotice> {
    let (card_owner, merchant_owner) = owners;
    let mut subscribers: Vec<SubscriberId> = [card_owner, merchant_owner].into_iter().flatten().collect();
    subscribers.sort_unstable();
    subscribers.dedup();
    subscribers
        .into_iter()
        .map(|subscriber_id| {
            let card_id = row.card_id.filter(|_| card_owner == Some(subscriber_id));
            let merchant_id = row.merchant_id.filter(|_| merchant_owner == Some(subscriber_id));
            let data = TransactionRemovedData { transaction_id: row.id, card_id, merchant_id };
            RemovalNotice {
                subscriber_id,
                card_id,
                merchant_id,
                event: StoredEvent::new(&EventData::TransactionRemoved(data)),
            }
        })
        .collect()
}
