use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::events::record_transaction_events;
use crate::storage::StorageResult;
use crate::storage::events::{EventKind, EventRow};
use crate::storage::idempotency::Replay;
use crate::storage::transactions::{COLUMNS, ChangedRow, Filter, NewTransaction, Owner, TransactionRow};

pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<TransactionRow> {
    from_row_at(row, 0)
}

/// The row's columns from position `start` on (after other columns of a join).
pub(super) fn from_row_at(row: &Row<'_>, start: usize) -> rusqlite::Result<TransactionRow> {
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

const INSERT: &str = "INSERT INTO transactions (card_id, last_four, created_at, pending, settles_at, amount_minor, \
     currency, merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id, merchant_id, \
     location_id)";
const INSERTED_COLUMNS: usize = 18;

fn values(row: &NewTransaction) -> Vec<Value> {
    vec![
        row.card_id.into(),
        i64::from(row.last_four).into(),
        row.created_at.into(),
        i64::from(row.pending).into(),
        row.settles_at.into(),
        row.amount_minor.into(),
        row.currency.clone().into(),
        row.merchant_name.clone().into(),
        row.descriptor.clone().into(),
        row.category.clone().into(),
        row.street.clone().into(),
        row.street_no.clone().into(),
        row.city.clone().into(),
        row.country.clone().into(),
        row.zip.clone().into(),
        row.directory_id.into(),
        row.merchant_id.into(),
        row.location_id.into(),
    ]
}

/// Inserts the rows in order and returns their ids.
pub fn insert_many(connection: &Connection, rows: &[NewTransaction]) -> StorageResult<Vec<i64>> {
    let values: Vec<Vec<Value>> = rows.iter().map(values).collect();
    super::insert_rows(connection, INSERT, INSERTED_COLUMNS, &values)
}

pub fn get(connection: &Connection, id: i64) -> StorageResult<Option<TransactionRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM transactions WHERE id = ?1"))?;
    Ok(statement.query_row([id], from_row).optional()?)
}

pub fn page(connection: &Connection, owner: Owner, filter: &Filter, limit: u32) -> StorageResult<Vec<TransactionRow>> {
    let (column, id) = owner.column();
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
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn next_settlement(connection: &Connection) -> StorageResult<Option<i64>> {
    Ok(connection
        .prepare_cached("SELECT MIN(settles_at) FROM transactions WHERE pending = 1")?
        .query_row([], |row| row.get(0))?)
}

pub fn settle_due(connection: &Connection, now: i64) -> StorageResult<Vec<EventRow>> {
    let mut statement = connection.prepare_cached(&format!(
        "UPDATE transactions SET pending = 0 WHERE pending = 1 AND settles_at <= ?1 RETURNING {COLUMNS}"
    ))?;
    let settled = statement.query_map([now], from_row)?.collect::<Result<Vec<_>, _>>()?;
    record_transaction_events(connection, EventKind::Settled, &settled, now)
}

pub fn settle_now(
    connection: &Connection,
    id: i64,
    now: i64,
) -> StorageResult<Option<(TransactionRow, Option<EventRow>)>> {
    let mut statement = connection.prepare_cached(&format!(
        "UPDATE transactions
         SET pending = 0, settles_at = CASE WHEN settles_at IS NULL OR settles_at > ?2 THEN ?2 ELSE settles_at END
         WHERE id = ?1 AND pending = 1
         RETURNING {COLUMNS}"
    ))?;
    let Some(settled) = statement.query_row(params![id, now], from_row).optional()? else { return Ok(None) };
    let event = record_transaction_events(connection, EventKind::Settled, std::slice::from_ref(&settled), now)?;
    Ok(Some((settled, event.into_iter().next())))
}

pub fn record_sale(
    connection: &Connection,
    mut sale: NewTransaction,
    now: i64,
    replay: Option<Replay>,
) -> StorageResult<(TransactionRow, Option<EventRow>)> {
    let ids = insert_many(connection, std::slice::from_ref(&sale))?;
    sale.id = ids.first().copied().ok_or_else(|| super::corrupt("no id for a new transaction"))?;
    let event = record_transaction_events(connection, EventKind::Created, std::slice::from_ref(&sale), now)?;
    super::idempotency::store_replay(connection, replay, sale.id, now)?;
    Ok((sale, event.into_iter().next()))
}

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
    Ok(rows.collect::<Result<_, _>>()?)
}
