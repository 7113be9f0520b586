//! Webhook endpoints, their delivery queue and the log of attempts.
//!
//! Delivery times (`next_attempt_at`, `created_at` of a delivery, an attempt's `at`,
//! `failing_since`) are milliseconds; an endpoint's `created_at` and `previous_until` seconds.

use super::changes::Change as Announced;
use super::idempotency::Replay;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

#[derive(Debug, Clone, PartialEq)]
pub struct WebhookRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub url: String,
    /// JSON array of event types.
    pub events: String,
    pub description: Option<String>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub secret_generation: i64,
    pub previous_until: Option<i64>,
    pub created_at: i64,
    pub failing_since: Option<i64>,
    /// The API version its events are written in (`YYYY-MM-DD`).
    pub api_version: String,
    /// The first secret generation in the Standard Webhooks form; the ones before are in the
    /// form endpoints had before it (`webhooks::secret`).
    pub standard_secret_from: i64,
}

pub(super) const COLUMNS: &str = "id, subscriber_id, url, events, description, enabled, disabled_reason, secret_generation, \
     previous_until, created_at, failing_since, api_version, standard_secret_from";
/// The columns after [`COLUMNS`] in a row of the queue.
pub(super) const QUEUE_COLUMNS_AT: usize = 13;

impl WebhookRow {
    /// The row an insert of `new` makes with id `id`.
    pub fn created(id: i64, new: NewWebhook) -> Self {
        Self {
            id,
            subscriber_id: new.subscriber_id,
            url: new.url,
            events: new.events,
            description: new.description,
            enabled: true,
            disabled_reason: None,
            secret_generation: 1,
            previous_until: None,
            created_at: new.created_at,
            failing_since: None,
            api_version: new.api_version,
            standard_secret_from: 1,
        }
    }
}

#[derive(Debug, Clone)]
pub struct NewWebhook {
    pub subscriber_id: i64,
    pub url: String,
    pub events: String,
    pub description: Option<String>,
    pub created_at: i64,
    pub api_version: String,
}

/// What a PATCH changes; `None` keeps the value.
#[derive(Debug, Default)]
pub struct Change {
    pub url: Option<String>,
    pub events: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
    pub api_version: Option<String>,
}

/// A claimed delivery: the head of its endpoint's queue, due, held by this instance until the
/// claim's end.
#[derive(Debug, Clone, PartialEq)]
pub struct DueDelivery {
    pub webhook: WebhookRow,
    pub event_id: i64,
    pub attempts: u32,
    pub created_at: i64,
}

/// What the log keeps of an attempt: the one recorded and the one listed.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptEntry {
    /// 1 for the first attempt at a delivery.
    pub attempt: u32,
    pub delivered: bool,
    pub response_status: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub at: i64,
    /// When to try again; `None` when this attempt ends the delivery.
    pub next_attempt_at: Option<i64>,
}

/// One attempt's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub webhook_id: i64,
    pub event_id: i64,
    pub entry: AttemptEntry,
    /// Disables the endpoint, with this reason (the receiver said it is gone).
    pub disable: Option<String>,
}

/// An endpoint's queue, as its subscriber sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointQueue {
    /// Deliveries waiting for an attempt.
    pub length: i64,
    /// When the next attempt is due (milliseconds).
    pub next_attempt_at: Option<i64>,
    /// The error of the last attempt, if it failed.
    pub last_error: Option<String>,
}

/// A logged attempt, with the event's type.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedAttempt {
    pub id: i64,
    pub event_id: i64,
    pub event_type: String,
    pub entry: AttemptEntry,
}

