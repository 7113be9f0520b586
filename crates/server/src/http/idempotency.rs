//! `Idempotency-Key` on creating POSTs: a retry with the same key and body replays the first
//! response and creates nothing; the same key with another body is 409.
//!
//! A handler that creates something has its response stored in the same database transaction
//! as the thing it creates ([`Idempotent::replay`] hands the store what to keep), so a crash
//! can never leave a created resource without its replayable response. Other outcomes (validation errors,
//! handlers that do not store) are stored here after the handler returns.
//!
//! What is kept is keyed with the key file's idempotency key: the request as an HMAC (a card
//! number cannot be tried against it), the response sealed (it may hold a live one-time link).

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::Arc;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use axum::Json;
use axum::body::{Body, to_bytes};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use subscriber_protocol::Success;

use super::extract::{BODY_LIMIT, TokenCheck};
use crate::error::ApiError;
use crate::keys::Keys;
use crate::state::AppState;
use crate::storage::claims::Claims;
use crate::storage::idempotency::{Replay, StoredResponse};
use crate::storage::{StorageError, StorageResult};

pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
pub const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// Keys whose first request is still being served by this process.
#[derive(Default)]
struct InFlight(Mutex<HashSet<(String, String)>>);

/// The idempotency layer's state: the service's, and the keys in flight, which only this
/// layer knows of.
#[derive(Clone)]
pub struct IdempotencyLayer {
    state: AppState,
    in_flight: Arc<InFlight>,
    /// On PostgreSQL, the keys other instances are serving.
    claims: Option<Arc<Claims>>,
}

impl IdempotencyLayer {
    pub fn new(state: AppState) -> Self {
        let claims = Claims::new(&state.db).map(Arc::new);
        Self { state, in_flight: Arc::default(), claims }
    }
}

/// A key claimed across instances, released when dropped.
struct SharedClaim {
    claims: Arc<Claims>,
    lock: i64,
}

impl SharedClaim {
    /// `None` when another instance is serving the key.
    async fn take(claims: &Arc<Claims>, lock: i64) -> StorageResult<Option<Self>> {
        let taken = claims.try_claim(lock).await?;
        Ok(taken.then(|| Self { claims: Arc::clone(claims), lock }))
    }
}

impl Drop for SharedClaim {
    fn drop(&mut self) {
        let (claims, lock) = (Arc::clone(&self.claims), self.lock);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { claims.release(lock).await });
        }
    }
}

struct InFlightGuard<'a> {
    set: &'a InFlight,
    entry: (String, String),
}

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        self.set.0.lock().remove(&self.entry);
    }
}

/// Handed to the handler in the request's extensions.
#[derive(Clone)]
pub struct IdempotencyClaim {
    scope: String,
    key: String,
    request_hash: Vec<u8>,
    keys: Arc<Keys>,
}

/// On a response whose replay was already stored with what it created.
#[derive(Debug, Clone, Copy)]
pub struct StoredWithResult;

impl IdempotencyClaim {
    /// The response to store inside the transaction that creates the resource, its body made
    /// from the new row's id.
    fn replay<B: serde::Serialize>(
        &self,
        status: StatusCode,
        body_for: impl Fn(i64) -> B + Send + Sync + 'static,
    ) -> Replay {
        let keys = Arc::clone(&self.keys);
        Replay {
            scope: self.scope.clone(),
            key: self.key.clone(),
            request_hash: self.request_hash.clone(),
            status: status.as_u16(),
            body_for: Arc::new(move |id| {
                let body =
                    serde_json::to_vec(&body_for(id)).map_err(|error| StorageError::Corrupt(error.to_string()))?;
                Ok(keys.seal(&body))
            }),
        }
    }
}

/// What a creating handler does about idempotency, taken as an extractor: with an
/// `Idempotency-Key`, the handler gives the store its 201 to keep in the transaction that
/// creates the resource ([`Idempotent::replay`]) and answers with [`Idempotent::created`],
/// which tells the layer the replay is stored already. Without a key, both do only the
/// answering.
#[derive(Clone)]
pub struct Idempotent(Option<IdempotencyClaim>);

impl<S: Send + Sync> FromRequestParts<S> for Idempotent {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(parts.extensions.get::<IdempotencyClaim>().cloned()))
    }
}

