//! Webhook endpoints, their delivery queue and the log of attempts.
//!
//! Delivery times (`next_attempt_at`, `created_at` of a delivery, an attempt's `at`,
//! `failing_since`) are milliseconds; an endpoint's `created_at` and `previous_until` seconds.

use super::changes::Change;
use super::idempotency::Replay;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::WebhookId;
use subscriber_protocol::{AttemptId, EventId, UnixMillis};

use super::rows::webhooks::{ATTEMPTS, NEXT_DUE};
pub use super::rows::webhooks::{
    AttemptEntry, COLUMNS, DroppedRun, EndpointQueue, LoggedAttempt, QUEUE_COLUMNS_AT, WebhookRow,
};

impl WebhookRow {
    /// The row an insert of `new` makes with id `id`.
    pub fn created(id: WebhookId, new: NewWebhook) -> Self {
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
    pub subscriber_id: SubscriberId,
    pub url: String,
    pub events: String,
    pub description: Option<String>,
    pub created_at: UnixSeconds,
    pub api_version: String,
}

/// What a PATCH changes; `None` keeps the value.
#[derive(Debug, Default)]
pub struct WebhookChange {
    pub url: Option<String>,
    pub events: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
    pub api_version: Option<String>,
}

/// A claimed delivery: the head of its endpoint's queue, due, held by this instance until the
/// claim's end (renewed while its attempt runs).
#[derive(Debug, Clone, PartialEq)]
pub struct DueDelivery {
    pub webhook: WebhookRow,
    pub event_id: EventId,
    pub attempts: u32,
    /// When its event was queued.
    pub created_at: UnixMillis,
    /// The claim's number: renewing it and recording its attempt name it, so that a holder
    /// whose claim ran out (another instance took the endpoint over) moves nothing.
    pub claim: i64,
    /// The receiver's host and port.
    pub host: String,
}

/// An endpoint that could be claimed now: due, not claimed, its subscriber and host not
/// left out by the claimer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimCandidate {
    pub webhook_id: WebhookId,
    pub subscriber_id: SubscriberId,
    pub host: String,
}

/// What a claimer asks for.
#[derive(Debug, Clone, Default)]
pub struct ClaimAsk {
    pub now_ms: UnixMillis,
    pub claim_until: UnixMillis,
    /// The most deliveries to claim.
    pub slots: u32,
    /// Subscribers and hosts that may have nothing more claimed now.
    pub skip_subscribers: Vec<SubscriberId>,
    pub skip_hosts: Vec<String>,
    /// The most candidates of one subscriber to look at, and of all.
    pub per_subscriber: u32,
    pub candidates: u32,
}

/// Puts the candidates in the order they should be claimed (webhook ids), leaving out those
/// that may not be: the claimer's fairness rule. A claim takes the first `slots` of them that
/// are still due and free.
pub type ClaimOrder = Box<dyn FnOnce(&[ClaimCandidate]) -> Vec<WebhookId> + Send>;

/// A claim this instance holds: renewing it names the endpoint and the claim's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldClaim {
    pub webhook_id: WebhookId,
    pub claim: i64,
}

/// One attempt's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub webhook_id: WebhookId,
    pub event_id: EventId,
    /// The claim it was made under ([`DueDelivery::claim`]).
    pub claim: i64,
    pub entry: AttemptEntry,
    /// Disables the endpoint, with this reason (the receiver said it is gone).
    pub disable: Option<String>,
}

/// A test send: queued, or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestSend {
    Queued(EventId),
    /// The endpoint had its [`TEST_SENDS`] in the window; the next is allowed at this time
    /// (milliseconds).
    TooMany {
        retry_at: UnixMillis,
    },
    /// The endpoint's queue is full.
    QueueFull,
}

/// A resend: queued, or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resend {
    Queued,
    /// The subscriber has no such event.
    NoEvent,
    QueueFull,
}

/// Test sends one endpoint may make per [`TEST_SEND_WINDOW`] (a subscriber's 20 endpoints at
/// most 20 times as many).
pub const TEST_SENDS: i64 = 10;
pub const TEST_SEND_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// An endpoint's test sends: the window they are counted in (from `since`, `sent` of them),
/// and its queue (`pending` of at most `pending_max`).
pub(in crate::storage) struct TestWindow {
    pub pending: i64,
    pub pending_max: i64,
    pub since: UnixMillis,
    pub sent: i64,
}

