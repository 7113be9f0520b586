use rusqlite::types::Value;
use rusqlite::{Connection, params, params_from_iter};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, DirectoryEntryId, LocationId, MerchantId, SubscriberId, TransactionId};

use super::events::record_transaction_events;
use super::rows::{all, first};
use crate::storage::StorageResult;
use crate::storage::rows::events::{EventKind, EventRow};
use crate::storage::rows::idempotency::Replay;
use crate::storage::rows::transactions::{
    COLUMNS, Filter, MARK_REMOVAL, NewTransaction, Owner, REVERSE, Reversed, SIDES, TOMBSTONE, TransactionRow,
    removal_notices,
};
use crate::storage::sql::sql;

const INSERT: &str = "INSERT INTO transactions (card_id, last_four, created_at, pending, settles_at, amount_minor, \
     currency, merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id, merchant_id, \
     location_id, refund_of)";
const INSERTED_COLUMNS: usize = 19;

fn values(row: &NewTransaction) -> Vec<Value> {
    vec![
        row.card_id.map(CardId::get).into(),
        i64::from(row.last_four).into(),
        row.created_at.get().into(),
        i64::from(row.pending).into(),
        row.settles_at.map(UnixSeconds::get).into(),
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
        row.directory_id.map(DirectoryEntryId::get).into(),
        row.merchant_id.map(MerchantId::get).into(),
        row.location_id.map(LocationId::get).into(),
        row.refund_of.map(TransactionId::get).into(),
    ]
}

/// Inserts the rows in order and returns their ids.
pub fn insert_many(connection: &Connection, rows: &[NewTransaction]) -> StorageResult<Vec<TransactionId>> {
    let values: Vec<Vec<Value>> = rows.iter().map(values).collect();
    Ok(super::insert_rows(connection, INSERT, INSERTED_COLUMNS, &values)?.into_iter().map(TransactionId).collect())
}

pub fn page(connection: &Connection, owner: Owner, filter: &Filter, limit: u32) -> StorageResult<Vec<TransactionRow>> {
    let (column, id) = owner.column();
    let mut sql = format!("SELECT {COLUMNS} FROM transactions WHERE {column} = ?");
    let mut values: Vec<Value> = vec![Value::Integer(id)];
    if let Some(from) = filter.from {
        sql.push_str(" AND created_at >= ?");
        values.push(Value::Integer(from.get()));
    }
    if let Some(to) = filter.to {
        sql.push_str(" AND created_at <= ?");
        values.push(Value::Integer(to.get()));
    }
    if let Some(pending) = filter.pending {
        sql.push_str(" AND pending = ?");
        values.push(Value::Integer(i64::from(pending)));
    }
    if let Some(location_id) = filter.location_id {
        sql.push_str(" AND location_id = ?");
        values.push(Value::Integer(location_id.get()));
    }
    if let Some((created_at, id)) = filter.after {
        sql.push_str(" AND (created_at, id) < (?, ?)");
        values.push(Value::Integer(created_at.get()));
        values.push(Value::Integer(id));
    }
    sql.push_str(" ORDER BY created_at DESC, id DESC LIMIT ?");
    values.push(Value::Integer(i64::from(limit)));
    all(connection, sql.as_str(), params_from_iter(values))
}

pub fn settle_due(connection: &Connection, now: UnixSeconds) -> StorageResult<Vec<EventRow>> {
    let sql = sql!("UPDATE transactions SET pending = 0 WHERE pending = 1 AND settles_at <= $1 RETURNING {COLUMNS}");
    let settled = all(connection, sql, [now])?;
    record_transaction_events(connection, EventKind::Settled, &settled, now)
}

pub fn settle_now(
    connection: &Connection,
    id: TransactionId,
    now: UnixSeconds,
    amount_minor: Option<i64>,
) -> StorageResult<Option<(TransactionRow, Option<EventRow>)>> {
    let sql = sql!(
        "UPDATE transactions
         SET pending = 0, settles_at = CASE WHEN settles_at IS NULL OR settles_at > $2 THEN $2 ELSE settles_at END,
             amount_minor = COALESCE($3, amount_minor)
         WHERE id = $1 AND pending = 1
         RETURNING {COLUMNS}"
    );
    let Some(settled) = first::<TransactionRow>(connection, sql, params![id, now, amount_minor])? else {
        return Ok(None);
    };
    let event = record_transaction_events(connection, EventKind::Settled, std::slice::from_ref(&settled), now)?;
    Ok(Some((settled, event.into_iter().next())))
}

pub fn record_sale(
    connection: &Connection,
    mut sale: NewTransaction,
    now: UnixSeconds,
    replay: Option<Replay>,
) -> StorageResult<(TransactionRow, Option<EventRow>)> {
    let ids = insert_many(connection, std::slice::from_ref(&sale))?;
    sale.id = ids.first().copied().ok_or_else(|| super::corrupt("no id for a new transaction"))?;
    let event = record_transaction_events(connection, EventKind::Created, std::slice::from_ref(&sale), now)?;
    super::idempotency::store_replay(connection, replay, sale.id, now)?;
    Ok((sale, event.into_iter().next()))
}

/// Reverses the pending authorization `id` in the writer's transaction: the row goes, each
/// subscriber who saw it gets `transaction.removed`, and the card keeps the id for sync.
pub fn reverse(connection: &Connection, id: TransactionId, now: UnixSeconds) -> StorageResult<Option<Reversed>> {
    let owners: Option<(Option<SubscriberId>, Option<SubscriberId>)> = first(connection, &SIDES, [id])?;
    let Some(row) = first::<TransactionRow>(connection, &REVERSE, [id])? else { return Ok(None) };
    let mut events = Vec::new();
    for notice in removal_notices(&row, owners.unwrap_or_default()) {
        let event_id = super::events::record_other(
            connection,
            notice.subscriber_id,
            notice.event.event_type,
            &notice.event.data,
            now,
        )?;
        connection.prepare_cached(MARK_REMOVAL.sqlite())?.execute(params![
            event_id,
            notice.card_id,
            notice.merchant_id
        ])?;
        if let Some(card_id) = notice.card_id {
            connection.prepare_cached(TOMBSTONE.sqlite())?.execute(params![row.id, card_id, event_id])?;
        }
        events.extend(notice.owners(event_id));
    }
    Ok(Some(Reversed { row, events }))
}

/// A transaction id never given before nor after: a row inserted and deleted at once takes one
/// from the table's `AUTOINCREMENT` sequence, which never goes back.
pub fn next_id(connection: &Connection) -> StorageResult<TransactionId> {
    connection.prepare_cached("INSERT INTO transactions (last_four, created_at, pending, amount_minor, currency, merchant_name, descriptor, category, street, street_no, city, country, zip) VALUES (0, 0, 0, 0, '', '', '', '', '', '', '', '', '')")?.execute([])?;
    let id = connection.last_insert_rowid();
    connection.prepare_cached("DELETE FROM transactions WHERE id = ?1")?.execute([id])?;
    Ok(TransactionId(id))
}
