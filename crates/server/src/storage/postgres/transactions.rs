use futures::FutureExt;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, DirectoryEntryId, EventId, LocationId, MerchantId, SubscriberId, TransactionId};
use tokio_postgres::Row;

use super::events::transaction_recipients_and_deliveries;
use super::rows::all;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, query, query_one, query_opt};
use crate::storage::StorageResult;
use crate::storage::notices::Change;
use crate::storage::rows::events::{EventKind, EventRow, TRANSACTION_CREATED, TRANSACTION_UPDATED};
use crate::storage::rows::idempotency::Replay;
use crate::storage::rows::transactions::{
    COLUMNS, Filter, MARK_REMOVAL, NewTransaction, Owner, REVERSE, Reversed, SIDES, TOMBSTONE, TransactionRow, WIDTH,
    removal_notices,
};
use crate::storage::rows::{Columns, FromRow};
use crate::storage::sql::sql;

/// Columns of many rows, one array each: what `unnest` turns back into rows.
#[derive(Default)]
pub struct Arrays {
    card_id: Vec<Option<CardId>>,
    last_four: Vec<i64>,
    created_at: Vec<UnixSeconds>,
    pending: Vec<i64>,
    settles_at: Vec<Option<UnixSeconds>>,
    amount_minor: Vec<i64>,
    currency: Vec<String>,
    merchant_name: Vec<String>,
    descriptor: Vec<String>,
    category: Vec<String>,
    street: Vec<String>,
    street_no: Vec<String>,
    city: Vec<String>,
    country: Vec<String>,
    zip: Vec<String>,
    directory_id: Vec<Option<DirectoryEntryId>>,
    merchant_id: Vec<Option<MerchantId>>,
    location_id: Vec<Option<LocationId>>,
}

impl Arrays {
    /// The rows' columns; a history has no refunds made as one (`refund_of` stays NULL).
    pub fn of(rows: Vec<NewTransaction>) -> Self {
        let mut columns = Self::default();
        for row in rows {
            columns.card_id.push(row.card_id);
            columns.last_four.push(i64::from(row.last_four));
            columns.created_at.push(row.created_at);
            columns.pending.push(i64::from(row.pending));
            columns.settles_at.push(row.settles_at);
            columns.amount_minor.push(row.amount_minor);
            columns.currency.push(row.currency);
            columns.merchant_name.push(row.merchant_name);
            columns.descriptor.push(row.descriptor);
            columns.category.push(row.category);
            columns.street.push(row.street);
            columns.street_no.push(row.street_no);
            columns.city.push(row.city);
            columns.country.push(row.country);
            columns.zip.push(row.zip);
            columns.directory_id.push(row.directory_id);
            columns.merchant_id.push(row.merchant_id);
            columns.location_id.push(row.location_id);
        }
        columns
    }

    /// Inserts every row in one statement (any number of rows, one round trip).
    pub async fn insert(&self, client: &Client, card_id: Option<CardId>) -> StorageResult<u64> {
        execute(
            client,
            "INSERT INTO transactions (card_id, last_four, created_at, pending, settles_at, amount_minor, currency,
                 merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id,
                 merchant_id, location_id)
             SELECT COALESCE($19::BIGINT, u.card_id), u.last_four, u.created_at, u.pending, u.settles_at,
                 u.amount_minor, u.currency, u.merchant_name, u.descriptor, u.category, u.street, u.street_no, u.city,
                 u.country, u.zip, u.directory_id, u.merchant_id, u.location_id
             FROM unnest($1::BIGINT[], $2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[], $6::BIGINT[],
                 $7::TEXT[], $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::TEXT[], $12::TEXT[], $13::TEXT[], $14::TEXT[],
                 $15::TEXT[], $16::BIGINT[], $17::BIGINT[], $18::BIGINT[])
                 AS u(card_id, last_four, created_at, pending, settles_at, amount_minor, currency, merchant_name,
                      descriptor, category, street, street_no, city, country, zip, directory_id, merchant_id,
                      location_id)",
            &[
                &self.card_id,
                &self.last_four,
                &self.created_at,
                &self.pending,
                &self.settles_at,
                &self.amount_minor,
                &self.currency,
                &self.merchant_name,
                &self.descriptor,
                &self.category,
                &self.street,
                &self.street_no,
                &self.city,
                &self.country,
                &self.zip,
                &self.directory_id,
                &self.merchant_id,
                &self.location_id,
                &card_id,
            ],
        )
        .await
    }
}