impl Idempotent {
    /// What no request asked for (the sandbox's simulated purchases) has nothing to replay.
    pub fn none() -> Self {
        Self(None)
    }

    /// Whether the request came with a key: the replay is worth building.
    pub fn is_keyed(&self) -> bool {
        self.0.is_some()
    }

    /// The 201 (in the success envelope) a retry replays, its body made from the created
    /// row's id (`Id`, the kind the request creates), for the store to keep with what it
    /// creates; `None` without a key.
    pub fn replay<Id: From<i64>, B: serde::Serialize + 'static>(
        &self,
        body_for: impl Fn(Id) -> B + Send + Sync + 'static,
    ) -> Option<Replay> {
        self.0.as_ref().map(|claim| claim.replay(StatusCode::CREATED, move |id| Success::new(body_for(Id::from(id)))))
    }

    /// The 201 of `body`, in the success envelope.
    pub fn created(&self, body: impl serde::Serialize) -> Response {
        let mut response = (StatusCode::CREATED, Json(Success::new(body))).into_response();
        if self.is_keyed() {
            response.extensions_mut().insert(StoredWithResult);
        }
        response
    }
}

pub async fn idempotent(State(layer): State<IdempotencyLayer>, request: Request, next: Next) -> Response {
    match serve(layer, request, next).await {
        Ok(response) | Err(response) => response,
    }
}

fn in_progress() -> Response {
    ApiError::conflict("a request with this Idempotency-Key is still in progress: retry when it has finished")
        .into_response()
}

/// The claim's lock number: the key, keyed (as everything kept about it), in 64 bits.
fn claim_lock(keys: &Keys, scope: &str, key: &str) -> i64 {
    let hash = keys.idempotency_hash(&[b"claim\n", scope.as_bytes(), b"\n", key.as_bytes()]);
    let mut first = [0u8; 8];
    first.copy_from_slice(hash.get(..8).unwrap_or(&[0; 8]));
    i64::from_be_bytes(first)
}

/// The stored response of the key, replayed (or a 409 when the request differs); `None`
/// when nothing is stored.
async fn stored_replay(
    state: &AppState,
    scope: &str,
    key: &str,
    request_hash: &[u8],
) -> Result<Option<Response>, Response> {
    let stored = state
        .db
        .idempotent_response(scope.to_owned(), key.to_owned())
        .await
        .map_err(|error| ApiError::from(error).into_response())?;
    let Some(stored) = stored else { return Ok(None) };
    if stored.request_hash != request_hash {
        return Err(ApiError::conflict(
            "this Idempotency-Key was already used with a different request: use a new key for a new request",
        )
        .into_response());
    }
    let body = state.keys.open(&stored.body).ok_or_else(|| {
        ApiError::internal(anyhow::anyhow!("a stored replay is not sealed with this key file")).into_response()
    })?;
    Ok(Some(replay(stored.status, body)))
}

/// Where a subscriber's keys are kept.
pub fn subscriber_scope(subscriber_id: SubscriberId) -> String {
    format!("subscriber:{subscriber_id}")
}

/// Forgets the subscriber's kept responses that name the removed object (`"cardId": 17` at
/// their top level, `named_by` being `cardId`): a retry of the request that created it must
/// not give back an object that is gone, and a removal is an erasure. Each body is opened and
/// read here (they are sealed), so this reads every response the subscriber keeps: a day's
/// creating requests at most (`background` purges older ones).
pub async fn forget_replays_naming(
    state: &AppState,
    subscriber_id: SubscriberId,
    named_by: &str,
    id: impl Into<i64>,
) -> StorageResult<usize> {
    let id = id.into();
    let scope = subscriber_scope(subscriber_id);
    let mut forgotten = 0;
    for (key, sealed) in state.db.idempotent_responses(scope.clone()).await? {
        let names = state
            .keys
            .open(&sealed)
            .and_then(|body| serde_json::from_slice::<serde_json::Value>(&body).ok())
            .is_some_and(|body| body.get(named_by).and_then(serde_json::Value::as_i64) == Some(id));
        if names {
            state.db.forget_idempotent_response(scope.clone(), key).await?;
            forgotten += 1;
        }
    }
    Ok(forgotten)
}

