//! Subscriber accounts: signup, login, profile, secret rotation, billable usage.

use std::net::IpAddr;
use subscriber_protocol::UnixSeconds;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::NaiveDate;
use subscriber_protocol::rules;
use subscriber_protocol::rules::hosted as hosted_rules;
use subscriber_protocol::versions::ApiVersion;
use subscriber_protocol::{
    ErrorBody, LoginRequest, LoginResponse, RotateSecretRequest, RotateSecretResponse, SignupRequest, SignupResponse,
    SubscriberProfile, Success, UpdateSubscriberRequest, UsageResponse, UsageRow,
};
use utoipa_axum::routes;

use crate::credentials;
use crate::error::{ApiError, Validation};
use crate::http::client_address::ClientAddress;
use crate::http::extract::{ApiJson, Auth};
use crate::http::routes::Routes;
use crate::limits::Caller;
use crate::return_url;
use crate::state::AppState;
use crate::storage::subscribers::{NewSubscriber, ProfileChange, SubscriberRow};
use crate::versions::{self, RenderedAt, RequestVersion};
use axum::Extension;

mod requests;

pub fn routes(api: Routes) -> Routes {
    api
        // Not keyed: a replay would need the secret, which is never stored.
        .api(routes!(signup))
        .api(routes!(login))
        .api(routes!(profile))
        .api(routes!(update))
        .api(routes!(rotate_secret))
        .api(routes!(usage))
        .api(routes!(requests::list))
        .api(routes!(requests::one))
}

/// The 503 of the routes that hash a secret.
const BUSY: &str = "The service is busy checking other secrets (`unavailable`): retry after `Retry-After` seconds.";

/// Creates a subscriber account and returns its credentials
///
/// The secret is shown only here. The account is pinned to the version this request names in
/// `Subscriber-Version`, else to `2026-11-21`: requests without the header get that version.
#[utoipa::path(post, path = "/subscriber/signup", tag = "subscriber", operation_id = "signup", security(()),
    request_body = SignupRequest,
    responses(
        (status = 201, description = "The subscriber exists; keep the secret, it is not shown again.",
            body = Success<SignupResponse>),
        (status = 409, description = "A subscriber with this e-mail address exists.", body = ErrorBody),
        (status = 503, description = BUSY, body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying."))),
    ))]
async fn signup(
    State(state): State<AppState>,
    asked: RequestVersion,
    ApiJson(request): ApiJson<SignupRequest>,
) -> Result<(StatusCode, Json<Success<SignupResponse>>), ApiError> {
    let pin = if asked.explicit { asked.version } else { ApiVersion::INITIAL };
    let mut validation = Validation::new();
    let email = rules::email(&mut validation, "email", &request.email);
    validation.finish(())?;
    let environment = state.environment();
    let credentials = credentials::new_credentials(environment.as_str());
    let secret = credentials.secret.clone();
    let secret_hash = state.limits.hash(move || credentials::hash_secret(&secret)).await??;
    let now = UnixSeconds::now();
    let (client_id, public_key) = (credentials.client_id.clone(), credentials.public_key.clone());
    let stored_email = email.clone();
    let created = state
        .db
        .insert_subscriber(NewSubscriber {
            email: stored_email,
            client_id,
            public_key,
            secret_hash,
            created_at: now,
            api_version: pin.as_str().to_owned(),
        })
        .await?;
    let Some(subscriber_id) = created else {
        return Err(ApiError::conflict("a subscriber with this e-mail address already exists: log in instead"));
    };
    state.pins.note(subscriber_id, pin);
    tracing::info!(client_id = %credentials.client_id, "subscriber signed up");
    Ok((
        StatusCode::CREATED,
        Json(Success::new(SignupResponse {
            client_id: credentials.client_id,
            secret: credentials.secret,
            public_key: credentials.public_key,
            email,
            environment,
            api_version: pin,
        })),
    ))
}

