//! The event log: `GET /events` and `GET /events/{event_id}`, and the one rendering of a
//! stored event that the log and webhook deliveries share.

use axum::Json;
use axum::extract::{Path, State};
use std::time::Duration;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{
    CardTransactionEventData, ErrorBody, Event, EventData, EventPage, EventQuery, EventType,
    MerchantTransactionEventData, Success, TransactionEventData,
};
use utoipa_axum::routes;

use crate::error::{ApiError, Validation};
use crate::events::{parse_public_id, public_id};
use crate::http::extract::{ApiQuery, Auth};
use crate::http::routes::Routes;
use crate::paging::{self, Bound};
use crate::state::AppState;
use crate::storage::events::{EventKind, LogFilter, LoggedEvent};

/// How far back the log lists.
pub const LOG_DAYS: u64 = 30;
/// How long the log keeps an event.
pub const LOG_KEPT: Duration = Duration::from_secs(LOG_DAYS * 86_400);

pub fn routes(api: Routes) -> Routes {
    api.api(routes!(list)).api(routes!(one))
}

/// An event as the API shows it to its recipient.
pub async fn render(state: &AppState, event: LoggedEvent) -> Result<Event, ApiError> {
    let created_at = paging::checked_time(event.created_at)?;
    let event_type = EventType::parse(&event.event_type)
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("unknown event type {:?} in the log", event.event_type)))?;
    let payload = match event.transaction {
        Some(mut transaction) => {
            // As it was at the event: pending when created, settled once updated.
            transaction.pending = event_type == EventKind::Created.event_type();
            let transaction_id = transaction.id;
            let data = match (event.readers_card, event.card_id) {
                (true, Some(card_id)) => TransactionEventData::Card(CardTransactionEventData {
                    transaction_id,
                    card_id,
                    merchant_id: event.merchant_id,
                    transaction: crate::cards::shown_card_transaction(state, transaction).await?,
                }),
                _ => TransactionEventData::Merchant(MerchantTransactionEventData {
                    transaction_id,
                    merchant_id: event.merchant_id,
                    transaction: crate::merchants::merchant_transaction(transaction)?,
                }),
            };
            match event_type {
                EventType::TransactionUpdated => EventData::TransactionUpdated(data),
                _ => EventData::TransactionCreated(data),
            }
        }
        None => EventData::from_parts(event_type, event.data.as_deref().unwrap_or("{}")).map_err(ApiError::internal)?,
    };
    Ok(Event { id: public_id(event.id), created_at, payload, sandbox: event.sandbox.then_some(true) })
}

/// The caller's events of the last 30 days, newest first
///
/// Every change the caller can observe (`card.enrolled`, `transaction.created`, …), the same events
/// webhooks receive. Filtered by `type` and `since`, paged with `limit` and `cursor`.
#[utoipa::path(get, path = "/events", tag = "events", operation_id = "listEvents",
    params(EventQuery),
    responses(
        (status = 200, description = "A page of events; `nextCursor` is null on the last.", body = Success<EventPage>),
        (status = 400, description = "A parameter is not valid.", body = ErrorBody),
    ))]
async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ApiQuery(query): ApiQuery<EventQuery>,
) -> Result<Json<Success<EventPage>>, ApiError> {
    let mut validation = Validation::new();
    if let Some(event_type) = &query.event_type
        && EventType::parse(event_type).is_none()
    {
        validation.reject("type", format!("must be one of {}", subscriber_protocol::EVENT_TYPES.join(", ")));
    }
    let since =
        query.since.as_deref().and_then(|text| paging::parse_time_bound("since", text, Bound::Start, &mut validation));
    let before_id = query.cursor.as_deref().filter(|text| !text.is_empty()).and_then(|text| {
        let id = parse_public_id(text);
        if id.is_none() {
            validation.reject("cursor", "is not a cursor this service issued: pass next_cursor from the previous page");
        }
        id
    });
    let limit = paging::page_limit(query.limit, &mut validation);
    validation.finish(())?;
    let oldest = UnixSeconds::now().minus(LOG_KEPT);
    let filter = LogFilter {
        event_type: query.event_type,
        since: Some(since.map_or(oldest, |since| since.max(oldest))),
        before_id,
    };
    let subscriber_id = auth.subscriber_id;
    let rows = state.db.events(subscriber_id, filter, limit.saturating_add(1)).await?;
    let (rows, next_cursor) = paging::split_page(rows, limit, |row| public_id(row.id));
    let mut events = Vec::with_capacity(rows.len());
    for row in rows {
        events.push(render(&state, row).await?);
    }
    Ok(Json(Success::new(EventPage { events, next_cursor })))
}

/// One of the caller's events
///
/// An event by its id (`evt_…`), as a webhook delivery or a stream names it.
#[utoipa::path(get, path = "/events/{event_id}", tag = "events", operation_id = "getEvent",
    params(("event_id" = String, Path, description = "An event id (`evt_…`) of the caller.", pattern = "^evt_[0-9]{1,18}$")),
    responses(
        (status = 200, description = "The event.", body = Success<Event>),
        (status = 404, description = "No such event of the caller.", body = ErrorBody),
    ))]
async fn one(
    State(state): State<AppState>,
    auth: Auth,
    Path(event_id): Path<String>,
) -> Result<Json<Success<Event>>, ApiError> {
    let not_found = || ApiError::not_found("no such event of this subscriber");
    let id = parse_public_id(&event_id).ok_or_else(not_found)?;
    let subscriber_id = auth.subscriber_id;
    let row = state.db.event(subscriber_id, id).await?.ok_or_else(not_found)?;
    Ok(Json(Success::new(render(&state, row).await?)))
}
