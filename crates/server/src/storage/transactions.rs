//! Every payment, whichever side looks at it: the card's owner or the merchant.

use super::events::EventRow;
use super::idempotency::Replay;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

#[derive(Debug, Clone, PartialEq)]
pub struct TransactionRow {
    pub id: i64,
    pub card_id: Option<i64>,
    pub last_four: u16,
    pub created_at: i64,
    pub pending: bool,
    pub settles_at: Option<i64>,
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
    pub directory_id: Option<i64>,
    pub merchant_id: Option<i64>,
    pub location_id: Option<i64>,
}

/// A row to insert; `id` is ignored.
pub type NewTransaction = TransactionRow;

/// The columns of a row, in `TransactionRow`'s order.
pub(super) const COLUMNS: &str = "id, card_id, last_four, created_at, pending, settles_at, amount_minor, currency, \
     merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id, merchant_id, location_id";

/// [`COLUMNS`] of the table aliased `t`.
pub(super) const T_COLUMNS: &str = "t.id, t.card_id, t.last_four, t.created_at, t.pending, t.settles_at, \
     t.amount_minor, t.currency, t.merchant_name, t.descriptor, t.category, t.street, t.street_no, t.city, t.country, \
     t.zip, t.directory_id, t.merchant_id, t.location_id";

/// Which transactions a page shows. Times are Unix seconds, both bounds inclusive.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub pending: Option<bool>,
    pub location_id: Option<i64>,
    /// Position after which the page starts: the last (created_at, id) of the previous page.
    pub after: Option<(i64, i64)>,
}

/// Whose transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    Card(i64),
    Merchant(i64),
}

impl Owner {
    /// The column of `transactions` and `events` that holds the owner's id, and the id.
    pub(super) fn column(self) -> (&'static str, i64) {
        match self {
            Self::Card(id) => ("card_id", id),
            Self::Merchant(id) => ("merchant_id", id),
        }
    }

    /// A total order (cards first), for sorting owners.
    pub fn sort_key(self) -> (u8, i64) {
        match self {
            Self::Card(id) => (0, id),
            Self::Merchant(id) => (1, id),
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

impl Store {
    pub async fn transaction(&self, id: i64) -> StorageResult<Option<TransactionRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::transactions::get(connection, id)).await,
            db => postgres::transactions::get(db, id).await,
        )
    }

    /// Up to `limit` of the owner's rows, newest first, after the filter's position.
    pub async fn transactions_page(
        &self,
        owner: Owner,
        filter: Filter,
        limit: u32,
    ) -> StorageResult<Vec<TransactionRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::transactions::page(connection, owner, &filter, limit)).await,
            db => postgres::transactions::page(db, owner, &filter, limit).await,
        )
    }

    /// When the next pending transaction is due to settle, if any is.
    pub async fn next_settlement(&self) -> StorageResult<Option<i64>> {
        dispatch!(self,
            db => db.read(sqlite::transactions::next_settlement).await,
            db => postgres::transactions::next_settlement(db).await,
        )
    }

    /// Settles the pending rows due by `now`, each with its `transaction.updated` event (rows of
    /// nobody here get none); the events, in id order.
    pub async fn settle_due(&self, now: i64) -> StorageResult<Vec<EventRow>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::transactions::settle_due(connection, now)).await,
            db => postgres::transactions::settle_due(db, now).await,
        )
    }

    /// Settles one pending transaction now (the sandbox's control); `None` when it is not
    /// pending; else its event (`None` inside when nobody here sees the row).
    pub async fn settle_now(&self, id: i64, now: i64) -> StorageResult<Option<(TransactionRow, Option<EventRow>)>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::transactions::settle_now(connection, id, now)).await,
            db => postgres::transactions::settle_now(db, id, now).await,
        )
    }

    /// Records a point-of-sale purchase with its `transaction.created` event (seen by the card's
    /// owner and the merchant's), and the request's replay. Returns the row with its id, and
    /// its event (`None` when nobody here sees the row).
    pub async fn record_sale(
        &self,
        sale: NewTransaction,
        now: i64,
        replay: Option<Replay>,
    ) -> StorageResult<(TransactionRow, Option<EventRow>)> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::transactions::record_sale(connection, sale, now, replay)).await,
            db => postgres::transactions::record_sale(db, sale, now, replay).await,
        )
    }

    /// Adds rows that happened before anyone watched (a card's past): no events, no positions.
    pub async fn insert_history(&self, rows: Vec<NewTransaction>) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::transactions::insert_many(connection, &rows).map(|_| ())).await,
            db => {
                let client = db.client().await?;
                postgres::transactions::Columns::of(rows).insert(&client, None).await.map(|_| ())
            },
        )
    }

    /// Up to `limit` of the card's rows created from `from` on that changed after the position
    /// `(change_seq, id)`, in change order.
    pub async fn changed_after(
        &self,
        card_id: i64,
        after: (i64, i64),
        from: i64,
        limit: u32,
    ) -> StorageResult<Vec<ChangedRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::transactions::changed_after(connection, card_id, after, from, limit)).await,
            db => postgres::transactions::changed_after(db, card_id, after, from, limit).await,
        )
    }
}