/// Exchanges the e-mail address and the secret (`apiKey`) for a bearer token
///
/// Wrong secrets are refused with 429 once too many have been tried for this e-mail address,
/// from this client address, or both; the right secret is never refused. Without a
/// `Subscriber-Version` header the answer is written in the account's pinned version.
#[utoipa::path(post, path = "/subscriber/login", tag = "subscriber", operation_id = "login", security(()),
    request_body = LoginRequest,
    responses(
        (status = 200, description = "A JWT for `Authorization: Bearer`, valid `validitySeconds`.",
            body = Success<LoginResponse>),
        (status = 401, description = "The e-mail address or the key is wrong (`invalid_credentials`).",
            body = ErrorBody),
        (status = 503, description = BUSY, body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying."))),
    ))]
async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    asked: RequestVersion,
    ApiJson(request): ApiJson<LoginRequest>,
) -> Result<(Extension<RenderedAt>, Json<Success<LoginResponse>>), ApiError> {
    let email = request.email.trim().to_ascii_lowercase();
    let subscriber = state.db.subscriber_by_email(&email).await?;
    let stored_hash = subscriber.as_ref().map(|subscriber| subscriber.secret_hash.clone());
    prove_secret(&state, &email, address, request.api_key, stored_hash).await?;
    let Some(subscriber) = subscriber else { return Err(ApiError::InvalidCredentials) };
    state.limits.forget_failed_logins(&email, address).await?;
    let generation = state.generations.note(subscriber.id, subscriber.credential_generation);
    let token = state.auth.issue(subscriber.id, &subscriber.client_id, generation)?;
    // No token came with the request: the account is known only now.
    let version = if asked.explicit { asked.version } else { state.pins.get(&state.db, subscriber.id).await? };
    Ok((
        Extension(RenderedAt(version)),
        Json(Success::new(LoginResponse { token, validity_seconds: state.auth.validity_seconds() })),
    ))
}

/// The secret check of login and rotation: on the hashing threads, against a decoy when the
/// e-mail has no account (so an unknown e-mail takes as long as a wrong secret). The failed-login
/// limits judge only a wrong secret: it is 401, or 429 once this e-mail, this address or the
/// pair has failed too often (and is then not counted again). The right secret always passes,
/// so nobody locks a subscriber out by failing with its e-mail. An empty secret matches
/// nothing and costs no hash.
async fn prove_secret(
    state: &AppState,
    email: &str,
    address: IpAddr,
    presented: String,
    stored_hash: Option<String>,
) -> Result<(), ApiError> {
    let known = stored_hash.is_some();
    let stored_hash = stored_hash.unwrap_or_else(|| credentials::decoy_hash().to_owned());
    let proven = !presented.is_empty()
        && state.limits.hash(move || credentials::secret_matches(&presented, &stored_hash)).await?
        && known;
    if !proven {
        return Err(wrong_secret(state, email, address).await);
    }
    Ok(())
}

/// A secret proved wrong: 429 once this e-mail, this address or the pair has failed too often
/// (and then not counted again), else counted as a failed login and 401.
async fn wrong_secret(state: &AppState, email: &str, address: IpAddr) -> ApiError {
    if let Err(refused) = state.limits.check_login(email, address).await {
        return refused;
    }
    state.limits.record_failed_login(email, address).await;
    ApiError::InvalidCredentials
}

/// The subscriber of the caller's token: 401 when it was deleted since the token was checked.
async fn caller(state: &AppState, auth: &Auth) -> Result<SubscriberRow, ApiError> {
    let subscriber_id = auth.subscriber_id;
    state
        .db
        .subscriber(subscriber_id)
        .await?
        .ok_or_else(|| ApiError::Unauthorized("the subscriber of this token no longer exists".to_owned()))
}

/// The caller's subscriber account
///
/// Its identifiers, e-mail address, environment, creation time and pinned API version.
#[utoipa::path(get, path = "/subscriber", tag = "subscriber", operation_id = "getSubscriber",
    responses((status = 200, description = "The caller's account.", body = Success<SubscriberProfile>)))]
