//! Identity verification by the person themselves: `POST /persons/{personId}/session` opens a
//! one-time page of the service (`crate::hosted::identity`) where the person tells about
//! themselves and answers the questions on their own device. The subscriber sees only the
//! outcome; the page runs the same question sets, attempts and lock as the API.

use axum::extract::State;
use axum::response::Response;
use subscriber_protocol::PersonId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CreatePersonSessionRequest, ErrorBody, PersonSessionResponse, Success};

use super::{identity_source, owned_person};
use crate::error::ApiError;
use crate::http::extract::{ApiJsonOrEmpty, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::link_token::OpeningPage;
use crate::paging;
use crate::return_url;
use crate::state::AppState;
use crate::storage::person_sessions::NewPersonSession;

/// The person's identity page; its link carries the page's token as `session`.
pub const PAGE_PATH: &str = "/secure/identity";

/// Opens a one-time identity page for the person
///
/// Open `url` in the person's browser: they enter their personal information and answer the
/// questions there, on their own device. You see only the outcome (`GET /persons/{personId}`,
/// `person.verified`, `person.locked`), never what they typed or answered. The page works
/// once, for 15 minutes; with `returnUrl` it ends with a link back carrying `sessionId` and
/// `status`. Outside the sandbox this answers 501 `not_configured` until an identity source is
/// configured.
#[utoipa::path(post, path = "/persons/{person_id}/session", tag = "persons", operation_id = "createPersonSession",
    params(("person_id" = i64, Path, description = "A personId of the caller.", minimum = 1)),
    request_body(content = Option<CreatePersonSessionRequest>, description = "Optional: `returnUrl`."),
    responses(
        (status = 201, description = "The page's address (`url`) and expiry.", body = Success<PersonSessionResponse>),
        (status = 400, description = "`returnUrl` begins with none of the registered return URLs.", body = ErrorBody),
        (status = 404, description = "No such person of the caller.", body = ErrorBody),
        (status = 409, description = "The person is already verified, or the Idempotency-Key was used with another \
            body.", body = ErrorBody),
        (status = 501, description = "No identity source is configured in this environment (`not_configured`).",
            body = ErrorBody),
    ))]
pub async fn create(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(person_id): IdPath<PersonId>,
    idempotent: Idempotent,
    ApiJsonOrEmpty(request): ApiJsonOrEmpty<CreatePersonSessionRequest>,
) -> Result<Response, ApiError> {
    identity_source(&state)?;
    let subscriber_id = auth.subscriber_id;
    let person = owned_person(&state, subscriber_id, person_id).await?;
    if person.verified_at.is_some() {
        return Err(ApiError::conflict(format!("person {person_id} is already verified")));
    }
    let return_url = return_url::for_page(&state, subscriber_id, request.return_url.as_deref()).await?;
    let opening = OpeningPage::new(UnixSeconds::now(), state.config.hosted_session_seconds);
    let expires_at_time = paging::checked_time(opening.expires_at)?;
    let url = opening.url(&state.public_url(), PAGE_PATH, "session");
    let response_url = url.clone();
    let replay = idempotent.replay(move |session_id| PersonSessionResponse {
        session_id,
        person_id,
        url: response_url.clone(),
        expires_at: expires_at_time,
    });
    let page = NewPersonSession {
        subscriber_id,
        person_id,
        token_hash: opening.token_hash,
        created_at: opening.created_at,
        expires_at: opening.expires_at,
        return_url,
    };
    let session_id = state.db.open_person_session(page, replay).await?;
    tracing::info!(session_id = session_id.get(), person_id = person_id.get(), "identity page opened");
    Ok(idempotent.created(PersonSessionResponse { session_id, person_id, url, expires_at: expires_at_time }))
}
