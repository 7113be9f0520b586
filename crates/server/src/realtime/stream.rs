//! The two transaction streams (Server-Sent Events).
//!
//! A stream subscribes to the hub first, then replays from the database what came after the
//! client's `Last-Event-ID`, then waits for the hub to say its card or merchant has new events
//! and reads them from the database, after the last it sent: each once, in id order, whichever
//! instance committed them.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use subscriber_protocol::EventId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::{CardId, MerchantId};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use subscriber_protocol::versions::ApiVersion;
use subscriber_protocol::{CardTransaction, ErrorBody, MerchantTransaction};
use tokio::sync::{broadcast, watch};
use utoipa::ToSchema;

use crate::events::{StreamsFull, Wake};

use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiQuery, Auth, IdPath};
use crate::state::AppState;
use crate::storage::events::{EventKind, EventRow};
use crate::storage::transactions::{Owner, TransactionRow};
use crate::versions::{Published, RequestVersion};

/// How often an idle stream sends a comment, so proxies and clients keep the connection.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Events read from the database per query while replaying.
const REPLAY_BATCH: u32 = 500;

pub const LAST_EVENT_ID: &str = "last-event-id";

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// The id of the last event the client has, for clients that cannot set the
    /// `Last-Event-ID` header: the stream replays what came after it.
    #[serde(default, rename = "lastEventId")]
    #[param(value_type = Option<String>, pattern = "^(evt_)?[0-9]{1,18}$", example = "evt_42")]
    last_event_id: Option<String>,
}

/// What both streams send; the body is `text/event-stream`, not JSON.
const STREAM_DESCRIPTION: &str = "An endless `text/event-stream`: one `event: transaction` per new \
    point-of-sale transaction, with `id:` (the event's id, as `GET /events` lists it) and the transaction list item as \
    `data:`; a transaction that settles is sent again with `pending: false`. A comment every 15 s keeps \
    the connection open. Read it as it comes, with a Server-Sent Events client (a browser's `EventSource`, \
    openapi-fetch with `parseAs: \"stream\"`, httpx's streaming in Python): a call that waits for the whole \
    answer never returns.";

/// A card's transactions as they happen (Server-Sent Events)
///
/// Stays open: each new or settled transaction of the card arrives as an event. On reconnection
/// send `Last-Event-ID` to receive what was missed. At most 10 streams per subscriber.
#[utoipa::path(get, path = "/card/{card_id}/transactions/stream", tag = "realtime",
    operation_id = "streamCardTransactions",
    params(("card_id" = i64, Path, description = "A cardId of the caller.", minimum = 1),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event id (`evt_…`).", pattern = "^(evt_)?[0-9]{1,18}$"),
        StreamQuery),
    responses(
        (status = 200, description = STREAM_DESCRIPTION, content_type = "text/event-stream", body = String),
        (status = 404, description = "No such card of the caller.", body = ErrorBody),
    ))]
pub async fn card_stream(
    State(state): State<AppState>,
    auth: Auth,
    version: RequestVersion,
    IdPath(card_id): IdPath<CardId>,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<StreamQuery>,
) -> Result<Response, ApiError> {
    let resume_after = resume_point(&headers, &query)?;
    crate::cards::owned_card(&state, auth.subscriber_id, card_id).await?;
    open(state, &auth, Owner::Card(card_id), version.version, resume_after).await
}

/// Transactions at the caller's merchant as they happen (Server-Sent Events)
///
/// Stays open: each new or settled sale at the merchant's locations arrives as an event. On
/// reconnection send `Last-Event-ID` to receive what was missed.
#[utoipa::path(get, path = "/merchant/{merchant_id}/transactions/stream", tag = "realtime",
    operation_id = "streamMerchantTransactions",
    params(("merchant_id" = i64, Path, description = "The caller's merchantId.", minimum = 1),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event id (`evt_…`).", pattern = "^(evt_)?[0-9]{1,18}$"),
        StreamQuery),
    responses(
        (status = 200, description = STREAM_DESCRIPTION, content_type = "text/event-stream", body = String),
        (status = 404, description = "No such merchant of the caller.", body = ErrorBody),
    ))]
pub async fn merchant_stream(
    State(state): State<AppState>,
    auth: Auth,
    version: RequestVersion,
    IdPath(merchant_id): IdPath<MerchantId>,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<StreamQuery>,
) -> Result<Response, ApiError> {
    let resume_after = resume_point(&headers, &query)?;
    crate::merchants::owned_merchant(&state, auth.subscriber_id, merchant_id).await?;
    open(state, &auth, Owner::Merchant(merchant_id), version.version, resume_after).await
}