impl Store {
    /// Adds an endpoint (and keeps the request's replay) unless the subscriber has `max`
    /// already: then `None`.
    pub async fn create_webhook(
        &self,
        new: NewWebhook,
        max: usize,
        replay: Option<Replay>,
    ) -> StorageResult<Option<WebhookRow>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::insert(connection, &new, max, replay)).await,
            db => postgres::webhooks::insert(db, new, max, replay).await,
        )
    }

    /// The subscriber's endpoints, oldest first.
    pub async fn webhooks(&self, subscriber_id: i64) -> StorageResult<Vec<WebhookRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::webhooks::list(connection, subscriber_id)).await,
            db => postgres::webhooks::list(db, subscriber_id).await,
        )
    }

    pub async fn webhook(&self, subscriber_id: i64, id: i64) -> StorageResult<Option<WebhookRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::webhooks::get(connection, subscriber_id, id)).await,
            db => postgres::webhooks::get(db, subscriber_id, id).await,
        )
    }

    pub async fn update_webhook(
        &self,
        subscriber_id: i64,
        id: i64,
        change: Change,
    ) -> StorageResult<Option<WebhookRow>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::update(connection, subscriber_id, id, &change)).await,
            db => postgres::webhooks::update(db, subscriber_id, id, change).await,
        )
    }

    pub async fn delete_webhook(&self, subscriber_id: i64, id: i64) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::delete(connection, subscriber_id, id)).await,
            db => postgres::webhooks::delete(db, subscriber_id, id).await,
        )
    }

    /// A new secret generation; the one before keeps signing until `previous_until`.
    pub async fn rotate_webhook_secret(
        &self,
        subscriber_id: i64,
        id: i64,
        previous_until: i64,
    ) -> StorageResult<Option<WebhookRow>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::rotate(connection, subscriber_id, id, previous_until)).await,
            db => postgres::webhooks::rotate(db, subscriber_id, id, previous_until).await,
        )
    }

    /// Records a `webhook.test` event with `data` and queues it for endpoint `webhook_id`
    /// alone; its id.
    pub async fn send_test_event(
        &self,
        subscriber_id: i64,
        webhook_id: i64,
        data: subscriber_protocol::WebhookTestData,
        now_ms: i64,
    ) -> StorageResult<i64> {
        let data = super::events::StoredEvent::new(&subscriber_protocol::EventData::WebhookTest(data)).data;
        let id = dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::send_test(connection, subscriber_id, webhook_id, &data, now_ms)).await,
            db => postgres::webhooks::send_test(db, subscriber_id, webhook_id, data, now_ms).await,
        )?;
        self.announce(&Announced::Deliveries);
        Ok(id)
    }

    /// Queues the event for the endpoint again, now (a resend); `false` when the subscriber has
    /// no such event.
    pub async fn resend(&self, subscriber_id: i64, webhook_id: i64, event_id: i64, now_ms: i64) -> StorageResult<bool> {
        let queued = dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::resend(connection, subscriber_id, webhook_id, event_id, now_ms)).await,
            db => postgres::webhooks::resend(db, subscriber_id, webhook_id, event_id, now_ms).await,
        )?;
        if queued {
            self.announce(&Announced::Deliveries);
        }
        Ok(queued)
    }

    /// Up to `limit` attempts of the endpoint below the attempt id `before` (newest first).
    pub async fn delivery_attempts(
        &self,
        webhook_id: i64,
        before: Option<i64>,
        limit: u32,
    ) -> StorageResult<Vec<LoggedAttempt>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::webhooks::attempts(connection, webhook_id, before, limit)).await,
            db => postgres::webhooks::attempts(db, webhook_id, before, limit).await,
        )
    }

    /// Claims up to `limit` deliveries due at `now_ms` until `claim_until`: of each endpoint
    /// with none in flight, the oldest pending event (per endpoint one at a time, in event
    /// order). On PostgreSQL `FOR UPDATE SKIP LOCKED`: instances never claim the same one.
    pub async fn claim_deliveries(&self, now_ms: i64, claim_until: i64, limit: u32) -> StorageResult<Vec<DueDelivery>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::claim(connection, now_ms, claim_until, limit)).await,
            db => postgres::webhooks::claim(db, now_ms, claim_until, limit).await,
        )
    }

    /// Ends the claims a process before this one left (SQLite, which one process serves: a
    /// crash's claims are free at once). On PostgreSQL claims of other instances are theirs: a
    /// crashed instance's run out by themselves.
    pub async fn release_delivery_claims(&self) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(sqlite::webhooks::release_claims).await,
            _db => Ok(()),
        )
    }

    /// Deliveries waiting for an attempt (of enabled endpoints), and when the next one that
    /// could be claimed at `now_ms` (the head of an endpoint with none in flight) is due.
    pub async fn delivery_queue(&self, now_ms: i64) -> StorageResult<(i64, Option<i64>)> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::webhooks::queue(connection, now_ms)).await,
            db => postgres::webhooks::queue(db, now_ms).await,
        )
    }

    /// One endpoint's queue: its length, next attempt and last error.
    pub async fn endpoint_queue(&self, webhook_id: i64) -> StorageResult<EndpointQueue> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::webhooks::endpoint_queue(connection, webhook_id)).await,
            db => postgres::webhooks::endpoint_queue(db, webhook_id).await,
        )
    }

    /// Queues again, due now, every delivery of the subscriber's endpoint that failed for good
    /// and whose event is from `since_ms` on; how many.
    pub async fn recover_deliveries(
        &self,
        subscriber_id: i64,
        webhook_id: i64,
        since_ms: i64,
        now_ms: i64,
    ) -> StorageResult<u64> {
        let queued = dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::recover(connection, subscriber_id, webhook_id, since_ms, now_ms)).await,
            db => postgres::webhooks::recover(db, subscriber_id, webhook_id, since_ms, now_ms).await,
        )?;
        if queued > 0 {
            self.announce(&Announced::Deliveries);
        }
        Ok(queued)
    }

    /// Logs an attempt and moves the queue on: delivered, failed for good, or due again. A run
    /// of failures that began before `disable_before` disables the endpoint; whether it did.
    pub async fn record_attempt(&self, attempt: Attempt, disable_before: i64) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::record_attempt(connection, &attempt, disable_before)).await,
            db => postgres::webhooks::record_attempt(db, attempt, disable_before).await,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::subscribers::NewSubscriber;

    const HOUR_MS: i64 = 3_600_000;

    fn test_data(webhook_id: i64) -> subscriber_protocol::WebhookTestData {
        subscriber_protocol::WebhookTestData { webhook_id, message: "test".to_owned() }
    }

    /// A subscriber with one endpoint for every event, and one event queued for it.
    async fn queued(store: &Store) -> (i64, i64, i64) {
        let subscriber = NewSubscriber {
            email: "hooks@example.com".to_owned(),
            client_id: "client".to_owned(),
            public_key: "public".to_owned(),
            secret_hash: "hash".to_owned(),
            created_at: 0,
            api_version: "2026-11-21".to_owned(),
        };
        let subscriber_id = store.insert_subscriber(subscriber).await.expect("stored").expect("a new subscriber");
        let new = NewWebhook {
            subscriber_id,
            url: "http://127.0.0.1:9/".to_owned(),
            events: "[\"*\"]".to_owned(),
            description: None,
            created_at: 0,
            api_version: "2026-11-21".to_owned(),
        };
        let webhook = store.create_webhook(new, 20, None).await.expect("stored").expect("under the cap");
        let event_id =
            store.send_test_event(subscriber_id, webhook.id, test_data(webhook.id), 0).await.expect("queued");
        (subscriber_id, webhook.id, event_id)
    }

    fn failed(webhook_id: i64, event_id: i64, attempt: u32, at: i64) -> Attempt {
        Attempt {
            webhook_id,
            event_id,
            entry: AttemptEntry {
                attempt,
                delivered: false,
                response_status: Some(500),
                duration_ms: 1,
                error: Some("the receiver answered 500".to_owned()),
                at,
                next_attempt_at: Some(at + HOUR_MS),
            },
            disable: None,
        }
    }

    /// Failures for less than 3 days keep the endpoint; the first failure past them disables
    /// it, with the reason shown; a delivery in between starts the clock again.
    #[tokio::test]
    async fn an_endpoint_failing_for_three_days_is_disabled() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = Store::open(&dir.path().join("hooks.sqlite3").into()).await.expect("a database");
        let (subscriber_id, webhook_id, event_id) = queued(&store).await;
        let three_days = 72 * HOUR_MS;
        let record = |attempt: Attempt, now: i64| {
            let store = store.clone();
            async move { store.record_attempt(attempt, now - three_days).await.expect("logged") }
        };
        assert!(!record(failed(webhook_id, event_id, 1, 0), 0).await);
        assert!(!record(failed(webhook_id, event_id, 2, 71 * HOUR_MS), 71 * HOUR_MS).await, "not yet 3 days");
        let mut delivered = failed(webhook_id, event_id, 3, 72 * HOUR_MS);
        delivered.entry = AttemptEntry {
            delivered: true,
            response_status: Some(200),
            error: None,
            next_attempt_at: None,
            ..delivered.entry
        };
        assert!(!record(delivered, 72 * HOUR_MS).await);
        assert!(
            !record(failed(webhook_id, event_id, 4, 100 * HOUR_MS), 100 * HOUR_MS).await,
            "the clock started again"
        );
        assert!(record(failed(webhook_id, event_id, 5, 173 * HOUR_MS), 173 * HOUR_MS).await, "3 days of failures");
        let row = store.webhook(subscriber_id, webhook_id).await.expect("read").expect("the endpoint");
        assert!(!row.enabled);
        assert!(row.disabled_reason.is_some_and(|reason| reason.contains("3 days")));
        let attempts = store.delivery_attempts(webhook_id, None, 10).await.expect("the log");
        assert_eq!(attempts.len(), 5, "every attempt logged");
    }
}