/// One statement per owner column whatever the filter: absent filters are NULL parameters,
/// so each shape is prepared once per connection.
pub async fn page(db: &Database, owner: Owner, filter: &Filter, limit: u32) -> StorageResult<Vec<TransactionRow>> {
    let (after_at, after_id) = filter.after.unzip();
    let (sql, id) = match owner {
        Owner::Card(id) => (sql!("{}", page_of("card_id")), id.get()),
        Owner::Merchant(id) => (sql!("{}", page_of("merchant_id")), id.get()),
    };
    let client = db.client().await?;
    all(
        &client,
        sql,
        &[
            &id,
            &filter.from,
            &filter.to,
            &filter.pending.map(i64::from),
            &filter.location_id,
            &after_at,
            &after_id,
            &i64::from(limit),
        ],
    )
    .await
}

/// A page of the rows whose `owner_column` is `$1`.
fn page_of(owner_column: &str) -> String {
    format!(
        "SELECT {COLUMNS} FROM transactions
         WHERE {owner_column} = $1
           AND ($2::BIGINT IS NULL OR created_at >= $2)
           AND ($3::BIGINT IS NULL OR created_at <= $3)
           AND ($4::BIGINT IS NULL OR pending = $4)
           AND ($5::BIGINT IS NULL OR location_id = $5)
           AND ($6::BIGINT IS NULL OR (created_at, id) < ($6, $7::BIGINT))
         ORDER BY created_at DESC, id DESC LIMIT $8"
    )
}

/// Settles the rows `ids` still pending (`settles_at` moved to `settled_at` when given and
/// later; the amount set to `amount_minor` when given), in one transaction that first locks the subscribers who see them; each owned row
/// gets a `transaction.updated` event. Returns the settled rows with their events' ids.
async fn settle(
    db: &Database,
    ids: Vec<TransactionId>,
    subscribers: Vec<SubscriberId>,
    now: UnixSeconds,
    settled_at: Option<UnixSeconds>,
    amount_minor: Option<i64>,
) -> StorageResult<Vec<(TransactionRow, Option<EventId>)>> {
    let sql = sql!(
        "WITH settled AS (
             UPDATE transactions SET pending = 0,
                 settles_at = CASE WHEN $3::BIGINT IS NOT NULL AND (settles_at IS NULL OR settles_at > $3)
                                   THEN $3 ELSE settles_at END,
                 amount_minor = COALESCE($6::BIGINT, amount_minor),
                 change_seq = CASE WHEN card_id IS NOT NULL OR merchant_id IS NOT NULL
                                   THEN nextval(pg_get_serial_sequence('events', 'id')) ELSE change_seq END
             WHERE id = ANY($1::BIGINT[]) AND pending = 1
             RETURNING {COLUMNS}, change_seq
         ), ev AS (
             INSERT INTO events (id, type, created_at, transaction_id, card_id, merchant_id)
             SELECT change_seq, $4::TEXT, $2::BIGINT, id, card_id, merchant_id FROM settled
             WHERE card_id IS NOT NULL OR merchant_id IS NOT NULL
             RETURNING id, card_id, merchant_id
         ), {}
         SELECT {COLUMNS}, CASE WHEN card_id IS NOT NULL OR merchant_id IS NOT NULL THEN change_seq END,
             (SELECT count(*) FROM dl)
         FROM settled ORDER BY change_seq",
        transaction_recipients_and_deliveries("$4::TEXT", "$5::BIGINT")
    );
    let queue_at = now.millis();
    let rows = db
        .write_again(move |client| {
            let (subscribers, ids) = (subscribers.clone(), ids.clone());
            async move {
                let (locked, settled) = futures::future::join(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    query(
                        client,
                        sql.numbered(),
                        &[&ids, &now, &settled_at, &TRANSACTION_UPDATED, &queue_at, &amount_minor],
                    ),
                )
                .await;
                locked?;
                settled
            }
            .boxed()
        })
        .await?;
    let mut settled = Vec::with_capacity(rows.len());
    let mut queued = 0;
    for row in &rows {
        settled.push((TransactionRow::from_row(row)?, row.column(WIDTH)?));
        queued = row.column(WIDTH + 1)?;
    }
    announce(db, settled.iter().map(|(row, _)| row), queued);
    Ok(settled)
}

