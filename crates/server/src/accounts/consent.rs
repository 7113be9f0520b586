//! A linked account's consent: it runs for [`bank_link::CONSENT`] (on the sandbox clock), the
//! subscriber hears of it seven days before it runs out (`account.consent_expiring`, once per
//! consent), and after it the account is `reauth_required` until the person renews it on the
//! bank's pages in update mode (`POST /account/{id}/reauth`), which keeps the account's id.
//! `POST /account/{id}/refresh` fetches what the bank has that is new.

use axum::Json;
use axum::extract::State;
use std::time::Duration;
use subscriber_protocol::AccountId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{
    Account, AccountStatus, ErrorBody, EventData, ReauthAccountRequest, ReauthAccountResponse, Success,
};

use super::bank_link;
use super::{LOGIN_PATH, account_view, owned_account, status_of};
use crate::error::ApiError;
use crate::http::extract::{ApiJsonOrEmpty, Auth, IdPath};
use crate::link_token::OpeningPage;
use crate::paging;
use crate::return_url;
use crate::state::AppState;
use crate::storage::StorageError;
use crate::storage::events::StoredEvent;

/// The expiring event goes this long before the consent runs out.
pub const WARN_BEFORE: Duration = Duration::from_secs(7 * 86_400);

// The warning comes within the consent.
const _: () = assert!(WARN_BEFORE.as_secs() < bank_link::CONSENT.as_secs());

/// The most expiring events one pass records (the next pass takes the rest).
const WARN_BATCH: u32 = 500;

/// 409 `reauth_required` for an account whose consent ran out.
pub fn reauth_required(account_id: AccountId) -> ApiError {
    ApiError::ReauthRequired(format!(
        "the person's consent to share account {account_id} ran out: ask them to renew it through the bank page of \
         POST /account/{account_id}/reauth"
    ))
}

/// Records `account.consent_expiring` for every linked account whose consent runs out within
/// [`WARN_BEFORE`] and was not warned of yet (each once, whichever instance gets there
/// first). How many were recorded.
pub async fn warn_due(state: &AppState) -> Result<usize, StorageError> {
    let now = UnixSeconds::now();
    let by = now.plus(WARN_BEFORE);
    let mut warned = 0;
    for row in state.db.consents_to_warn(by, WARN_BATCH).await? {
        let data = subscriber_protocol::AccountEventData {
            consent_expires_at: row.consent_expires_at.and_then(|at| paging::checked_time(at).ok()),
            ..bank_link::outcome(&row, None)
        };
        let event = StoredEvent::new(&EventData::AccountConsentExpiring(data));
        if state.db.warn_consent(row.id, now, by, event).await? {
            tracing::info!(account_id = row.id.get(), "bank consent expiring: subscriber told");
            warned += 1;
        }
    }
    Ok(warned)
}

/// Renews a linked account's consent: the bank's pages in update mode
///
/// Open `url` in the person's browser: they sign in at the bank and consent again. The account
/// keeps its id; `consentExpiresAt` moves on and `status` is `linked` again. Works on a linked
/// account before its consent runs out too. The link works once, until `expiresAt`; a newer
/// one replaces it.
#[utoipa::path(post, path = "/account/{account_id}/reauth", tag = "accounts", operation_id = "reauthAccount",
    params(("account_id" = i64, Path, description = "An accountId of the caller.", minimum = 1)),
    request_body(content = ReauthAccountRequest, description = "Optional: where the browser goes back to."),
    responses(
        (status = 200, description = "Open `url` in the person's browser.", body = Success<ReauthAccountResponse>),
        (status = 400, description = "`returnUrl` begins with none of the registered return URLs.", body = ErrorBody),
        (status = 404, description = "No such account of the caller.", body = ErrorBody),
        (status = 409, description = "The account is not linked (pending, failed or expired): start a new link \
            with `POST /account`.", body = ErrorBody),
    ))]
pub async fn reauth(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(account_id): IdPath<AccountId>,
    ApiJsonOrEmpty(request): ApiJsonOrEmpty<ReauthAccountRequest>,
) -> Result<Json<Success<ReauthAccountResponse>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let row = owned_account(&state, subscriber_id, account_id).await?;
    let now = UnixSeconds::now();
    if !matches!(status_of(&row, now), AccountStatus::Linked | AccountStatus::ReauthRequired) {
        return Err(ApiError::conflict(format!(
            "account {account_id} is not linked: start a new link with POST /account"
        )));
    }
    let return_url = return_url::for_page(&state, subscriber_id, request.return_url.as_deref()).await?;
    let opening = OpeningPage::new(now, state.config.hosted_session_seconds);
    let expires_at = opening.expires_at;
    let url = opening.url(&state.public_url(), LOGIN_PATH, "link");
    let page = opening.into_token_page(subscriber_id, return_url, row.labels.clone());
    if !state.db.reopen_bank_link(subscriber_id, row.id, page).await? {
        return Err(ApiError::conflict(format!("account {account_id} is no longer linked: start a new link")));
    }
    tracing::info!(account_id = row.id.get(), "bank link reopened in update mode");
    Ok(Json(Success::new(ReauthAccountResponse {
        account_id: row.id,
        url,
        expires_at: paging::checked_time(expires_at)?,
    })))
}

/// Fetches what is new at the bank for a linked account
///
/// The account's transactions then run up to now; `account.refreshed` is sent. 409
/// `reauth_required` once the person's consent ran out.
#[utoipa::path(post, path = "/account/{account_id}/refresh", tag = "accounts", operation_id = "refreshAccount",
    params(("account_id" = i64, Path, description = "An accountId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The account, refreshed (`refreshedAt`).", body = Success<Account>),
        (status = 404, description = "No such account of the caller.", body = ErrorBody),
        (status = 409, description = "The person's consent ran out (`reauth_required`), or the account is not \
            linked (`conflict`).", body = ErrorBody),
    ))]
pub async fn refresh(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(account_id): IdPath<AccountId>,
) -> Result<Json<Success<Account>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let row = owned_account(&state, subscriber_id, account_id).await?;
    let now = UnixSeconds::now();
    match status_of(&row, now) {
        AccountStatus::Linked => {}
        AccountStatus::ReauthRequired => return Err(reauth_required(account_id)),
        _ => return Err(ApiError::conflict(format!("account {account_id} is not linked: nothing to refresh"))),
    }
    let data = subscriber_protocol::AccountEventData {
        consent_expires_at: row.consent_expires_at.and_then(|at| paging::checked_time(at).ok()),
        ..bank_link::outcome(&row, None)
    };
    let event = StoredEvent::new(&EventData::AccountRefreshed(data));
    if !state.db.refresh_bank_account(row.id, now, event).await? {
        return Err(reauth_required(account_id));
    }
    let row = owned_account(&state, subscriber_id, row.id).await?;
    tracing::info!(account_id = row.id.get(), "bank account refreshed");
    Ok(Json(Success::new(account_view(state.config.sandbox_seed, &row, now)?)))
}
