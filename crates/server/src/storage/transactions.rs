//! Every payment, whichever side looks at it: the card's owner or the merchant.

use super::sql::{Connection, OptionalExtension, Params, Row, Transaction, Value, params, params_from_iter};

use super::StorageResult;

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

pub(super) const COLUMNS: &str = "id, card_id, last_four, created_at, pending, settles_at, amount_minor, currency, \
     merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id, merchant_id, location_id";

pub(super) fn from_row(row: &Row<'_>) -> super::StorageResult<TransactionRow> {
    from_row_at(row, 0)
}

/// The row's columns from position `start` on (after other columns of a join).
pub(super) fn from_row_at(row: &Row<'_>, start: usize) -> super::StorageResult<TransactionRow> {
    Ok(TransactionRow {
        id: row.get(start)?,
        card_id: row.get(start + 1)?,
        last_four: row.get(start + 2)?,
        created_at: row.get(start + 3)?,
        pending: row.get(start + 4)?,
        settles_at: row.get(start + 5)?,
        amount_minor: row.get(start + 6)?,
        currency: row.get(start + 7)?,
        merchant_name: row.get(start + 8)?,
        descriptor: row.get(start + 9)?,
        category: row.get(start + 10)?,
        street: row.get(start + 11)?,
        street_no: row.get(start + 12)?,
        city: row.get(start + 13)?,
        country: row.get(start + 14)?,
        zip: row.get(start + 15)?,
        directory_id: row.get(start + 16)?,
        merchant_id: row.get(start + 17)?,
        location_id: row.get(start + 18)?,
    })
}

/// Inserts the rows in order and returns their ids.
pub fn insert_many(transaction: &Transaction<'_>, rows: &[NewTransaction]) -> StorageResult<Vec<i64>> {
    let values: Vec<Vec<Value>> = rows
        .iter()
        .map(|row| {
            params![
                row.card_id,
                row.last_four,
                row.created_at,
                row.pending,
                row.settles_at,
                row.amount_minor,
                row.currency,
                row.merchant_name,
                row.descriptor,
                row.category,
                row.street,
                row.street_no,
                row.city,
                row.country,
                row.zip,
                row.directory_id,
                row.merchant_id,
                row.location_id
            ]
            .values()
        })
        .collect();
    transaction.insert_rows(
        "INSERT INTO transactions (card_id, last_four, created_at, pending, settles_at, amount_minor, currency,
             merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id,
             merchant_id, location_id)",
        &values,
    )
}

pub fn get(connection: &Connection, id: i64) -> StorageResult<Option<TransactionRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM transactions WHERE id = ?1"))?;
    statement.query_row([id], from_row).optional()
}

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

/// Up to `limit` rows, newest first, after the filter's position.
pub fn page(connection: &Connection, owner: Owner, filter: &Filter, limit: u32) -> StorageResult<Vec<TransactionRow>> {
    let (column, id) = match owner {
        Owner::Card(id) => ("card_id", id),
        Owner::Merchant(id) => ("merchant_id", id),
    };
    let mut sql = format!("SELECT {COLUMNS} FROM transactions WHERE {column} = ?");
    let mut values: Vec<Value> = vec![Value::Integer(id)];
    if let Some(from) = filter.from {
        sql.push_str(" AND created_at >= ?");
        values.push(Value::Integer(from));
    }
    if let Some(to) = filter.to {
        sql.push_str(" AND created_at <= ?");
        values.push(Value::Integer(to));
    }
    if let Some(pending) = filter.pending {
        sql.push_str(" AND pending = ?");
        values.push(Value::Integer(i64::from(pending)));
    }
    if let Some(location_id) = filter.location_id {
        sql.push_str(" AND location_id = ?");
        values.push(Value::Integer(location_id));
    }
    if let Some((created_at, id)) = filter.after {
        sql.push_str(" AND (created_at, id) < (?, ?)");
        values.push(Value::Integer(created_at));
        values.push(Value::Integer(id));
    }
    sql.push_str(" ORDER BY created_at DESC, id DESC LIMIT ?");
    values.push(Value::Integer(i64::from(limit)));
    let mut statement = connection.prepare_cached(&sql)?;
    let rows = statement.query_map(params_from_iter(values), from_row)?;
    rows.collect::<Result<_, _>>()
}

/// Pending rows due to settle by `now`; marks them settled and returns them.
pub fn settle_due(transaction: &Transaction<'_>, now: i64) -> StorageResult<Vec<TransactionRow>> {
    let mut statement = transaction.prepare_cached(&format!(
        "UPDATE transactions SET pending = 0 WHERE pending = 1 AND settles_at <= ?1 RETURNING {COLUMNS}"
    ))?;
    let rows = statement.query_map([now], from_row)?;
    rows.collect::<Result<_, _>>()
}

/// Settles one pending transaction now (the sandbox's control); `None` when it is not pending.
pub fn settle_now(transaction: &Transaction<'_>, id: i64, now: i64) -> StorageResult<Option<TransactionRow>> {
    let mut statement = transaction.prepare_cached(&format!(
        "UPDATE transactions
         SET pending = 0, settles_at = CASE WHEN settles_at IS NULL OR settles_at > ?2 THEN ?2 ELSE settles_at END
         WHERE id = ?1 AND pending = 1
         RETURNING {COLUMNS}"
    ))?;
    statement.query_row(params![id, now], from_row).optional()
}

/// When the next pending transaction is due to settle, if any is.
pub fn next_settlement(connection: &Connection) -> StorageResult<Option<i64>> {
    connection.query_row("SELECT MIN(settles_at) FROM transactions WHERE pending = 1", params![], |row| row.get(0))
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

/// Up to `limit` of the card's rows created from `from` on that changed after the position
/// `(change_seq, id)`, in change order.
pub fn changed_after(
    connection: &Connection,
    card_id: i64,
    after: (i64, i64),
    from: i64,
    limit: u32,
) -> StorageResult<Vec<ChangedRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS}, created_seq, change_seq FROM transactions
         WHERE card_id = ?1 AND (change_seq, id) > (?2, ?3) AND created_at >= ?4
         ORDER BY change_seq, id LIMIT ?5"
    ))?;
    let rows = statement.query_map(params![card_id, after.0, after.1, from, limit], |row| {
        Ok(ChangedRow { row: from_row(row)?, created_seq: row.get(19)?, change_seq: row.get(20)? })
    })?;
    rows.collect::<Result<_, _>>()
}