async fn serve(
    IdempotencyLayer { state, in_flight, claims }: IdempotencyLayer,
    request: Request,
    next: Next,
) -> Result<Response, Response> {
    let Some(key) = request.headers().get(&IDEMPOTENCY_KEY) else {
        return Ok(next.run(request).await);
    };
    let key = key
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|key| (1..=255).contains(&key.len()) && key.bytes().all(|byte| byte.is_ascii_graphic()))
        .ok_or_else(|| {
            ApiError::invalid_field("Idempotency-Key", "must be 1 to 255 printable ASCII characters, e.g. a UUID")
                .into_response()
        })?
        .to_owned();
    let scope = match TokenCheck::of(request.extensions()) {
        TokenCheck::Verified(auth) => subscriber_scope(auth.subscriber_id),
        // The handler's own extractor answers with the precise 401.
        TokenCheck::Refused => return Ok(next.run(request).await),
        TokenCheck::Absent => "anonymous".to_owned(),
    };

    let (mut parts, body) = request.into_parts();
    let bytes = to_bytes(body, BODY_LIMIT).await.map_err(|_| ApiError::PayloadTooLarge.into_response())?;
    // Keyed: the body of `POST /card` holds a card number, which an unkeyed digest would give
    // back to anyone holding the database by trying numbers.
    let request_hash = state.keys.idempotency_hash(&[
        parts.method.as_str().as_bytes(),
        b" ",
        parts.uri.path().trim_end_matches('/').as_bytes(),
        b"\n",
        &bytes,
    ]);

    if let Some(replay) = stored_replay(&state, &scope, &key, &request_hash).await? {
        return Ok(replay);
    }
    let entry = (scope.clone(), key.clone());
    if !in_flight.0.lock().insert(entry.clone()) {
        return Err(in_progress());
    }
    let _guard = InFlightGuard { set: &in_flight, entry };
    let _shared = match &claims {
        Some(claims) => {
            let lock = claim_lock(&state.keys, &scope, &key);
            let taken = SharedClaim::take(claims, lock).await.map_err(|error| ApiError::from(error).into_response())?;
            Some(taken.ok_or_else(in_progress)?)
        }
        None => None,
    };
    // The first request may have finished between the look above and the claim.
    if let Some(replay) = stored_replay(&state, &scope, &key, &request_hash).await? {
        return Ok(replay);
    }

    let claim = IdempotencyClaim { scope, key, request_hash, keys: state.keys.clone() };
    parts.extensions.insert(claim.clone());
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;

    let status = response.status();
    if response.extensions().get::<StoredWithResult>().is_some() || !is_replayable(status) {
        return Ok(response);
    }
    let (parts, body) = response.into_parts();
    let body = to_bytes(body, usize::MAX).await.map_err(|error| ApiError::internal(error).into_response())?;
    let stored = StoredResponse {
        request_hash: claim.request_hash.clone(),
        status: status.as_u16(),
        body: claim.keys.seal(&body),
    };
    let now = UnixSeconds::now();
    match state.db.store_idempotent_response(claim.scope, claim.key, stored, now).await {
        Ok(()) => {}
        // What the handler did is done: its answer is the truth, not the outage that came
        // after. A retry with the key finds nothing stored and is served afresh.
        Err(error) if error.outage().is_some() => {
            tracing::warn!(error = %error, "the answer to keep for the Idempotency-Key was not stored");
        }
        Err(error) => return Err(ApiError::from(error).into_response()),
    }
    Ok(Response::from_parts(parts, Body::from(body)))
}

/// Outcomes a retry should see again. Not: authentication failures, rate limits, conflicts
/// of the moment and server errors, which a retry may get past.
fn is_replayable(status: StatusCode) -> bool {
    status.is_success()
        || (status.is_client_error()
            && !matches!(
                status,
                StatusCode::UNAUTHORIZED
                    | StatusCode::REQUEST_TIMEOUT
                    | StatusCode::CONFLICT
                    | StatusCode::TOO_MANY_REQUESTS
            ))
}

fn replay(status: u16, body: Vec<u8>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(REPLAYED, HeaderValue::from_static("true"));
    response.extensions_mut().insert(crate::error::RenderedError);
    response
}
