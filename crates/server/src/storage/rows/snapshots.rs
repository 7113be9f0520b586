//! The rows of a snapshot of a subscriber's sandbox, and what a snapshot holds: which rows of
//! each table are the subscriber's, in the order they go back (a row before the rows that name
//! it), and what a row does that is still there when it goes back (a purchase shared with
//! another subscriber, an event others see: theirs stays as it is).
//!
//! Both backends read and write the same parts with the same conditions; each keeps a part's
//! rows as JSON in the way its database does it best (SQLite: the rows read here, one JSON
//! text; PostgreSQL: `json_agg` and `json_populate_recordset`, without the rows leaving the
//! server).

use super::transactions::Owner;
use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::sql;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, LocationId, MerchantId, SnapshotId, SubscriberId};

/// One table's share of a snapshot.
pub struct Part {
    pub table: &'static str,
    /// Which rows are the subscriber's (`$1`), as a `WHERE` condition on the table.
    pub owned: &'static str,
    /// What a row of the snapshot does when a row with its key is there; empty: nothing can
    /// be (a restore deleted every row of the subscriber's first).
    pub on_conflict: &'static str,
}

/// What a snapshot holds, parents first. Not in it: the account, its credentials, settings and
/// usage (billing), its request history, and idempotency replays (a restore forgets those kept
/// since the snapshot, in its transaction: [`FORGET_REPLAYS`]).
pub static PARTS: [Part; 16] = [
    Part { table: "merchants", owned: "subscriber_id = $1", on_conflict: "" },
    Part {
        table: "locations",
        owned: "merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1)",
        on_conflict: "",
    },
    Part { table: "cards", owned: "subscriber_id = $1", on_conflict: "" },
    // A purchase of the subscriber's card at another subscriber's merchant is still there (the
    // reset before a restore takes only the card off it): the card goes back on it. One of
    // another subscriber's cards at this merchant was never deleted: it stays as it is.
    Part {
        table: "transactions",
        owned: "card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
                OR merchant_id IN (SELECT id FROM merchants WHERE subscriber_id = $1)",
        on_conflict: "ON CONFLICT (id) DO UPDATE SET card_id = excluded.card_id WHERE transactions.card_id IS NULL",
    },
    Part {
        table: "removed_transactions",
        owned: "card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)",
        on_conflict: "ON CONFLICT (transaction_id) DO NOTHING",
    },
    Part { table: "card_sessions", owned: "subscriber_id = $1", on_conflict: "" },
    Part { table: "bank_accounts", owned: "subscriber_id = $1", on_conflict: "" },
    Part { table: "persons", owned: "subscriber_id = $1", on_conflict: "" },
    Part {
        table: "person_question_sets",
        owned: "person_id IN (SELECT id FROM persons WHERE subscriber_id = $1)",
        on_conflict: "",
    },
    Part { table: "person_sessions", owned: "subscriber_id = $1", on_conflict: "" },
    // An event another subscriber sees too was never deleted.
    Part {
        table: "events",
        owned: "id IN (SELECT event_id FROM event_recipients WHERE subscriber_id = $1)",
        on_conflict: "ON CONFLICT (id) DO NOTHING",
    },
    Part { table: "event_recipients", owned: "subscriber_id = $1", on_conflict: "ON CONFLICT DO NOTHING" },
    Part { table: "webhooks", owned: "subscriber_id = $1", on_conflict: "" },
    Part { table: "webhook_deliveries", owned: "subscriber_id = $1", on_conflict: "" },
    Part {
        table: "webhook_attempts",
        owned: "webhook_id IN (SELECT id FROM webhooks WHERE subscriber_id = $1)",
        on_conflict: "",
    },
    // Last: putting back the endpoints and their deliveries made queues of their own (the
    // triggers that keep them); the snapshot's replace them (`CLEAR_QUEUES`), counts of
    // dropped events and gaps included.
    Part { table: "webhook_queues", owned: "subscriber_id = $1", on_conflict: "" },
];

sql! {
    /// The queues the endpoints put back made (`$1` the subscriber), before the snapshot's go in.
    pub(in crate::storage) static CLEAR_QUEUES = "DELETE FROM webhook_queues WHERE subscriber_id = $1";
}

sql! {
    /// Before a restore (`$1` the subscriber, `$2` the snapshot, after whose newest event): the transactions
    /// of the subscriber's cards created or changed after it, `(id, card_id)`. Those the snapshot
    /// holds go back changed as sync sees them; the others are removed as sync sees them.
    pub(in crate::storage) static CHANGED_SINCE = "SELECT id, card_id FROM transactions
         WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
           AND change_seq > (SELECT event_seq FROM sandbox_snapshots WHERE id = $2)";
}

sql! {
    /// Before a restore: the transactions of the subscriber's cards removed after snapshot `$2`
    /// was taken: those it holds come back, changed as sync sees them.
    pub(in crate::storage) static REMOVED_SINCE = "SELECT transaction_id, card_id FROM removed_transactions
         WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)
           AND removed_seq > (SELECT event_seq FROM sandbox_snapshots WHERE id = $2)";
}

sql! {
    /// The Idempotency-Key answers kept in scope `$1` since snapshot `$2` was taken: what they
    /// created is gone, so a retry creates it again instead of naming nothing. Run by the
    /// restore, in its transaction.
    pub(in crate::storage) static FORGET_REPLAYS = "DELETE FROM idempotency_keys
         WHERE scope = $1 AND created_at >= (SELECT created_at FROM sandbox_snapshots WHERE id = $2)";
}

