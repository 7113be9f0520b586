//! Incremental sync of a card's transactions (`GET /card/{card_id}/transactions/sync`).
//!
//! Every transaction carries the id of the event that created it and of the last one that
//! changed it (0 for the history no event announced). A cursor is a position in that change
//! order, `<event id>.<transaction id>`: what the client has seen. A row past the cursor is
//! `added` when it was created past it too, else `modified`. Cursors hold no time, so one stays
//! valid as long as the rows do.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde::Deserialize;
use subscriber_protocol::{CardId, CardTransaction, ErrorBody, Success, TransactionSync};

use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiQuery, Auth, IdPath};
use crate::ledger;
use crate::paging;
use crate::state::AppState;
use crate::versions::{RequestVersion, Shaped};

pub const DEFAULT_COUNT: u32 = 100;
pub const MAX_COUNT: u32 = 500;

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SyncQuery {
    /// The `nextCursor` of the previous call; none for the whole history.
    #[serde(default)]
    cursor: Option<String>,
    /// Changes per call (default 100).
    #[serde(default)]
    #[param(minimum = 1, maximum = 500)]
    count: Option<u32>,
}

/// What changed in a card's transactions since a cursor
///
/// From no cursor: the whole 36-month history as `added`, in pages (`hasMore`). From a cursor:
/// the transactions created since (`added`) and those changed since, such as a settlement
/// (`modified`, as they are now), and the ids of those that are gone, such as a reversed
/// authorization (`removed`). Keep `nextCursor` for the next call.
#[utoipa::path(get, path = "/card/{card_id}/transactions/sync", tag = "cards", operation_id = "syncCardTransactions",
    params(("card_id" = i64, Path, description = "A cardId of the caller.", minimum = 1), SyncQuery),
    responses(
        (status = 200, description = "The changes since the cursor.", body = Success<TransactionSync>),
        (status = 400, description = "The cursor or count is not valid.", body = ErrorBody),
        (status = 404, description = "No such card of the caller.", body = ErrorBody),
    ))]
pub async fn sync(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(card_id): IdPath<CardId>,
    version: RequestVersion,
    ApiQuery(query): ApiQuery<SyncQuery>,
) -> Result<Response, ApiError> {
    let mut validation = Validation::new();
    let after = query
        .cursor
        .as_deref()
        .filter(|cursor| !cursor.is_empty())
        .and_then(|cursor| paging::decode_cursor(cursor, &mut validation));
    let count = match query.count {
        None => DEFAULT_COUNT,
        Some(count) if (1..=MAX_COUNT).contains(&count) => count,
        Some(_) => {
            validation.reject("count", format!("must be from 1 to {MAX_COUNT}"));
            DEFAULT_COUNT
        }
    };
    validation.finish(())?;
    // Who may read comes first: kept pages hold no permissions.
    let card = super::readable_card(&state, auth.subscriber_id, card_id, super::Shown::Rows).await?;
    let position = after.unwrap_or((0, 0));
    let from = paging::history_start(Utc::now());
    let rows = super::card_rows_at(&state, card_id, card.event).await?;
    let cut = rows.sync(position, from, count);
    // Reversed authorizations since the cursor, up to where this page ends (the rest come with
    // the pages after); on the last page the cursor moves past the newest.
    let upto = cut.has_more.then_some(cut.next.0);
    let removed = state.db.removed_after(card_id, position.0, upto).await?;
    let mut next = cut.next;
    if let Some(&(_, newest)) = removed.last()
        && !cut.has_more
        && newest > next.0
    {
        // No row has a removal's position (each is an event of its own), so none is skipped.
        next = (newest, 0);
    }
    let shell = TransactionSync {
        added: Vec::new(),
        modified: Vec::new(),
        removed: removed.into_iter().map(|(id, _)| id).collect(),
        next_cursor: paging::encode_cursor(next.0, next.1),
        has_more: cut.has_more,
    };
    let body = ledger::filled::<TransactionSync, CardTransaction>(
        &state,
        version.version,
        shell,
        &[&cut.added, &cut.modified],
    )?;
    Ok((axum::Extension(Shaped), ledger::json(body)).into_response())
}