async fn profile(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<SubscriberProfile>>, ApiError> {
    let subscriber = caller(&state, &auth).await?;
    Ok(Json(Success::new(profile_of(&state, subscriber).await?)))
}

async fn profile_of(state: &AppState, subscriber: SubscriberRow) -> Result<SubscriberProfile, ApiError> {
    Ok(SubscriberProfile {
        api_version: state.pins.get(&state.db, subscriber.id).await?,
        client_id: subscriber.client_id,
        public_key: subscriber.public_key,
        email: subscriber.email,
        environment: state.environment(),
        created_at: crate::paging::checked_time(subscriber.created_at)?,
        return_urls: return_url::stored_urls(&subscriber.return_urls),
        display_name: subscriber.display_name,
        brand_color: subscriber.brand_color,
    })
}

/// Changes the caller's account: pinned API version, hosted pages' name, colour, return URLs
///
/// Any of `apiVersion`, `displayName`, `brandColor` and `returnUrls`, one at least; the others
/// stay. A new pin: requests without a `Subscriber-Version` header get the new version from now
/// on (this answer too, unless the request named one). Webhook endpoints keep their own version
/// (`PATCH /webhooks/{webhook_id}` moves it). Moving back to an earlier version is allowed.
/// `returnUrls` replaces the registered list. A refused field changes nothing.
#[utoipa::path(patch, path = "/subscriber", tag = "subscriber", operation_id = "updateSubscriber",
    request_body = UpdateSubscriberRequest,
    responses(
        (status = 200, description = "The account, changed.", body = Success<SubscriberProfile>),
        (status = 400, description = "No field given, a field is not valid, or `apiVersion` names no version of \
            the API (`unknown_version`).", body = ErrorBody),
    ))]
async fn update(
    State(state): State<AppState>,
    auth: Auth,
    asked: RequestVersion,
    ApiJson(request): ApiJson<UpdateSubscriberRequest>,
) -> Result<(Extension<RenderedAt>, Json<Success<SubscriberProfile>>), ApiError> {
    let UpdateSubscriberRequest { api_version, display_name, brand_color, return_urls } = request;
    if api_version.is_none() && display_name.is_none() && brand_color.is_none() && return_urls.is_none() {
        return Err(ApiError::invalid(
            "nothing to change: give at least one of apiVersion, displayName, brandColor, returnUrls",
        ));
    }
    let pin = api_version.as_deref().map(|version| versions::parse(version, "apiVersion")).transpose()?;
    let mut validation = Validation::new();
    let display_name = display_name.and_then(|name| hosted_rules::display_name(&mut validation, &name));
    let brand_color = brand_color.and_then(|color| hosted_rules::brand_color(&mut validation, &color));
    let return_urls = return_urls.and_then(|urls| return_url::registered(&mut validation, &urls));
    validation.finish(())?;
    let return_urls = return_urls.map(|urls| serde_json::to_string(&urls)).transpose().map_err(ApiError::internal)?;
    let subscriber_id = auth.subscriber_id;
    let change =
        ProfileChange { api_version: pin.map(|pin| pin.as_str().to_owned()), display_name, brand_color, return_urls };
    let changed = state.db.update_profile(subscriber_id, change).await?;
    if !changed {
        return Err(ApiError::Unauthorized("the subscriber of this token no longer exists".to_owned()));
    }
    if let Some(pin) = pin {
        state.pins.note(subscriber_id, pin);
        tracing::info!(client_id = %auth.client_id, api_version = %pin, "API version pinned");
    }
    let subscriber = caller(&state, &auth).await?;
    let profile = profile_of(&state, subscriber).await?;
    let rendered = if asked.explicit { asked.version } else { profile.api_version };
    Ok((Extension(RenderedAt(rendered)), Json(Success::new(profile))))
}