/// Tells the other instances of the transactions' events and of queued deliveries.
fn announce<'a>(db: &Database, rows: impl Iterator<Item = &'a TransactionRow>, queued: i64) {
    let change = Change::transactions(rows.flat_map(Owner::of));
    if change != Change::Transactions(Some(Vec::new())) {
        db.notify(change.payload());
    }
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
}

/// The ids of rows to settle and the subscribers who see them.
async fn to_settle(
    client: &Client,
    condition: &str,
    params: super::Params<'_>,
) -> StorageResult<(Vec<TransactionId>, Vec<SubscriberId>)> {
    let rows = query(
        client,
        &format!(
            "SELECT t.id, c.subscriber_id, m.subscriber_id FROM transactions t
             LEFT JOIN cards c ON c.id = t.card_id LEFT JOIN merchants m ON m.id = t.merchant_id
             WHERE t.pending = 1 AND {condition}"
        ),
        params,
    )
    .await?;
    let mut ids = Vec::with_capacity(rows.len());
    let mut subscribers = Vec::new();
    for row in &rows {
        ids.push(row.try_get(0)?);
        subscribers.extend(row.try_get::<_, Option<SubscriberId>>(1)?);
        subscribers.extend(row.try_get::<_, Option<SubscriberId>>(2)?);
    }
    subscribers.sort_unstable();
    subscribers.dedup();
    Ok((ids, subscribers))
}

fn settled_events(settled: Vec<(TransactionRow, Option<EventId>)>) -> Vec<EventRow> {
    settled
        .into_iter()
        .filter_map(|(transaction, event)| event.map(|id| EventRow { id, kind: EventKind::Settled, transaction }))
        .collect()
}

pub async fn settle_due(db: &Database, now: UnixSeconds) -> StorageResult<Vec<EventRow>> {
    let (ids, subscribers) = {
        let client = db.client().await?;
        to_settle(&client, "t.settles_at <= $1 ORDER BY t.settles_at LIMIT 10000", &[&now]).await?
    };
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(settled_events(settle(db, ids, subscribers, now, None, None).await?))
}

pub async fn settle_now(
    db: &Database,
    id: TransactionId,
    now: UnixSeconds,
    amount_minor: Option<i64>,
) -> StorageResult<Option<(TransactionRow, Option<EventRow>)>> {
    let (ids, subscribers) = {
        let client = db.client().await?;
        to_settle(&client, "t.id = $1", &[&id]).await?
    };
    if ids.is_empty() {
        return Ok(None);
    }
    let settled = settle(db, ids, subscribers, now, Some(now), amount_minor).await?;
    Ok(settled.into_iter().next().map(|(transaction, event)| {
        let event = event.map(|id| EventRow { id, kind: EventKind::Settled, transaction: transaction.clone() });
        (transaction, event)
    }))
}

/// A sale in one statement (one round trip, its own transaction): lock the subscribers of the
/// card and the merchant, then take the event's id, insert the row (its sync positions are
/// that id), the event, its recipients and its deliveries. The data flow orders it: the id is
/// taken from the row that counted the locked subscribers.
const RECORD_SALE: &str = "WITH locked AS (
         SELECT count(*) AS subscribers FROM (
             SELECT id FROM subscribers
             WHERE id IN (SELECT subscriber_id FROM cards WHERE id = $1::BIGINT
                          UNION ALL SELECT subscriber_id FROM merchants WHERE id = $17::BIGINT)
             ORDER BY id FOR NO KEY UPDATE) AS l
     ), seq AS (
         SELECT CASE WHEN subscribers > 0 THEN nextval(pg_get_serial_sequence('events', 'id')) END AS event_id
         FROM locked
     ), sale AS (
         INSERT INTO transactions (card_id, last_four, created_at, pending, settles_at, amount_minor, currency,
             merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id,
             merchant_id, location_id, refund_of, created_seq, change_seq)
         SELECT $1::BIGINT, $2::BIGINT, $3::BIGINT, $4::BIGINT, $5::BIGINT, $6::BIGINT, $7::TEXT, $8::TEXT, $9::TEXT,
             $10::TEXT, $11::TEXT, $12::TEXT, $13::TEXT, $14::TEXT, $15::TEXT, $16::BIGINT, $17::BIGINT, $18::BIGINT,
             $22::BIGINT, COALESCE(event_id, 0), COALESCE(event_id, 0)
         FROM seq
         RETURNING id
     ), ev AS (
         INSERT INTO events (id, type, created_at, transaction_id, card_id, merchant_id)
         SELECT seq.event_id, $19::TEXT, $20::BIGINT, sale.id, $1::BIGINT, $17::BIGINT FROM seq, sale
         WHERE seq.event_id IS NOT NULL
         RETURNING id, card_id, merchant_id
     ), ";