impl TestWindow {
    /// A test send at `now`: refused (too many in the window, or a full queue), or the window
    /// it moves the endpoint to (its start, the sends in it). Both databases decide here.
    pub(in crate::storage) fn send(&self, now: UnixMillis) -> Result<(UnixMillis, i64), TestSend> {
        let open = self.sent > 0 && self.since > now.minus(TEST_SEND_WINDOW);
        if open && self.sent >= TEST_SENDS {
            return Err(TestSend::TooMany { retry_at: self.since.plus(TEST_SEND_WINDOW) });
        }
        if self.pending >= self.pending_max {
            return Err(TestSend::QueueFull);
        }
        Ok(if open { (self.since, self.sent + 1) } else { (now, 1) })
    }
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
    pub async fn webhooks(&self, subscriber_id: SubscriberId) -> StorageResult<Vec<WebhookRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM webhooks WHERE subscriber_id = $1 ORDER BY id");
        self.fetch_all(sql, args![subscriber_id]).await
    }

    pub async fn webhook(&self, subscriber_id: SubscriberId, id: WebhookId) -> StorageResult<Option<WebhookRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM webhooks WHERE id = $1 AND subscriber_id = $2");
        self.fetch_one(Read::ByKey, sql, args![id, subscriber_id]).await
    }

    pub async fn update_webhook(
        &self,
        subscriber_id: SubscriberId,
        id: WebhookId,
        change: WebhookChange,
    ) -> StorageResult<Option<WebhookRow>> {
        let sql = sql!(
            "UPDATE webhooks SET url = COALESCE($3, url), events = COALESCE($4, events),
                 description = COALESCE($5, description),
                 enabled = COALESCE($6, enabled),
                 -- Enabled again by its subscriber: no reason to show, and a fresh start of the failure clock.
                 disabled_reason = CASE WHEN CAST($6 AS BIGINT) IS NULL THEN disabled_reason ELSE NULL END,
                 failing_since = CASE WHEN $6 = 1 THEN NULL ELSE failing_since END,
                 api_version = COALESCE($7, api_version)
             WHERE id = $1 AND subscriber_id = $2 RETURNING {COLUMNS}"
        );
        let WebhookChange { url, events, description, enabled, api_version } = change;
        let args = args![id, subscriber_id, url, events, description, enabled.map(i64::from), api_version];
        self.execute_returning(sql, args).await
    }

    pub async fn delete_webhook(&self, subscriber_id: SubscriberId, id: WebhookId) -> StorageResult<bool> {
        let sql = sql!("DELETE FROM webhooks WHERE id = $1 AND subscriber_id = $2");
        Ok(self.execute(sql, args![id, subscriber_id]).await? == 1)
    }

    /// A new secret generation; the one before keeps signing until `previous_until`.
    pub async fn rotate_webhook_secret(
        &self,
        subscriber_id: SubscriberId,
        id: WebhookId,
        previous_until: UnixSeconds,
    ) -> StorageResult<Option<WebhookRow>> {
        let sql = sql!(
            "UPDATE webhooks SET secret_generation = secret_generation + 1, previous_until = $3
             WHERE id = $1 AND subscriber_id = $2 RETURNING {COLUMNS}"
        );
        self.execute_returning(sql, args![id, subscriber_id, previous_until]).await
    }

    /// Records a `webhook.test` event with `data` and queues it for endpoint `webhook_id`
    /// alone, unless the endpoint has made its [`TEST_SENDS`] in the window or its queue is full.
    pub async fn send_test_event(
        &self,
        subscriber_id: SubscriberId,
        webhook_id: WebhookId,
        data: subscriber_protocol::WebhookTestData,
        now_ms: UnixMillis,
    ) -> StorageResult<TestSend> {
        let data = super::events::StoredEvent::new(&subscriber_protocol::EventData::WebhookTest(data)).data;
        let sent = dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::send_test(connection, subscriber_id, webhook_id, &data, now_ms)).await,
            db => postgres::webhooks::send_test(db, subscriber_id, webhook_id, data, now_ms).await,
        )?;
        if matches!(sent, TestSend::Queued(_)) {
            self.announce(&Change::Deliveries);
        }
        Ok(sent)
    }

    /// Queues the event for the endpoint again, now (a resend), unless its queue is full.
    pub async fn resend(
        &self,
        subscriber_id: SubscriberId,
        webhook_id: WebhookId,
        event_id: EventId,
        now_ms: UnixMillis,
    ) -> StorageResult<Resend> {
        let queued = dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::resend(connection, subscriber_id, webhook_id, event_id, now_ms)).await,
            db => postgres::webhooks::resend(db, subscriber_id, webhook_id, event_id, now_ms).await,
        )?;
        if queued == Resend::Queued {
            self.announce(&Change::Deliveries);
        }
        Ok(queued)
    }

    /// The most deliveries one endpoint's queue holds, for every instance on the database:
    /// events beyond are not queued (recorded as dropped).
    pub async fn limit_webhook_queues(&self, pending_max: u32) -> StorageResult<()> {
        let pending_max = i64::from(pending_max);
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::limit_queues(connection, pending_max)).await,
            db => postgres::webhooks::limit_queues(db, pending_max).await,
        )
    }

    /// Up to `limit` attempts of the endpoint below the attempt id `before` (newest first).
    pub async fn delivery_attempts(
        &self,
        webhook_id: WebhookId,
        before: Option<AttemptId>,
        limit: u32,
    ) -> StorageResult<Vec<LoggedAttempt>> {
        self.fetch_all(&ATTEMPTS, args![webhook_id, before.unwrap_or(AttemptId(i64::MAX)), limit]).await
    }

    /// Claims up to `ask.slots` deliveries due at `ask.now_ms` until `ask.claim_until`: of
    /// each endpoint due and not claimed, the oldest pending event (per endpoint one at a time,
    /// in event order). Costs the endpoints due, not the deliveries waiting: the candidates are
    /// read from one row per endpoint (at most `ask.per_subscriber` of one subscriber, in the
    /// order they fell due), put in order by `order`, and each claimed after a look at its
    /// head; an endpoint whose head is not due yet, or that has none, is moved on. On
    /// PostgreSQL `FOR UPDATE SKIP LOCKED`: instances never claim the same endpoint.
    pub async fn claim_deliveries(&self, ask: ClaimAsk, order: ClaimOrder) -> StorageResult<Vec<DueDelivery>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::claim(connection, &ask, order)).await,
            db => postgres::webhooks::claim(db, ask, order).await,
        )
    }

    /// Moves the end of the claims this instance holds to `until`; the ones it no longer holds
    /// (they ran out and another instance took the endpoint, or the attempt was recorded).
    pub async fn renew_delivery_claims(
        &self,
        held: Vec<HeldClaim>,
        until: UnixMillis,
    ) -> StorageResult<Vec<HeldClaim>> {
        if held.is_empty() {
            return Ok(Vec::new());
        }
        dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::renew(connection, &held, until)).await,
            db => postgres::webhooks::renew(db, held, until).await,
        )
    }

    /// Ends the claims a process before this one left (SQLite, which one process serves: a
    /// crash's claims are free at once). On PostgreSQL claims of other instances are theirs: a
    /// crashed instance's run out by themselves, within seconds.
    pub async fn release_delivery_claims(&self) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(sqlite::webhooks::release_claims).await,
            _db => Ok(()),
        )
    }

    /// When an endpoint falls due next after `now_ms` (a retry, or a claim that runs out):
    /// the first entry of an index.
    pub async fn next_delivery_due(&self, now_ms: UnixMillis) -> StorageResult<Option<UnixMillis>> {
        Ok(self.fetch_one::<Option<UnixMillis>, 1>(Read::Scan, &NEXT_DUE, args![now_ms]).await?.flatten())
    }

    /// Deliveries waiting for an attempt, over every endpoint (one row each).
    pub async fn delivery_queue_depth(&self) -> StorageResult<i64> {
        dispatch!(self,
            db => db.read(sqlite::webhooks::depth).await,
            db => postgres::webhooks::depth(db).await,
        )
    }

    /// One endpoint's queue: its length, limit, next attempt, last error and dropped deliveries.
    pub async fn endpoint_queue(&self, webhook_id: WebhookId) -> StorageResult<EndpointQueue> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::webhooks::endpoint_queue(connection, webhook_id)).await,
            db => postgres::webhooks::endpoint_queue(db, webhook_id).await,
        )
    }

    /// Queues again, due now and in event order, the deliveries of the subscriber's endpoint
    /// that failed for good (dropped ones included) and whose event is from `since_ms` on, as
    /// many as its queue has room for; how many.
    pub async fn recover_deliveries(
        &self,
        subscriber_id: SubscriberId,
        webhook_id: WebhookId,
        since_ms: UnixMillis,
        now_ms: UnixMillis,
    ) -> StorageResult<u64> {
        let queued = dispatch!(self,
            db => db.write(move |connection| sqlite::webhooks::recover(connection, subscriber_id, webhook_id, since_ms, now_ms)).await,
            db => postgres::webhooks::recover(db, subscriber_id, webhook_id, since_ms, now_ms).await,
        )?;
        if queued > 0 {
            self.announce(&Change::Deliveries);
        }
        Ok(queued)
    }

    /// Logs an attempt and, if its claim still stands, moves the queue on: delivered, failed
    /// for good, or due again, and the endpoint free. A run of failures that began before
    /// `disable_before` disables the endpoint; whether it did.
    pub async fn record_attempt(&self, attempt: Attempt, disable_before: UnixMillis) -> StorageResult<bool> {
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

    fn test_data(webhook_id: WebhookId) -> subscriber_protocol::WebhookTestData {
        subscriber_protocol::WebhookTestData { webhook_id, message: "test".to_owned() }
    }

    /// A subscriber with one endpoint for every event, and one event queued for it.
    async fn queued(store: &Store) -> (SubscriberId, WebhookId, EventId) {
        let subscriber = NewSubscriber {
            email: "hooks@example.com".to_owned(),
            client_id: "client".to_owned(),
            public_key: "public".to_owned(),
            secret_hash: "hash".to_owned(),
            created_at: UnixSeconds(0),
            api_version: "2026-11-21".to_owned(),
        };
        let subscriber_id = store.insert_subscriber(subscriber).await.expect("stored").expect("a new subscriber");
        let new = NewWebhook {
            subscriber_id,
            url: "http://127.0.0.1:9/".to_owned(),
            events: "[\"*\"]".to_owned(),
            description: None,
            created_at: UnixSeconds(0),
            api_version: "2026-11-21".to_owned(),
        };
        let webhook = store.create_webhook(new, 20, None).await.expect("stored").expect("under the cap");
        let sent = store
            .send_test_event(subscriber_id, webhook.id, test_data(webhook.id), UnixMillis(0))
            .await
            .expect("queued");
        let TestSend::Queued(event_id) = sent else { panic!("queued: {sent:?}") };
        (subscriber_id, webhook.id, event_id)
    }

    /// Claims whatever is due at `now`, in the candidates' order; the claims.
    async fn claim(store: &Store, now: i64) -> Vec<DueDelivery> {
        let ask = ClaimAsk {
            now_ms: UnixMillis(now),
            claim_until: UnixMillis(now + 5_000),
            slots: 64,
            per_subscriber: 8,
            candidates: 64,
            ..ClaimAsk::default()
        };
        let order: ClaimOrder =
            Box::new(|candidates| candidates.iter().map(|candidate| candidate.webhook_id).collect());
        store.claim_deliveries(ask, order).await.expect("claimed")
    }

    fn failed(webhook_id: WebhookId, event_id: EventId, attempt: u32, at: i64) -> Attempt {
        Attempt {
            webhook_id,
            event_id,
            claim: 0,
            entry: AttemptEntry {
                attempt,
                delivered: false,
                response_status: Some(500),
                duration_ms: 1,
                error: Some("the receiver answered 500".to_owned()),
                at: UnixMillis(at),
                next_attempt_at: Some(UnixMillis(at + HOUR_MS)),
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
        let record = |mut attempt: Attempt, now: i64| {
            let store = store.clone();
            async move {
                let claimed = claim(&store, now).await;
                assert_eq!(claimed.len(), 1, "the delivery is due at {now}");
                attempt.claim = claimed[0].claim;
                store.record_attempt(attempt, UnixMillis(now - three_days)).await.expect("logged")
            }
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
        let again = store.resend(subscriber_id, webhook_id, event_id, UnixMillis(100 * HOUR_MS)).await.expect("queued");
        assert_eq!(again, Resend::Queued);
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
