//! The subscriber's end users (contract: "Lifecycle", fourth round): the cards, bank accounts
//! and persons created with one `clientUserId`, read together and erased together (a
//! right-to-erasure request in one call).

use axum::Json;
use axum::extract::{Path, State};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::rules::labels as rules;
use subscriber_protocol::{EndUser, EndUserRemoved, ErrorBody, Success};
use utoipa_axum::routes;

use crate::error::{ApiError, Validation};
use crate::http::extract::Auth;
use crate::http::routes::Routes;
use crate::state::AppState;
use crate::{accounts, cards, erasure, persons};

pub fn routes(api: Routes) -> Routes {
    api.api(routes!(details)).api(routes!(remove))
}

pub const USER_REMOVED: &str = "User removed";

/// The path's `clientUserId`, as the creating calls take it.
fn checked(client_user_id: &str) -> Result<(), ApiError> {
    let mut violations = Validation::new();
    rules::client_user_id(&mut violations, "clientUserId", client_user_id);
    Ok(violations.finish(())?)
}

fn no_such_user(client_user_id: &str) -> ApiError {
    ApiError::not_found(format!(
        "no card, bank account or person of this subscriber has clientUserId {client_user_id:?}"
    ))
}

/// Everything of one of the caller's users
///
/// The cards, bank accounts and persons the caller created with this `clientUserId`, newest first.
#[utoipa::path(get, path = "/users/{client_user_id}", tag = "users", operation_id = "getUser",
    params(("client_user_id" = String, Path, description = "The caller's own id for its user, as sent \
        with `clientUserId` (1 to 128 characters).")),
    responses(
        (status = 200, description = "The user's cards, accounts and persons.", body = Success<EndUser>),
        (status = 400, description = "Not a `clientUserId` the API takes.", body = ErrorBody),
        (status = 404, description = "Nothing of the caller's has this `clientUserId`.", body = ErrorBody),
    ))]
async fn details(
    State(state): State<AppState>,
    auth: Auth,
    Path(client_user_id): Path<String>,
) -> Result<Json<Success<EndUser>>, ApiError> {
    checked(&client_user_id)?;
    let objects = state.db.user_objects(auth.subscriber_id, &client_user_id).await?;
    if objects.cards.is_empty() && objects.accounts.is_empty() && objects.persons.is_empty() {
        return Err(no_such_user(&client_user_id));
    }
    let now = UnixSeconds::now();
    let seed = state.config.sandbox_seed;
    let mut people = Vec::with_capacity(objects.persons.len());
    for person in objects.persons {
        let latest = state.db.latest_question_set(person.id).await?;
        people.push(persons::person_view(seed, person, latest.as_ref(), now)?);
    }
    Ok(Json(Success::new(EndUser {
        client_user_id,
        cards: objects.cards.into_iter().map(cards::card_record).collect::<Result<_, _>>()?,
        accounts: objects
            .accounts
            .iter()
            .map(|row| accounts::account_view(seed, row, now))
            .collect::<Result<_, _>>()?,
        persons: people,
    })))
}

/// Erases everything of one of the caller's users
///
/// Every card, bank account and person the caller created with this `clientUserId` is removed
/// as its own `DELETE` removes it, all in one write (all or nothing), each with its `*.removed`
/// event. A second call is 404.
#[utoipa::path(delete, path = "/users/{client_user_id}", tag = "users", operation_id = "removeUser",
    params(("client_user_id" = String, Path, description = "The caller's own id for its user, as sent \
        with `clientUserId` (1 to 128 characters).")),
    responses(
        (status = 200, description = "What was erased.", body = Success<EndUserRemoved>),
        (status = 400, description = "Not a `clientUserId` the API takes.", body = ErrorBody),
        (status = 404, description = "Nothing of the caller's has this `clientUserId`.", body = ErrorBody),
    ))]
async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    Path(client_user_id): Path<String>,
) -> Result<Json<Success<EndUserRemoved>>, ApiError> {
    checked(&client_user_id)?;
    let erased = erasure::erase_user(&state, auth.subscriber_id, &client_user_id).await?;
    if erased.is_empty() {
        return Err(no_such_user(&client_user_id));
    }
    for card_id in &erased.cards {
        cards::forget_card(&state, *card_id);
    }
    tracing::info!(
        cards = erased.cards.len(),
        accounts = erased.accounts.len(),
        persons = erased.persons.len(),
        "user erased"
    );
    Ok(Json(Success::new(EndUserRemoved {
        message: USER_REMOVED.to_owned(),
        client_user_id,
        card_ids: erased.cards,
        account_ids: erased.accounts,
        person_ids: erased.persons,
    })))
}
