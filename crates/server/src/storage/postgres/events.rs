//! Events on PostgreSQL. Every statement that gives events ids runs after the write has locked
//! the rows of the subscribers who will see them ([`super::LOCK_SUBSCRIBERS`]), so one
//! subscriber's events commit in id order however many writers run at once.

use std::collections::HashMap;
use std::sync::Arc;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, EventId, MerchantId, SubscriberId};

use tokio::sync::{Semaphore, mpsc, oneshot};

use super::rows::all;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, query, query_one};
use crate::storage::events::NO_EVENT;
use crate::storage::rows::events::{LogFilter, LoggedEvent, logged_columns};
use crate::storage::rows::transactions::Owner;
use crate::storage::sql::sql;
use crate::storage::{Outage, StorageError, StorageResult};

/// The CTEs that list the recipients of the events in `ev (id, card_id, merchant_id)` (the
/// card's owner and the merchant's) and queue the events for their webhook endpoints that want
/// `type_param`'s type, due at `at_param` (milliseconds). Leaves `dl`, one row per delivery.
pub(super) fn transaction_recipients_and_deliveries(type_param: &str, at_param: &str) -> String {
    format!(
        "rc AS (
             INSERT INTO event_recipients (subscriber_id, event_id)
             SELECT c.subscriber_id, ev.id FROM ev JOIN cards c ON c.id = ev.card_id
             UNION SELECT m.subscriber_id, ev.id FROM ev JOIN merchants m ON m.id = ev.merchant_id
             ON CONFLICT DO NOTHING
             RETURNING subscriber_id, event_id
         ), {}",
        deliveries(type_param, at_param)
    )
}

/// The CTE `dl` that queues the events listed in `rc (subscriber_id, event_id)`. An endpoint
/// whose queue is full gets them as dropped (failed, never attempted: `webhook_queues` records
/// the gap); the queue's length is the one before the statement, so one statement may pass the
/// limit by its own events.
fn deliveries(type_param: &str, at_param: &str) -> String {
    format!(
        "dl AS (
             INSERT INTO webhook_deliveries
                 (webhook_id, event_id, subscriber_id, status, attempts, next_attempt_at, created_at)
             SELECT w.id, rc.event_id, w.subscriber_id,
                    CASE WHEN q.pending < l.pending_max THEN 'pending' ELSE 'failed' END, 0,
                    CASE WHEN q.pending < l.pending_max THEN {at_param} END, {at_param}
             FROM rc JOIN webhooks w ON w.subscriber_id = rc.subscriber_id
             JOIN webhook_queues q ON q.webhook_id = w.id CROSS JOIN webhook_queue_limits l
             WHERE w.enabled = 1 AND {type_param} <> 'webhook.test'
               AND EXISTS (SELECT 1 FROM json_array_elements_text(CAST(w.events AS JSON)) AS k(value)
                           WHERE k.value IN ('*', {type_param}))
             ON CONFLICT DO NOTHING
             RETURNING 1
         )"
    )
}

/// Records an event of one subscriber with its data (JSON), inside a write: locks the
/// subscriber, then gives the event its id. Returns its id and how many deliveries it queued.
pub async fn record_other(
    client: &Client,
    subscriber_id: SubscriberId,
    event_type: &str,
    data: &str,
    now: UnixSeconds,
) -> StorageResult<(EventId, i64)> {
    let queue_at = now.millis();
    let sql = sql!(
        "WITH ev AS (
             INSERT INTO events (type, created_at, data) VALUES ($1::TEXT, $2::BIGINT, $3::TEXT) RETURNING id
         ), rc AS (
             INSERT INTO event_recipients (subscriber_id, event_id) SELECT $4::BIGINT, id FROM ev
             RETURNING subscriber_id, event_id
         ), {}
         SELECT (SELECT id FROM ev), (SELECT count(*) FROM dl)",
        deliveries("$1::TEXT", "$5::BIGINT")
    );
    // In one round trip: the lock is taken before the insert runs.
    // A webhook test queues nothing here: its one delivery is queued by the caller.
    let subscribers = vec![subscriber_id];
    let (locked, recorded) = futures::future::join(
        execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
        query_one(client, sql.numbered(), &[&event_type, &now, &data, &subscriber_id, &queue_at]),
    )
    .await;
    locked?;
    let row = recorded?;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

/// A look-up of an owner's newest event, with where its answer goes.
pub(super) type NewestAsk = (Owner, oneshot::Sender<Result<EventId, (Option<Outage>, String)>>);

