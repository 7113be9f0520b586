//! A page of a card's or a merchant's transactions (and of a card's sync) as the API answers
//! it, from memory while it is still the answer (`transaction_pages`), else read, rendered and
//! written as the request's version writes it, once. The caller has checked who may read the
//! owner and parsed the query.

use std::future::Future;
use subscriber_protocol::UnixSeconds;

use axum::Extension;
use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use subscriber_protocol::versions::ApiVersion;
use utoipa::ToSchema;

use crate::card_rows::fill_lists;
use crate::error::ApiError;
use crate::paging;
use crate::state::AppState;
use crate::storage;
use crate::storage::transactions::{Filter, Owner, TransactionRow};
use crate::versions::Shaped;

/// Which page of whose, as which version writes it: what a kept page is found by.
pub struct PageKey<'a> {
    pub owner: Owner,
    /// The raw query string: the same query is the same page.
    pub query: Option<&'a str>,
    pub version: ApiVersion,
}

/// The body of a page: kept while `owner` has no newer event and `window_start` (where the
/// 36-month window starts now) has not passed the oldest row read; else `read` gives it as the
/// request's version writes it, with the oldest `created_at` it read, and it is kept. The answer
/// needs no rewriting after (`Shaped`).
async fn kept_page<F, R>(
    state: &AppState,
    key: PageKey<'_>,
    window_start: Option<UnixSeconds>,
    read: F,
) -> Result<Response, ApiError>
where
    F: FnOnce() -> R,
    R: Future<Output = Result<(Bytes, Option<UnixSeconds>), ApiError>>,
{
    let cache_key = format!("{} {}", key.version.as_str(), key.query.unwrap_or_default());
    // Read before the rows: a change committed meanwhile announces a newer event.
    let event = state.events.newest_event_of(&state.db, key.owner).await?;
    let body = match state.transaction_pages.get(key.owner, &cache_key, event, window_start) {
        Some(body) => body,
        None => {
            let (body, oldest_read) = read().await?;
            state.transaction_pages.insert(key.owner, &cache_key, event, oldest_read, body.clone());
            body
        }
    };
    Ok((Extension(Shaped), json(body)).into_response())
}

/// `shell`, an `Answer` whose lists are left empty, as `version` writes it, with `lists` (rows
/// of `Row` written beforehand at that version) put in. When rows look the same at `version`
/// only the shell is rewritten, not the rows.
pub fn filled<Answer, Row>(
    state: &AppState,
    version: ApiVersion,
    shell: Answer,
    lists: &[&[u8]],
) -> Result<Bytes, ApiError>
where
    Answer: Serialize + ToSchema,
    Row: ToSchema,
{
    let shell = serde_json::to_vec(&subscriber_protocol::Success::new(shell)).map_err(ApiError::internal)?;
    let Some(published) = state.versions.get() else {
        return Ok(Bytes::from(fill_lists(&shell, lists)));
    };
    let body = if published.changes::<Row>(version) {
        published.answer_at::<Answer>(version, fill_lists(&shell, lists)).into_owned()
    } else {
        fill_lists(&published.answer_at::<Answer>(version, shell.as_slice()), lists)
    };
    Ok(Bytes::from(body))
}

/// The JSON page of `owner`'s transactions: `limit` rows after the filter's position, each
/// rendered by `row`, assembled by `page` into a `P` and written as the key's version writes a `P`.
pub async fn page<T, P>(
    state: &AppState,
    key: PageKey<'_>,
    filter: Filter,
    limit: u32,
    row: fn(TransactionRow) -> Result<T, ApiError>,
    page: fn(Vec<T>, Option<String>) -> P,
) -> Result<Response, ApiError>
where
    P: Serialize + ToSchema,
{
    let (owner, version) = (key.owner, key.version);
    let window_start = filter.from;
    kept_page(state, key, window_start, || async move {
        let rows = state.db.transactions_page(owner, filter, limit + 1).await?;
        let oldest_read = rows.last().map(|row| row.created_at);
        let (rows, next_cursor) = paging::finish_page(rows, limit);
        let rendered = rows.into_iter().map(row).collect::<Result<Vec<_>, _>>()?;
        let envelope = subscriber_protocol::Success::new(page(rendered, next_cursor));
        let body = serde_json::to_vec(&envelope).map_err(ApiError::internal)?;
        let body = match state.versions.get() {
            Some(published) => published.answer_at::<P>(version, body).into_owned(),
            None => body,
        };
        Ok((Bytes::from(body), oldest_read))
    })
    .await
}

/// A JSON body rendered beforehand.
pub fn json(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

/// Settles the pending transactions whose time has come and wakes their streams.
pub async fn settle_due(state: &AppState) -> Result<usize, storage::StorageError> {
    let now = UnixSeconds::now();
    // A read first, so an idle service does not write every second.
    let next = state.db.next_settlement().await?;
    if next.is_none_or(|due| due > now) {
        return Ok(0);
    }
    let events = state.db.settle_due(now).await?;
    state.events.publish(&events);
    Ok(events.len())
}
