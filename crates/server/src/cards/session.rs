//! Secure card entry (the spec's "secure website interface"): `POST /card/session` opens a
//! one-time page of the service where a person types the card; `GET /card/session/<id>`
//! tells the subscriber how it went. The session's states and moves (pending → completed with
//! a card, or expired by time or by too many rejected submissions) are here; the page itself,
//! a view over them, is `crate::hosted::card`.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{
    CardSession, CardSessionCompletedData, CardSessionCreated, CardSessionExpiredData, CardSessionId,
    CardSessionStatus, CreateCardSessionRequest, ErrorBody, EventData, Success,
};

use crate::error::ApiError;
use crate::http::extract::{ApiJsonOrEmpty, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::labels;
use crate::link_token::{self, OpeningPage};
use crate::paging;
use crate::return_url;
use crate::state::AppState;
use crate::storage::card_sessions::CardSessionRow;
use crate::storage::cards::{Inserted, NewCard, SessionEvent};
use crate::storage::events::StoredEvent;

/// Where the card-entry page lives; its link carries the session's token as `session`.
pub const PAGE_PATH: &str = "/secure/card";

/// Submissions a page takes before it closes: enough for typos, too few to try out numbers.
pub const MAX_FAILED_SUBMISSIONS: u32 = 10;

pub fn status_of(row: &CardSessionRow, now: UnixSeconds) -> CardSessionStatus {
    if row.completed_at.is_some() {
        CardSessionStatus::Completed
    } else if now >= row.expires_at {
        CardSessionStatus::Expired
    } else {
        CardSessionStatus::Pending
    }
}

/// Opens a one-time card-entry page
///
/// A page of the service, valid 15 minutes, where a person types the card; the card is enrolled
/// for the caller when the page is submitted. The body may be left out; with `returnUrl`, the
/// page ends with a link back to it carrying `sessionId` and `status`.
#[utoipa::path(post, path = "/card/session", tag = "cards", operation_id = "createCardSession",
    request_body(content = Option<CreateCardSessionRequest>, description = "Optional: `returnUrl`."),
    responses(
        (status = 201, description = "The page's address (`url`) and expiry.", body = Success<CardSessionCreated>),
        (status = 400, description = "`returnUrl` begins with none of the registered return URLs.", body = ErrorBody),
        (status = 409, description = "The Idempotency-Key was used with another body.", body = ErrorBody),
    ))]
pub async fn create(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    ApiJsonOrEmpty(request): ApiJsonOrEmpty<CreateCardSessionRequest>,
) -> Result<Response, ApiError> {
    let labels = labels::sent(request.client_user_id.as_deref(), request.metadata.as_ref())?;
    let return_url = return_url::for_page(&state, auth.subscriber_id, request.return_url.as_deref()).await?;
    let opening = OpeningPage::new(UnixSeconds::now(), state.config.hosted_session_seconds);
    let expires_at_time = paging::checked_time(opening.expires_at)?;
    let url = opening.url(&state.public_url(), PAGE_PATH, "session");
    let subscriber_id = auth.subscriber_id;
    let response_url = url.clone();
    let replay = idempotent.replay(move |session_id| CardSessionCreated {
        session_id,
        url: response_url.clone(),
        expires_at: expires_at_time,
        status: CardSessionStatus::Pending,
    });
    let page = opening.into_token_page(subscriber_id, return_url, labels);
    let session_id = state.db.open_card_session(page, replay).await?;
    tracing::info!(session_id = session_id.get(), subscriber_id = subscriber_id.get(), "card-entry page opened");
    let body = CardSessionCreated { session_id, url, expires_at: expires_at_time, status: CardSessionStatus::Pending };
    Ok(idempotent.created(body))
}

/// How a card-entry page went
///
/// Poll this until `completed` (then `cardId` is set) or `expired`.
#[utoipa::path(get, path = "/card/session/{session_id}", tag = "cards", operation_id = "getCardSession",
    params(("session_id" = i64, Path, description = "A sessionId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "How the card entry went.", body = Success<CardSession>),
        (status = 404, description = "No such session of the caller.", body = ErrorBody),
    ))]
pub async fn status(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(session_id): IdPath<CardSessionId>,
) -> Result<Json<Success<CardSession>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let row =
        state.db.card_session(subscriber_id, session_id).await?.ok_or_else(|| {
            ApiError::not_found(format!("no card session {session_id} was opened by this subscriber"))
        })?;
    let now = UnixSeconds::now();
    let status = status_of(&row, now);
    if status == CardSessionStatus::Expired {
        note_expired(&state, &row).await?;
    }
    Ok(Json(Success::new(CardSession {
        session_id: row.id,
        status,
        card_id: row.card_id,
        expires_at: paging::checked_time(row.expires_at)?,
    })))
}

/// The session a link's token opens, with its state now; `None` for a token of no session.
pub async fn find_by_link(
    state: &AppState,
    link_token: &str,
) -> Result<Option<(CardSessionRow, CardSessionStatus)>, ApiError> {
    let token_hash = link_token::hash(link_token);
    let row = state.db.card_session_by_token(token_hash.to_vec()).await?;
    let now = UnixSeconds::now();
    Ok(row.map(|row| {
        let status = status_of(&row, now);
        (row, status)
    }))
}

/// Enrolls the page's card and completes the session in one transaction; `None` when the
/// session closed meanwhile (a second submission of the same page, however close, finds it
/// closed).
pub async fn complete(
    state: &AppState,
    session_id: CardSessionId,
    card: NewCard,
) -> Result<Option<Inserted>, ApiError> {
    let now = UnixSeconds::now();
    let completed: SessionEvent = Box::new(move |card_id| {
        StoredEvent::new(&EventData::CardSessionCompleted(CardSessionCompletedData {
            session_id,
            card_id: Some(card_id),
        }))
    });
    Ok(state.db.enroll_card_from_session(session_id, card, now, completed).await?)
}

/// Records `card_session.expired` for a session found past its expiry (there is no sweep of
/// sessions: a read of it, its page opened, or the rejection that closed it finds it), once.
pub async fn note_expired(state: &AppState, row: &CardSessionRow) -> Result<(), ApiError> {
    let event = StoredEvent::new(&EventData::CardSessionExpired(CardSessionExpiredData { session_id: row.id }));
    let now = UnixSeconds::now();
    if state.db.record_card_session_expiry(row.subscriber_id, row.id, now, event).await? {
        tracing::info!(session_id = row.id.get(), "card-entry page expired");
    }
    Ok(())
}

/// Counts a rejected submission; `true` when the session is still open for another try,
/// `false` when this one closed it.
pub async fn record_rejection(state: &AppState, session_id: CardSessionId) -> Result<bool, ApiError> {
    let now = UnixSeconds::now();
    let attempts = state.db.record_card_session_failure(session_id, MAX_FAILED_SUBMISSIONS, now).await?;
    Ok(attempts < MAX_FAILED_SUBMISSIONS)
}