/// The event id to resume after: the header, else the query parameter.
fn resume_point(headers: &HeaderMap, query: &StreamQuery) -> Result<Option<EventId>, ApiError> {
    // Both are checked when both are sent: a bad value is an error even where the other wins.
    let mut validation = Validation::new();
    let header = headers
        .get(LAST_EVENT_ID)
        .and_then(|value| event_id("Last-Event-ID", value.to_str().unwrap_or("not text"), &mut validation));
    let query = query.last_event_id.as_deref().and_then(|text| event_id("lastEventId", text, &mut validation));
    Ok(validation.finish(header.or(query))?)
}

/// An event id as sent (an EventSource with no id sends no header rather than an empty one).
fn event_id(field: &str, text: &str, validation: &mut Validation) -> Option<EventId> {
    let text = text.trim();
    let id = crate::events::parse_stream_id(text);
    if id.is_none() {
        validation.reject(field, "must be the id of an event this stream sent (\"evt_\" and digits)");
    }
    id
}

/// Seconds a client refused an 11th stream is told to wait.
const STREAMS_FULL_RETRY_SECONDS: u64 = 5;

async fn open(
    state: AppState,
    auth: &Auth,
    owner: Owner,
    version: ApiVersion,
    resume_after: Option<EventId>,
) -> Result<Response, ApiError> {
    let slot = state.events.claim_stream(&state.db, auth.subscriber_id).await.map_err(|full| match full {
        StreamsFull::Subscriber => ApiError::RateLimited { retry_after_seconds: STREAMS_FULL_RETRY_SECONDS },
        StreamsFull::Instance => ApiError::Unavailable {
            message: "this instance holds as many streams as it may: try again shortly".to_owned(),
            retry_after_seconds: STREAMS_FULL_RETRY_SECONDS,
        },
    })?;
    let ended = token_ends(&state, auth);
    let feed = Feed::subscribe(state, auth.subscriber_id, owner, resume_after).await?.at(version);
    // The slot lives as long as the stream does.
    let events = feed.into_stream().take_until(ended).map(move |event| {
        let _open = &slot;
        event
    });
    let mut response =
        Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive")).into_response();
    // Proxies that buffer responses would hold the events back.
    response.headers_mut().insert("x-accel-buffering", axum::http::HeaderValue::from_static("no"));
    Ok(response)
}

/// Resolves when the stream's token stops working: at its expiry, or when its subscriber
/// rotates the secret. A client reconnecting with it then gets the 401.
fn token_ends(state: &AppState, auth: &Auth) -> impl Future<Output = ()> + Send + 'static {
    let generation = auth.generation;
    let revoked = state.generations.watch(auth.subscriber_id);
    let expires_at = UNIX_EPOCH + Duration::from_secs(u64::try_from(auth.expires_at.get()).unwrap_or(0));
    let expires_in = expires_at.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO);
    async move {
        let rotated = async move {
            match revoked {
                // An error means the generations were dropped: the service is stopping.
                Some(mut revoked) => drop(revoked.wait_for(|current| *current != generation).await),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = tokio::time::sleep(expires_in) => {}
            () = rotated => {}
        }
    }
}

struct Feed {
    state: AppState,
    subscriber_id: SubscriberId,
    owner: Owner,
    /// The version its events are written in (the request's).
    version: ApiVersion,
    live: broadcast::Receiver<Wake>,
    closed: watch::Receiver<bool>,
    /// The newest event id the client has, or had before it reconnected.
    last_sent: EventId,
    /// Read the database before waiting on the hub again.
    replay: bool,
    queue: VecDeque<Arc<EventRow>>,
}

impl Feed {
    async fn subscribe(
        state: AppState,
        subscriber_id: SubscriberId,
        owner: Owner,
        resume_after: Option<EventId>,
    ) -> Result<Self, ApiError> {
        let live = state.events.subscribe();
        // A fresh stream starts after the owner's newest event, read after subscribing: anything
        // committed later wakes the subscription. Older transactions are in the list.
        let last_sent = match resume_after {
            Some(id) => id,
            None => state.db.newest_transaction_event(owner).await?,
        };
        Ok(Self {
            live,
            closed: state.events.closed(),
            state,
            subscriber_id,
            owner,
            version: ApiVersion::LATEST,
            last_sent,
            replay: resume_after.is_some(),
            queue: VecDeque::new(),
        })
    }

    /// The feed with its events written as `version` writes them.
    fn at(self, version: ApiVersion) -> Self {
        Self { version, ..self }
    }

    /// A comment first, sent at once so the client sees the stream open, then the events.
    fn into_stream(self) -> impl Stream<Item = Result<Event, Infallible>> + Send {
        let greeting = futures::stream::once(std::future::ready(Ok(Event::default().comment("connected"))));
        let owner = self.owner;
        let events = futures::stream::unfold(self, move |mut feed| async move {
            loop {
                let event = feed.next_event().await?;
                if let Some(rendered) = render(&feed.state, owner, feed.version, &event).await {
                    return Some((Ok(rendered), feed));
                }
            }
        });
        greeting.chain(events)
    }

