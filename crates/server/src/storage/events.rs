//! The event log (`events`): every change a subscriber can observe, written in the transaction
//! that makes the change. Event ids only grow, and the events of one subscriber commit in id
//! order (see the module documentation of `storage`): an id is the SSE id of the transaction
//! streams ("every event after id N for this card" is a complete answer to a resuming stream),
//! the order of `GET /events`, and the position of an incremental sync.
//!
//! Recording an event also lists its recipients (`event_recipients`) and queues it for each of
//! their webhook endpoints that wants its type (`webhook_deliveries`), in the same transaction.

use super::rows::events::logged_columns;
use super::rows::transactions::{Owner, T_COLUMNS};
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{EventId, SubscriberId};

pub use super::rows::events::{
    EventKind, EventRow, LogFilter, LoggedEvent, StoredEvent, TRANSACTION_CREATED, TRANSACTION_UPDATED, WEBHOOK_TEST,
};

/// What the newest event of a card that was removed reads as: kept rows and bodies of it are
/// no longer the answer, and the card is not there.
pub const REMOVED: EventId = EventId(-1);

/// What the newest event of an owner without any reads as: every event's id is above it.
pub const NO_EVENT: EventId = EventId(0);

/// The owner's transaction events (by the owner's id column) that a subscriber received, after
/// an id, oldest first: `$1` the owner, `$2` the id, `$3` how many, `$4` the subscriber.
fn events_after(owner_column: &str) -> String {
    format!(
        "SELECT {T_COLUMNS}, e.id, e.type
         FROM events e JOIN transactions t ON t.id = e.transaction_id
         JOIN event_recipients r ON r.event_id = e.id AND r.subscriber_id = $4
         WHERE e.{owner_column} = $1 AND e.id > $2
         ORDER BY e.id LIMIT $3"
    )
}

impl Store {
    /// Up to `limit` transaction events of the owner with an id above `after_id` that
    /// `subscriber_id` received, oldest first.
    pub async fn transaction_events_after(
        &self,
        subscriber_id: SubscriberId,
        owner: Owner,
        after_id: EventId,
        limit: u32,
    ) -> StorageResult<Vec<EventRow>> {
        let sql = match owner {
            Owner::Card(_) => sql!("{}", events_after("card_id")),
            Owner::Merchant(_) => sql!("{}", events_after("merchant_id")),
        };
        let (_, owner_id) = owner.column();
        self.fetch_all(sql, args![owner_id, after_id, limit, subscriber_id]).await
    }

    /// The id of the owner's newest transaction event, 0 when it has none, [`REMOVED`] for a
    /// card that is not there (any more).
    pub async fn newest_transaction_event(&self, owner: Owner) -> StorageResult<EventId> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::events::newest_of(connection, owner)).await,
            db => postgres::events::newest_of(db, owner).await,
        )
    }

    /// Up to `limit` of the subscriber's events, newest first.
    pub async fn events(
        &self,
        subscriber_id: SubscriberId,
        filter: LogFilter,
        limit: u32,
    ) -> StorageResult<Vec<LoggedEvent>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::events::list(connection, subscriber_id, &filter, limit)).await,
            db => postgres::events::list(db, subscriber_id, &filter, limit).await,
        )
    }

    /// Records `event` for the subscriber and queues it for the subscriber's endpoints that
    /// want its type (a `webhook.test` goes to one endpoint only, through `POST
    /// /webhooks/<id>/test`); `sandbox` marks one the sandbox sent on request (no object
    /// changed).
    pub async fn record_event(
        &self,
        subscriber_id: SubscriberId,
        event: StoredEvent,
        now: UnixSeconds,
        sandbox: bool,
    ) -> StorageResult<EventId> {
        let mark = sql!("UPDATE events SET sandbox = $2 WHERE id = $1");
        let sandbox = i64::from(sandbox);
        let (id, queued) = dispatch!(self,
            db => db.write(move |connection| {
                let id = sqlite::events::record_other(connection, subscriber_id, event.event_type, &event.data, now)?;
                connection.prepare_cached(mark.sqlite())?.execute(rusqlite::params![id, sandbox])?;
                Ok((id, 1))
            }).await,
            db => db.write_again(move |client| {
                let event = event.clone();
                futures::FutureExt::boxed(async move {
                    let (id, queued) =
                        postgres::events::record_other(client, subscriber_id, event.event_type, &event.data, now).await?;
                    postgres::execute(client, mark.numbered(), &[&id, &sandbox]).await?;
                    Ok((id, queued))
                })
            }).await,
        )?;
        if queued > 0 {
            self.announce(&super::notices::Change::Deliveries);
        }
        Ok(id)
    }

    /// One of the subscriber's events.
    pub async fn event(&self, subscriber_id: SubscriberId, id: EventId) -> StorageResult<Option<LoggedEvent>> {
        let sql = sql!("{} WHERE r.subscriber_id = $1 AND r.event_id = $2", logged_columns());
        self.fetch_one(Read::ByKey, sql, args![subscriber_id, id]).await
    }

    /// Forgets events older than `before` (seconds) and delivery attempts logged before it;
    /// a stream resuming from one of those events gets what is left.
    pub async fn purge_events(&self, before: UnixSeconds) -> StorageResult<u64> {
        // In this order, each its own statement (a rare clean-up: no round trip to save).
        let attempts = self
            .execute_maintenance(sql!("DELETE FROM webhook_attempts WHERE at < $1"), args![before.millis()])
            .await?;
        let events = self.execute_maintenance(sql!("DELETE FROM events WHERE created_at < $1"), args![before]).await?;
        Ok(attempts + events)
    }
}