pub async fn record_sale(
    db: &Database,
    mut sale: NewTransaction,
    now: UnixSeconds,
    replay: Option<Replay>,
) -> StorageResult<(TransactionRow, Option<EventRow>)> {
    let sql = sql!(
        "{RECORD_SALE}{}
         SELECT sale.id, seq.event_id, (SELECT count(*) FROM dl) FROM sale, seq",
        transaction_recipients_and_deliveries("$19::TEXT", "$21::BIGINT")
    );
    let recorded = match replay {
        // One statement is a transaction of its own: no BEGIN, no COMMIT.
        None => {
            let client = db.client().await?;
            insert_sale(&client, sql.numbered(), &sale, now).await?
        }
        Some(replay) => {
            let row = sale.clone();
            db.write_again(move |client| {
                let (row, replay) = (row.clone(), replay.clone());
                async move {
                    let recorded = insert_sale(client, sql.numbered(), &row, now).await?;
                    super::idempotency::store_replay(
                        client,
                        Some(replay),
                        recorded.try_get::<_, TransactionId>(0)?,
                        now,
                    )
                    .await?;
                    Ok(recorded)
                }
                .boxed()
            })
            .await?
        }
    };
    sale.id = recorded.try_get(0)?;
    let event = recorded.try_get::<_, Option<EventId>>(1)?.map(|id| EventRow {
        id,
        kind: EventKind::Created,
        transaction: sale.clone(),
    });
    announce(db, std::iter::once(&sale), recorded.try_get(2)?);
    Ok((sale, event))
}

async fn insert_sale(client: &Client, sql: &str, row: &NewTransaction, now: UnixSeconds) -> StorageResult<Row> {
    query_one(
        client,
        sql,
        &[
            &row.card_id,
            &i64::from(row.last_four),
            &row.created_at,
            &i64::from(row.pending),
            &row.settles_at,
            &row.amount_minor,
            &row.currency,
            &row.merchant_name,
            &row.descriptor,
            &row.category,
            &row.street,
            &row.street_no,
            &row.city,
            &row.country,
            &row.zip,
            &row.directory_id,
            &row.merchant_id,
            &row.location_id,
            &TRANSACTION_CREATED,
            &now,
            &now.millis(),
            &row.refund_of,
        ],
    )
    .await
}

/// Reverses the pending authorization `id` in one transaction: the subscribers who see it are
/// locked first (as a settlement locks them), then the row goes, each of them gets
/// `transaction.removed`, and the card keeps the id for sync.
pub async fn reverse(db: &Database, id: TransactionId, now: UnixSeconds) -> StorageResult<Option<Reversed>> {
    let reversed = db
        .write_again(move |client| {
            async move {
                let Some(sides) = query_opt(client, SIDES.numbered(), &[&id]).await? else { return Ok(None) };
                let owners: (Option<SubscriberId>, Option<SubscriberId>) = (sides.try_get(0)?, sides.try_get(1)?);
                let subscribers: Vec<SubscriberId> = [owners.0, owners.1].into_iter().flatten().collect();
                execute(client, LOCK_SUBSCRIBERS, &[&subscribers]).await?;
                let Some(row) = query_opt(client, REVERSE.numbered(), &[&id]).await? else { return Ok(None) };
                let row = TransactionRow::from_row(&row)?;
                let (mut events, mut queued) = (Vec::new(), 0);
                for notice in removal_notices(&row, owners) {
                    let (event_id, more) = super::events::record_other(
                        client,
                        notice.subscriber_id,
                        notice.event.event_type,
                        &notice.event.data,
                        now,
                    )
                    .await?;
                    queued += more;
                    execute(client, MARK_REMOVAL.numbered(), &[&event_id, &notice.card_id, &notice.merchant_id])
                        .await?;
                    if let Some(card_id) = notice.card_id {
                        execute(client, TOMBSTONE.numbered(), &[&row.id, &card_id, &event_id]).await?;
                    }
                    events.extend(notice.owners(event_id));
                }
                Ok(Some((Reversed { row, events }, queued)))
            }
            .boxed()
        })
        .await?;
    Ok(reversed.map(|(reversed, queued)| {
        announce(db, std::iter::once(&reversed.row), queued);
        reversed
    }))
}