    /// The next event for this stream, in id order, each once; `None` when the stream ends.
    async fn next_event(&mut self) -> Option<Arc<EventRow>> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(event);
            }
            if self.replay {
                let batch = self
                    .state
                    .db
                    .transaction_events_after(self.subscriber_id, self.owner, self.last_sent, REPLAY_BATCH)
                    .await;
                let batch = match batch {
                    Ok(batch) => batch,
                    Err(error) => {
                        tracing::warn!(error = %error, "transaction stream ended: cannot read events");
                        return None;
                    }
                };
                self.replay = u32::try_from(batch.len()).unwrap_or(u32::MAX) >= REPLAY_BATCH;
                if let Some(newest) = batch.last() {
                    self.last_sent = newest.id;
                }
                self.queue
                    .extend(batch.into_iter().filter(|event| belongs_to(self.owner, &event.transaction)).map(Arc::new));
                continue;
            }
            let woken = tokio::select! {
                biased;
                _ = self.closed.wait_for(|closed| *closed) => return None,
                woken = self.live.recv() => woken,
            };
            match woken {
                Ok(Wake::Reset(subscriber_id)) if subscriber_id == self.subscriber_id => return None,
                Ok(Wake::Removed(owner)) if owner == self.owner => return None,
                Ok(Wake::Removed(_)) => {}
                Ok(Wake::Owner(owner)) if owner != self.owner => {}
                Ok(Wake::Reset(_)) => {}
                // Its owner has new events, any owner may have, or it fell behind the hub:
                // the database has them.
                Ok(Wake::Owner(_) | Wake::All) | Err(broadcast::error::RecvError::Lagged(_)) => self.replay = true,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

fn belongs_to(owner: Owner, transaction: &TransactionRow) -> bool {
    match owner {
        Owner::Card(card_id) => transaction.card_id == Some(card_id),
        Owner::Merchant(merchant_id) => transaction.merchant_id == Some(merchant_id),
    }
}

/// The list item as the event's data, as it was at the event: pending when created, not
/// pending once settled (a replayed creation is shown pending even if it has settled since).
async fn render(state: &AppState, owner: Owner, version: ApiVersion, event: &EventRow) -> Option<Event> {
    let mut transaction = event.transaction.clone();
    transaction.pending = event.kind == EventKind::Created;
    // The item itself (not a JSON value) keeps the list's field order; then as the stream's
    // version writes it, as the list does.
    let published = state.versions.get();
    let written = match owner {
        Owner::Card(_) => {
            let item = crate::cards::shown_card_transaction(state, transaction).await.ok();
            item.and_then(|item| item_json_at::<CardTransaction>(published, version, &item))
        }
        Owner::Merchant(_) => {
            let item = crate::merchants::merchant_transaction(transaction).ok();
            item.and_then(|item| item_json_at::<MerchantTransaction>(published, version, &item))
        }
    };
    let rendered = written.and_then(|written| {
        let data = String::from_utf8(written).ok()?;
        Some(Event::default().event("transaction").id(crate::events::public_id(event.id)).data(data))
    });
    if rendered.is_none() {
        tracing::warn!(event_id = event.id.get(), "transaction event skipped: it cannot be rendered");
    }
    rendered
}

/// A list item as JSON, as `version` writes it (as it is when the versions are not published).
fn item_json_at<T: Serialize + ToSchema>(
    published: Option<&Published>,
    version: ApiVersion,
    item: &T,
) -> Option<Vec<u8>> {
    let item = serde_json::to_vec(item).ok()?;
    Some(match published {
        Some(published) => published.answer_at::<T>(version, item).into_owned(),
        None => item,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use crate::storage;
    use subscriber_protocol::TransactionId;
    use subscriber_protocol::UnixSeconds;

    fn purchase(card_id: CardId) -> TransactionRow {
        TransactionRow {
            id: TransactionId(0),
            card_id: Some(card_id),
            last_four: 4242,
            created_at: UnixSeconds(1),
            pending: true,
            settles_at: Some(UnixSeconds(61)),
            amount_minor: 1234,
            currency: "USD".to_owned(),
            merchant_name: "Test Shop".to_owned(),
            descriptor: "TEST SHOP".to_owned(),
            category: "5812".to_owned(),
            street: "Main St".to_owned(),
            street_no: "1".to_owned(),
            city: "Boston".to_owned(),
            country: "USA".to_owned(),
            zip: "02134".to_owned(),
            directory_id: None,
            merchant_id: None,
            location_id: None,
            refund_of: None,
        }
    }

    /// A subscriber with two cards.
    async fn two_cards(state: &AppState) -> (SubscriberId, (CardId, CardId)) {
        let subscriber = storage::subscribers::NewSubscriber {
            email: "stream@example.com".to_owned(),
            client_id: "client".to_owned(),
            public_key: "public".to_owned(),
            secret_hash: "hash".to_owned(),
            created_at: UnixSeconds(0),
            api_version: "2026-11-21".to_owned(),
        };
        let subscriber_id = state.db.insert_subscriber(subscriber).await.expect("stored").expect("a new subscriber");
        let mut ids = Vec::new();
        for fingerprint in [1_u8, 2_u8] {
            let card = storage::cards::NewCard {
                subscriber_id,
                fingerprint: vec![fingerprint],
                enrolled: storage::cards::EnrolledCard {
                    last_four: 4242,
                    brand: "visa".to_owned(),
                    first_name: "A".to_owned(),
                    last_name: "B".to_owned(),
                    exp_month: 12,
                    exp_year: 2030,
                    country_code: "USA".to_owned(),
                    enrolled_at: UnixSeconds(0),
                },
                labels: subscriber_protocol::rules::labels::Labels::default(),
                history: Vec::new(),
                event_data: Box::new(|card_id| {
                    let data = subscriber_protocol::CardEnrolledData {
                        card_id,
                        last_four: 4242,
                        brand: "visa".into(),
                        client_user_id: None,
                        metadata: subscriber_protocol::Metadata::new(),
                    };
                    storage::events::StoredEvent::new(&subscriber_protocol::EventData::CardEnrolled(data))
                }),
            };
            match state.db.enroll_card(card, None).await.expect("stored") {
                storage::cards::Inserted::Created(id) => ids.push(id),
                storage::cards::Inserted::Duplicate(_) => panic!("card exists"),
            }
        }
        (subscriber_id, (ids[0], ids[1]))
    }

    /// Records `count` purchases by each card, interleaved, each announced as a sale is; returns
    /// the ids of the first card's.
    async fn buy_many(state: &AppState, (mine, other): (CardId, CardId), count: usize) -> Vec<TransactionId> {
        let mut bought = Vec::new();
        for card_id in (0..count).flat_map(|_| [mine, other]) {
            let (row, event) = state.db.record_sale(purchase(card_id), UnixSeconds(1), None).await.expect("a purchase");
            state.events.publish(&event.into_iter().collect::<Vec<_>>());
            if card_id == mine {
                bought.push(row.id);
            }
        }
        bought
    }

    async fn take(feed: &mut Feed, count: usize) -> Vec<Arc<EventRow>> {
        let mut taken = Vec::with_capacity(count);
        for _ in 0..count {
            let event = tokio::time::timeout(Duration::from_secs(10), feed.next_event()).await;
            taken.push(event.expect("an event in time").expect("the stream goes on"));
        }
        taken
    }

    fn transaction_ids(events: &[Arc<EventRow>]) -> Vec<TransactionId> {
        events.iter().map(|event| event.transaction.id).collect()
    }

    #[tokio::test]
    async fn a_stream_that_falls_behind_the_hub_catches_up_without_loss_or_repeats() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let state = AppState::new(Config::sandbox(dir.path().join("db.sqlite3"))).await.expect("state");
        let (subscriber_id, cards) = two_cards(&state).await;
        let mut feed = Feed::subscribe(state.clone(), subscriber_id, Owner::Card(cards.0), None).await.expect("stream");

        // More than the hub holds, while the stream is not read: it lags.
        let expected = buy_many(&state, cards, crate::events::CAPACITY + 300).await;
        let received = take(&mut feed, expected.len()).await;
        assert_eq!(transaction_ids(&received), expected, "every purchase of the card, once, in order");
        assert!(received.windows(2).all(|pair| pair[0].id < pair[1].id));

        // Then it follows live again.
        let next = buy_many(&state, cards, 2).await;
        assert_eq!(transaction_ids(&take(&mut feed, 2).await), next);
        assert!(tokio::time::timeout(Duration::from_millis(200), feed.next_event()).await.is_err(), "nothing more");
    }

    #[tokio::test]
    async fn a_resumed_stream_replays_then_follows_live_once() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let state = AppState::new(Config::sandbox(dir.path().join("db.sqlite3"))).await.expect("state");
        let (subscriber_id, cards) = two_cards(&state).await;
        let before = buy_many(&state, cards, 3).await;
        // Subscribed but not yet replayed: purchases committed now reach the stream both from
        // the database and from the hub.
        let mut feed = Feed::subscribe(state.clone(), subscriber_id, Owner::Card(cards.0), Some(EventId(0)))
            .await
            .expect("stream");
        let during = buy_many(&state, cards, 3).await;
        assert_eq!(transaction_ids(&take(&mut feed, 6).await), [before, during].concat());
        assert!(tokio::time::timeout(Duration::from_millis(200), feed.next_event()).await.is_err(), "no repeats");
    }
}
