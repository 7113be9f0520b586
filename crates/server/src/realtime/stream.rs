//! The two transaction streams (Server-Sent Events).
//!
//! A stream subscribes to the hub first, then replays from the database what came after the
//! client's `Last-Event-ID`, then follows the hub, skipping any event id it already sent: an
//! event committed while the replay ran arrives by both ways and is sent once. A stream that
//! falls too far behind the hub catches up from the database the same way.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use serde::Deserialize;
use tokio::sync::{broadcast, watch};

use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiQuery, Auth, IdPath};
use crate::state::AppState;
use crate::storage::events::{self, EventKind, EventRow};
use crate::storage::transactions::{Owner, TransactionRow};

/// How often an idle stream sends a comment, so proxies and clients keep the connection.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Events read from the database per query while replaying.
const REPLAY_BATCH: u32 = 500;

pub const LAST_EVENT_ID: &str = "last-event-id";

#[derive(Debug, Default, Deserialize)]
pub struct StreamQuery {
    /// For clients that cannot set the `Last-Event-ID` header.
    #[serde(default, rename = "lastEventId")]
    last_event_id: Option<String>,
}

pub async fn card_stream(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(card_id): IdPath,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<StreamQuery>,
) -> Result<Response, ApiError> {
    let resume_after = resume_point(&headers, &query)?;
    crate::cards::owned_card(&state, auth.subscriber_id, card_id).await?;
    open(state, Owner::Card(card_id), resume_after).await
}

pub async fn merchant_stream(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(merchant_id): IdPath,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<StreamQuery>,
) -> Result<Response, ApiError> {
    let resume_after = resume_point(&headers, &query)?;
    crate::merchants::owned_merchant(&state, auth.subscriber_id, merchant_id).await?;
    open(state, Owner::Merchant(merchant_id), resume_after).await
}

/// The event id to resume after: the header, else the query parameter.
fn resume_point(headers: &HeaderMap, query: &StreamQuery) -> Result<Option<i64>, ApiError> {
    let (field, text) = match headers.get(LAST_EVENT_ID) {
        Some(value) => ("Last-Event-ID", value.to_str().unwrap_or("not text").trim()),
        None => match query.last_event_id.as_deref() {
            Some(text) => ("lastEventId", text.trim()),
            None => return Ok(None),
        },
    };
    if text.is_empty() {
        return Ok(None);
    }
    let mut validation = Validation::new();
    let id = text.parse::<i64>().ok().filter(|id| *id >= 0);
    if id.is_none() {
        validation.reject(field, "must be the id of an event this stream sent (a non-negative integer)");
    }
    validation.finish(id)
}

async fn open(state: AppState, owner: Owner, resume_after: Option<i64>) -> Result<Response, ApiError> {
    let live = state.events.subscribe();
    // A fresh stream starts after the newest event, read after subscribing: anything
    // committed later reaches the subscription. Older transactions are in the list.
    let last_sent = match resume_after {
        Some(id) => id,
        None => state.db.read(events::newest_id).await?,
    };
    let feed = Feed {
        live,
        closed: state.events.closed(),
        state,
        owner,
        greeted: false,
        last_sent,
        replay: resume_after.is_some(),
        queue: VecDeque::new(),
    };
    let mut response = Sse::new(feed.into_stream())
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive"))
        .into_response();
    // Proxies that buffer responses would hold the events back.
    response.headers_mut().insert("x-accel-buffering", axum::http::HeaderValue::from_static("no"));
    Ok(response)
}

struct Feed {
    state: AppState,
    owner: Owner,
    live: broadcast::Receiver<Arc<EventRow>>,
    closed: watch::Receiver<bool>,
    greeted: bool,
    /// The newest event id the client has, or had before it reconnected.
    last_sent: i64,
    /// Read the database before following the hub again.
    replay: bool,
    queue: VecDeque<EventRow>,
}

enum Live {
    Event(Arc<EventRow>),
    Lagged,
    Ended,
}

impl Feed {
    fn into_stream(self) -> impl Stream<Item = Result<Event, Infallible>> + Send {
        futures::stream::unfold(self, |mut feed| async move {
            let event = feed.next().await?;
            Some((Ok(event), feed))
        })
    }

    async fn next(&mut self) -> Option<Event> {
        if !self.greeted {
            // Sent at once, so the client sees the stream open before any transaction.
            self.greeted = true;
            return Some(Event::default().comment("connected"));
        }
        loop {
            if let Some(event) = self.queue.pop_front() {
                if let Some(rendered) = render(self.owner, &event) {
                    return Some(rendered);
                }
                continue;
            }
            let last_sent = self.last_sent;
            if self.replay {
                let owner = self.owner;
                let batch = self
                    .state
                    .db
                    .read(move |connection| events::after(connection, owner, last_sent, REPLAY_BATCH))
                    .await;
                let batch = match batch {
                    Ok(batch) => batch,
                    Err(error) => {
                        tracing::warn!(error = %error, "transaction stream ended: cannot replay events");
                        return None;
                    }
                };
                self.replay = u32::try_from(batch.len()).unwrap_or(u32::MAX) >= REPLAY_BATCH;
                if let Some(newest) = batch.last() {
                    self.last_sent = newest.id;
                }
                self.queue.extend(batch);
                continue;
            }
            let received = tokio::select! {
                biased;
                _ = self.closed.wait_for(|closed| *closed) => Live::Ended,
                received = self.live.recv() => match received {
                    Ok(event) => Live::Event(event),
                    Err(broadcast::error::RecvError::Lagged(_)) => Live::Lagged,
                    Err(broadcast::error::RecvError::Closed) => Live::Ended,
                },
            };
            match received {
                Live::Ended => return None,
                Live::Lagged => self.replay = true,
                Live::Event(event) => {
                    if event.id > last_sent && belongs_to(self.owner, &event.transaction) {
                        self.last_sent = event.id;
                        if let Some(rendered) = render(self.owner, &event) {
                            return Some(rendered);
                        }
                    }
                }
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
fn render(owner: Owner, event: &EventRow) -> Option<Event> {
    let mut transaction = event.transaction.clone();
    transaction.pending = event.kind == EventKind::Created;
    let base = Event::default().event("transaction").id(event.id.to_string());
    // The item itself (not a JSON value) keeps the list's field order.
    let rendered = match owner {
        Owner::Card(_) => crate::cards::card_transaction(transaction).ok().and_then(|item| base.json_data(item).ok()),
        Owner::Merchant(_) => {
            crate::merchants::merchant_transaction(transaction).ok().and_then(|item| base.json_data(item).ok())
        }
    };
    if rendered.is_none() {
        tracing::warn!(event_id = event.id, "transaction event skipped: it cannot be rendered");
    }
    rendered
}