/// Replaces the secret
///
/// Needs the current secret as well as a token. The old secret stops working at once, every
/// token issued before is revoked (401 `token_expired`) and the caller's open streams end:
/// log in again with the new secret. Wrong secrets count as failed logins (429 when too many,
/// from this address before the secret is even checked); one check at a time per subscriber
/// (429 while another runs).
#[utoipa::path(post, path = "/subscriber/secret/rotate", tag = "subscriber", operation_id = "rotateSecret",
    request_body = RotateSecretRequest,
    responses(
        (status = 200, description = "The new secret, shown once.", body = Success<RotateSecretResponse>),
        (status = 401, description = "No valid token (`unauthorized`, `token_expired`), or `currentSecret` is \
            wrong (`invalid_credentials`; before version 2026-12-01 also when it is missing).", body = ErrorBody),
        (status = 409, description = "The secret was rotated by another request meanwhile.", body = ErrorBody),
        (status = 503, description = BUSY, body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying."))),
    ))]
async fn rotate_secret(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    auth: Auth,
    ApiJson(request): ApiJson<RotateSecretRequest>,
) -> Result<Json<Success<RotateSecretResponse>>, ApiError> {
    let subscriber = caller(&state, &auth).await?;
    // A stolen token alone must not take the account over: the secret is checked as a login
    // checks it, and a wrong one counts as a failed login. Unlike a login, the caller is known
    // before anything is hashed, so the hashing is fenced first: the credential buckets of the
    // subscriber and the address (`http::limit`), this address's failure windows, and one hash
    // at a time per subscriber. A flood of wrong secrets costs a few hashes, not the queue
    // every login waits in.
    state.limits.check_failures_from(&subscriber.email, address).await?;
    let secret = credentials::new_secret(state.environment().as_str());
    let (presented, stored_hash, to_hash) = (request.current_secret, subscriber.secret_hash.clone(), secret.clone());
    // An empty secret matches nothing and costs no hash. The check and the new hash are one job.
    let new_hash = if presented.is_empty() {
        None
    } else {
        state
            .limits
            .hash_one_at_a_time(Caller::Subscriber(subscriber.id), move || {
                credentials::secret_matches(&presented, &stored_hash).then(|| credentials::hash_secret(&to_hash))
            })
            .await?
    };
    let Some(secret_hash) = new_hash else {
        return Err(wrong_secret(&state, &subscriber.email, address).await);
    };
    let secret_hash = secret_hash?;
    let now = UnixSeconds::now();
    let subscriber_id = subscriber.id;
    let rotated = state.db.replace_secret(subscriber_id, subscriber.secret_hash, secret_hash, now).await?;
    // Once committed: older tokens are refused and the streams end (the other instances hear
    // of it from the store).
    if let Some(generation) = rotated {
        state.generations.note(subscriber_id, generation);
    }
    if rotated.is_none() {
        return Err(ApiError::conflict("the secret was rotated by another request meanwhile: log in with the new one"));
    }
    tracing::info!(client_id = %auth.client_id, "secret rotated; earlier tokens revoked");
    Ok(Json(Success::new(RotateSecretResponse {
        client_id: auth.client_id.to_string(),
        secret,
        rotated_at: crate::paging::checked_time(now)?,
    })))
}

/// Billable requests by day and endpoint (counted in the `established` environment only)
///
/// In other environments nothing is billed and the counts stay empty.
#[utoipa::path(get, path = "/subscriber/usage", tag = "subscriber", operation_id = "getUsage",
    responses((status = 200, description = "The caller's usage.", body = Success<UsageResponse>)))]
async fn usage(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<UsageResponse>>, ApiError> {
    state.usage.flush(&state.db).await?;
    let subscriber_id = auth.subscriber_id;
    let rows = state.db.usage(subscriber_id).await?;
    let mut usage = Vec::with_capacity(rows.len());
    for (day, endpoint, count) in rows {
        let day = NaiveDate::parse_from_str(&day, "%Y-%m-%d").map_err(ApiError::internal)?;
        usage.push(UsageRow { day, endpoint, count });
    }
    Ok(Json(Success::new(UsageResponse {
        environment: state.environment(),
        billable: state.usage.is_billing(),
        total: usage.iter().map(|row| row.count).sum(),
        usage,
    })))
}