sql! {
    /// The subscriber's removed transactions, deleted before the snapshot's go back.
    pub(in crate::storage) static CLEAR_REMOVED = "DELETE FROM removed_transactions
         WHERE card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)";
}

sql! {
    /// After a restore: transaction `$2` of the subscriber (`$1`), if it came back, is changed
    /// at sync position `$3`.
    pub(in crate::storage) static CHANGED_AGAIN = "UPDATE transactions SET change_seq = $3
         WHERE id = $2 AND card_id IN (SELECT id FROM cards WHERE subscriber_id = $1)";
}

sql! {
    /// After a restore: transaction `$2` of card `$3`, if it did not come back while its card
    /// did, is removed at sync position `$4` (`$1` the subscriber).
    pub(in crate::storage) static REMOVED_AGAIN = "INSERT INTO removed_transactions (transaction_id, card_id, removed_seq)
         SELECT $2, $3, $4 WHERE EXISTS (SELECT 1 FROM cards WHERE id = $3 AND subscriber_id = $1)
           AND NOT EXISTS (SELECT 1 FROM transactions WHERE id = $2)
         ON CONFLICT (transaction_id) DO NOTHING";
}

sql! {
    /// The subscriber's cards, merchant and locations (`$1`), `(kind, id)`: before and after a
    /// restore, whose kept rows and pages go and which locations discovery looks at again.
    pub(in crate::storage) static OWNED_IDS = "SELECT 'card', id FROM cards WHERE subscriber_id = $1
         UNION ALL SELECT 'merchant', id FROM merchants WHERE subscriber_id = $1
         UNION ALL SELECT 'location', l.id FROM locations l JOIN merchants m ON m.id = l.merchant_id
             WHERE m.subscriber_id = $1";
}

/// The columns of a [`SnapshotRow`], in order.
pub const COLUMNS: &str = "id, subscriber_id, name, created_at, event_seq, cards, transactions, bytes";

sql! {
    /// The subscriber's snapshots (`$1`), newest first.
    pub(in crate::storage) static LIST = "SELECT {COLUMNS} FROM sandbox_snapshots WHERE subscriber_id = $1 ORDER BY id DESC";
}
sql! {
    /// Snapshot `$2` of the subscriber `$1`.
    pub(in crate::storage) static ONE = "SELECT {COLUMNS} FROM sandbox_snapshots WHERE subscriber_id = $1 AND id = $2";
}
sql! {
    pub(in crate::storage) static COUNT = "SELECT COUNT(*) FROM sandbox_snapshots WHERE subscriber_id = $1";
}
sql! {
    /// A snapshot's counts, from its parts (`$1` the snapshot).
    pub(in crate::storage) static COUNTED = "UPDATE sandbox_snapshots SET cards = $2, transactions = $3,
         bytes = (SELECT CAST(COALESCE(SUM(LENGTH(rows)), 0) AS BIGINT) FROM sandbox_snapshot_parts WHERE snapshot_id = $1)
         WHERE id = $1 RETURNING {COLUMNS}";
}
sql! {
    /// Snapshot `$2` of the subscriber `$1`, its parts with it (a foreign key's cascade).
    pub(in crate::storage) static DELETE = "DELETE FROM sandbox_snapshots WHERE subscriber_id = $1 AND id = $2";
}

/// A snapshot as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRow {
    pub id: SnapshotId,
    pub subscriber_id: SubscriberId,
    pub name: String,
    /// Unix seconds.
    pub created_at: UnixSeconds,
    /// The newest event id when it was taken.
    pub event_seq: i64,
    pub cards: i64,
    pub transactions: i64,
    pub bytes: i64,
}

impl Restored {
    /// The cards and merchants whose kept rows and pages go.
    pub fn owners(&self) -> Vec<Owner> {
        let cards = self.card_ids.iter().map(|&id| Owner::Card(id));
        cards.chain(self.merchant_ids.iter().map(|&id| Owner::Merchant(id))).collect()
    }

    /// Gathers `(kind, id)` rows of [`OWNED_IDS`] read before and after.
    pub fn new(snapshot: SnapshotRow, owned: impl IntoIterator<Item = (String, i64)>) -> Self {
        let mut restored = Self { snapshot, card_ids: Vec::new(), merchant_ids: Vec::new(), location_ids: Vec::new() };
        fn add<T: PartialEq>(ids: &mut Vec<T>, id: T) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        for (kind, id) in owned {
            match kind.as_str() {
                "card" => add(&mut restored.card_ids, CardId(id)),
                "merchant" => add(&mut restored.merchant_ids, MerchantId(id)),
                _ => add(&mut restored.location_ids, LocationId(id)),
            }
        }
        restored
    }
}

impl FromRow for SnapshotRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            name: row.column(2)?,
            created_at: row.column(3)?,
            event_seq: row.column(4)?,
            cards: row.column(5)?,
            transactions: row.column(6)?,
            bytes: row.column(7)?,
        })
    }
}

/// What a restore changed that lives outside the database too: whose kept rows and pages go,
/// which locations discovery finds as they are now.
#[derive(Debug, Clone)]
pub struct Restored {
    /// The snapshot put back.
    pub snapshot: SnapshotRow,
    /// The subscriber's cards before and after.
    pub card_ids: Vec<CardId>,
    /// Its merchant before and after.
    pub merchant_ids: Vec<MerchantId>,
    /// Its locations before and after.
    pub location_ids: Vec<LocationId>,
}
