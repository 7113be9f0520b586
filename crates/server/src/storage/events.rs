//! The sequence of transaction events the real-time streams send (`transaction_events`).
//! An event's id is its SSE id: ids only grow, in commit order, so "every event after id N
//! for this card" is a complete answer to a resuming stream.

use rusqlite::{Connection, Transaction, params};

use super::transactions::{self, Owner, TransactionRow};
use super::{StorageError, StorageResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A new point-of-sale transaction (pending).
    Created,
    /// The transaction stopped being pending.
    Settled,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Settled => "settled",
        }
    }

    fn parse(text: &str) -> StorageResult<Self> {
        match text {
            "created" => Ok(Self::Created),
            "settled" => Ok(Self::Settled),
            other => Err(StorageError::Corrupt(format!("unknown transaction event kind {other:?}"))),
        }
    }
}

/// An event with the transaction as it is now.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    pub id: i64,
    pub kind: EventKind,
    pub transaction: TransactionRow,
}

/// Records a `kind` event for each row someone can stream (a card's or a merchant's); rows of
/// nobody here (a synthetic card at a directory merchant) get none. Returns the events in
/// id order.
pub fn record(
    transaction: &Transaction<'_>,
    kind: EventKind,
    rows: &[TransactionRow],
    now: i64,
) -> StorageResult<Vec<EventRow>> {
    let mut statement = transaction.prepare_cached(
        "INSERT INTO transaction_events (transaction_id, kind, card_id, merchant_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut events = Vec::new();
    for row in rows.iter().filter(|row| row.card_id.is_some() || row.merchant_id.is_some()) {
        statement.execute(params![row.id, kind.as_str(), row.card_id, row.merchant_id, now])?;
        events.push(EventRow { id: transaction.last_insert_rowid(), kind, transaction: row.clone() });
    }
    Ok(events)
}

/// Up to `limit` events of the owner's transactions with an id above `after_id`, oldest first.
pub fn after(connection: &Connection, owner: Owner, after_id: i64, limit: u32) -> StorageResult<Vec<EventRow>> {
    let (column, owner_id) = match owner {
        Owner::Card(id) => ("card_id", id),
        Owner::Merchant(id) => ("merchant_id", id),
    };
    let transaction_columns =
        transactions::COLUMNS.split(',').map(|column| format!("t.{}", column.trim())).collect::<Vec<_>>().join(", ");
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {transaction_columns}, e.id, e.kind
         FROM transaction_events e JOIN transactions t ON t.id = e.transaction_id
         WHERE e.{column} = ?1 AND e.id > ?2
         ORDER BY e.id LIMIT ?3"
    ))?;
    let rows = statement.query_map(params![owner_id, after_id, limit], |row| {
        let transaction = transactions::from_row(row)?;
        let column_count = row.as_ref().column_count();
        Ok((row.get::<_, i64>(column_count - 2)?, row.get::<_, String>(column_count - 1)?, transaction))
    })?;
    let mut events = Vec::new();
    for row in rows {
        let (id, kind, transaction) = row?;
        events.push(EventRow { id, kind: EventKind::parse(&kind)?, transaction });
    }
    Ok(events)
}

/// The id of the newest event, 0 when there is none yet.
pub fn newest_id(connection: &Connection) -> StorageResult<i64> {
    Ok(connection.query_row("SELECT COALESCE(MAX(id), 0) FROM transaction_events", [], |row| row.get(0))?)
}

/// Forgets events older than `before`; a stream resuming from one of them gets what is left.
pub fn purge(transaction: &Transaction<'_>, before: i64) -> StorageResult<usize> {
    Ok(transaction.execute("DELETE FROM transaction_events WHERE created_at < ?1", [before])?)
}