/// Batches of look-ups out at once: under load the asks gather while these are answered.
const NEWEST_IN_FLIGHT: usize = 4;

/// The id of the newest event of `owner`'s transactions (0 for none). Every read of a kept page
/// asks, so the asks of concurrent reads are answered together (`answer_newest`).
pub async fn newest_of(db: &Database, owner: Owner) -> StorageResult<EventId> {
    let (answer, answered) = oneshot::channel();
    let stopped = || StorageError::Pool("the newest-event look-ups stopped".into());
    db.newest_asks.send((owner, answer)).map_err(|_| stopped())?;
    answered.await.map_err(|_| stopped())?.map_err(|(outage, error)| match outage {
        Some(outage) => StorageError::Unavailable(outage, error),
        None => StorageError::Pool(error),
    })
}

/// Answers the asks of `newest_of` in batches, one statement (one round trip) per batch: while
/// a batch is out the next asks gather, so a thousand reads a second cost a few hundred look-ups,
/// not a thousand. Each ask is sent after it was made, so its answer still counts every commit
/// before the read began (what a kept page is checked against).
pub(super) async fn answer_newest(pool: super::Pool, mut asks: mpsc::UnboundedReceiver<NewestAsk>) {
    let in_flight = Arc::new(Semaphore::new(NEWEST_IN_FLIGHT));
    loop {
        let Ok(permit) = Arc::clone(&in_flight).acquire_owned().await else { return };
        let mut batch = Vec::new();
        if asks.recv_many(&mut batch, 1024).await == 0 {
            return;
        }
        let pool = pool.clone();
        let batch_task = async move {
            let newest = newest_of_many(&pool, batch.iter().map(|(owner, _)| *owner)).await;
            for (owner, answer) in batch {
                // A reader that stopped waiting no longer needs its answer.
                let _ = answer.send(match &newest {
                    Ok(newest) => Ok(newest.get(&owner).copied().unwrap_or(NO_EVENT)),
                    Err(error) => Err((error.outage(), error.to_string())),
                });
            }
            drop(permit);
        };
        tokio::spawn(tracing::Instrument::in_current_span(batch_task));
    }
}

async fn newest_of_many(
    pool: &super::Pool,
    owners: impl Iterator<Item = Owner>,
) -> StorageResult<HashMap<Owner, EventId>> {
    let (mut cards, mut merchants) = (Vec::new(), Vec::new());
    for owner in owners {
        match owner {
            Owner::Card(id) => cards.push(id.get()),
            Owner::Merchant(id) => merchants.push(id.get()),
        }
    }
    for ids in [&mut cards, &mut merchants] {
        ids.sort_unstable();
        ids.dedup();
    }
    let client = pool.get().await?;
    // Each owner's newest event is one step back on its index (`events_by_card`, `_by_merchant`);
    // a card no longer there reads as `REMOVED` (-1), one more step on the primary key.
    let rows = query(
        &client,
        "SELECT FALSE, o.id,
                CASE WHEN EXISTS (SELECT 1 FROM cards c WHERE c.id = o.id)
                THEN (SELECT COALESCE(MAX(e.id), 0) FROM events e WHERE e.card_id = o.id) ELSE -1 END
         FROM unnest($1::BIGINT[]) AS o(id)
         UNION ALL
         SELECT TRUE, o.id, (SELECT COALESCE(MAX(e.id), 0) FROM events e WHERE e.merchant_id = o.id)
         FROM unnest($2::BIGINT[]) AS o(id)",
        &[&cards, &merchants],
    )
    .await?;
    rows.iter()
        .map(|row| {
            let id = row.try_get(1)?;
            let owner = if row.try_get(0)? { Owner::Merchant(MerchantId(id)) } else { Owner::Card(CardId(id)) };
            Ok((owner, row.try_get(2)?))
        })
        .collect()
}

/// One statement whatever the filter: absent filters are NULL parameters.
pub async fn list(
    db: &Database,
    subscriber_id: SubscriberId,
    filter: &LogFilter,
    limit: u32,
) -> StorageResult<Vec<LoggedEvent>> {
    let sql = sql!(
        "{} WHERE r.subscriber_id = $1
           AND ($2::TEXT IS NULL OR e.type = $2)
           AND ($3::BIGINT IS NULL OR e.created_at >= $3)
           AND ($4::BIGINT IS NULL OR r.event_id < $4)
         ORDER BY r.event_id DESC LIMIT $5",
        logged_columns()
    );
    let client = db.client().await?;
    all(&client, sql, &[&subscriber_id, &filter.event_type, &filter.since, &filter.before_id, &i64::from(limit)]).await
}
