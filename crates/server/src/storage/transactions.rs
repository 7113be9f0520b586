//! Every payment, whichever side looks at it: the card's owner or the merchant.

use super::rows::events::EventRow;
use super::rows::idempotency::Replay;
use super::rows::transactions::COLUMNS;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, TransactionId};

pub use super::rows::transactions::{ChangedRow, Filter, NewTransaction, Owner, Reversed, TransactionRow};

impl Store {
    pub async fn transaction(&self, id: TransactionId) -> StorageResult<Option<TransactionRow>> {
        self.fetch_one(Read::ByKey, sql!("SELECT {COLUMNS} FROM transactions WHERE id = $1"), args![id]).await
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
    pub async fn next_settlement(&self) -> StorageResult<Option<UnixSeconds>> {
        let sql = sql!("SELECT MIN(settles_at) FROM transactions WHERE pending = 1");
        Ok(self.fetch_one::<Option<UnixSeconds>, 0>(Read::Scan, sql, args![]).await?.flatten())
    }

    /// Settles the pending rows due by `now`, each with its `transaction.updated` event (rows of
    /// nobody here get none); the events, in id order.
    pub async fn settle_due(&self, now: UnixSeconds) -> StorageResult<Vec<EventRow>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::transactions::settle_due(connection, now)).await,
            db => postgres::transactions::settle_due(db, now).await,
        )
    }

    /// Settles one pending transaction now (the sandbox's control), at `amount_minor` when
    /// given (a tip); `None` when it is not pending; else its event (`None` inside when nobody
    /// here sees the row).
    pub async fn settle_now(
        &self,
        id: TransactionId,
        now: UnixSeconds,
        amount_minor: Option<i64>,
    ) -> StorageResult<Option<(TransactionRow, Option<EventRow>)>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::transactions::settle_now(connection, id, now, amount_minor)).await,
            db => postgres::transactions::settle_now(db, id, now, amount_minor).await,
        )
    }

    /// Reverses the pending authorization `id` (the sandbox's control): the row leaves the
    /// lists, each subscriber who saw it gets `transaction.removed`, and its card's sync reports
    /// it in `removed`. `None` when it is not pending (settled meanwhile, or gone).
    pub async fn reverse(&self, id: TransactionId, now: UnixSeconds) -> StorageResult<Option<Reversed>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::transactions::reverse(connection, id, now)).await,
            db => postgres::transactions::reverse(db, id, now).await,
        )
    }

    /// A transaction id never given before nor after, for an attempt that is stored in no
    /// list (a declined purchase).
    pub async fn next_transaction_id(&self) -> StorageResult<TransactionId> {
        dispatch!(self,
            db => db.write(sqlite::transactions::next_id).await,
            db => {
                let sql = sql!("SELECT nextval(pg_get_serial_sequence('transactions', 'id'))");
                postgres::rows::first::<TransactionId>(&*db.client().await?, sql, &[]).await?
                    .ok_or_else(|| super::StorageError::Corrupt("no next transaction id".into()))
            },
        )
    }

    /// The card's transactions removed after the position `after` in its change order, up to
    /// `upto` when given: `(transaction id, position)`, in order.
    pub async fn removed_after(
        &self,
        card_id: CardId,
        after: i64,
        upto: Option<i64>,
    ) -> StorageResult<Vec<(TransactionId, i64)>> {
        let sql = sql!(
            "SELECT transaction_id, removed_seq FROM removed_transactions
             WHERE card_id = $1 AND removed_seq > $2 AND (CAST($3 AS BIGINT) IS NULL OR removed_seq <= $3)
             ORDER BY removed_seq"
        );
        self.fetch_all(sql, args![card_id, after, upto]).await
    }

    /// How much of the purchase `id` its refunds made as such have given back (minor units).
    pub async fn refunded(&self, id: TransactionId) -> StorageResult<i64> {
        let sql = sql!("SELECT CAST(COALESCE(SUM(-amount_minor), 0) AS BIGINT) FROM transactions WHERE refund_of = $1");
        Ok(self.fetch_one::<i64, 1>(Read::ByKey, sql, args![id]).await?.unwrap_or_default())
    }

    /// Records a point-of-sale purchase with its `transaction.created` event (seen by the card's
    /// owner and the merchant's), and the request's replay. Returns the row with its id, and
    /// its event (`None` when nobody here sees the row).
    pub async fn record_sale(
        &self,
        sale: NewTransaction,
        now: UnixSeconds,
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
                postgres::transactions::Arrays::of(rows).insert(&client, None).await.map(|_| ())
            },
        )
    }

    /// Up to `limit` of the card's rows created from `from` on that changed after the position
    /// `(change_seq, id)`, in change order.
    pub async fn changed_after(
        &self,
        card_id: CardId,
        after: (i64, i64),
        from: UnixSeconds,
        limit: u32,
    ) -> StorageResult<Vec<ChangedRow>> {
        let sql = sql!(
            "SELECT {COLUMNS}, created_seq, change_seq FROM transactions
             WHERE card_id = $1 AND (change_seq, id) > ($2, $3) AND created_at >= $4
             ORDER BY change_seq, id LIMIT $5"
        );
        self.fetch_all(sql, args![card_id, after.0, after.1, from, limit]).await
    }
}
