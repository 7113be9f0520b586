//! A page of a card's or a merchant's transactions as the API answers it, from memory while it
//! is still the answer (`transaction_pages`), else read and rendered once. The caller has
//! checked who may read the owner and parsed the query.

use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::ApiError;
use crate::paging;
use crate::state::AppState;
use crate::storage;
use crate::storage::transactions::{Filter, Owner, TransactionRow};

/// The JSON page of `owner`'s transactions for `query` (the raw query string, the cache key):
/// `limit` rows after the filter's position, each rendered by `row`, assembled by `page`.
pub async fn page<T, P>(
    state: &AppState,
    owner: Owner,
    query: Option<String>,
    filter: Filter,
    limit: u32,
    row: fn(TransactionRow) -> Result<T, ApiError>,
    page: fn(Vec<T>, Option<String>) -> P,
) -> Result<Response, ApiError>
where
    P: Serialize,
{
    let query = query.unwrap_or_default();
    // Read before the rows: a change committed meanwhile announces a newer event.
    let event = state.events.newest_event_of(&state.db, owner).await?;
    let body = match state.transaction_pages.get(owner, &query, event, filter.from) {
        Some(body) => body,
        None => {
            let rows = state.db.transactions_page(owner, filter, limit + 1).await?;
            let oldest_read = rows.last().map(|row| row.created_at);
            let (rows, next_cursor) = paging::finish_page(rows, limit);
            let rendered = rows.into_iter().map(row).collect::<Result<Vec<_>, _>>()?;
            let envelope = subscriber_protocol::Success::new(page(rendered, next_cursor));
            let body = Bytes::from(serde_json::to_vec(&envelope).map_err(ApiError::internal)?);
            state.transaction_pages.insert(owner, &query, event, oldest_read, body.clone());
            body
        }
    };
    Ok(json(body))
}

/// A JSON body rendered beforehand.
pub fn json(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

/// Settles the pending transactions whose time has come and wakes their streams.
pub async fn settle_due(state: &AppState) -> Result<usize, storage::StorageError> {
    let now = chrono::Utc::now().timestamp();
    // A read first, so an idle service does not write every second.
    let next = state.db.next_settlement().await?;
    if next.is_none_or(|due| due > now) {
        return Ok(0);
    }
    let events = state.db.settle_due(now).await?;
    state.events.publish(&events);
    Ok(events.len())
}
