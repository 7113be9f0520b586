//! The API version of each request, on the wire (the changes are
//! `subscriber_protocol::versions`; what the service keeps of them is `crate::versions`).
//!
//! - [`negotiate`], after the token check and the rate limiter: the request's version is its `Subscriber-Version`
//!   header, else the caller's pin, else (no token) `2026-11-21`. An unknown version is 400
//!   `unknown_version`.
//! - [`label`], around everything: every answer says its version in `Subscriber-Version`.
//! - [`reshape`], on each documented route: the request body goes forward to the newest
//!   version before the handler reads it, and the answer (built at the newest version) goes
//!   back to the request's version, error details included.
//!
//! A handler that answers at another version than the request's (login: the account's pin;
//! `PATCH /subscriber`: the new pin) says so with [`RenderedAt`].

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use serde_json::Value;
use subscriber_protocol::versions::{ApiVersion, Versioning};

use super::extract::{Auth, BODY_LIMIT};
use crate::error::ApiError;
use crate::state::AppState;
use crate::versions::{RenderedAt, RequestVersion, Shaped, unknown};

pub const VERSION_HEADER: HeaderName = HeaderName::from_static("subscriber-version");

/// The version of the request, from [`negotiate`] to [`label`] (a response made outside
/// `negotiate`, such as a timeout, still says it).
#[derive(Clone, Default)]
struct Slot(Arc<OnceLock<ApiVersion>>);

/// Outside every other layer: writes `Subscriber-Version` on every answer.
pub async fn label(mut request: Request, next: Next) -> Response {
    let slot = Slot::default();
    request.extensions_mut().insert(slot.clone());
    let mut response = next.run(request).await;
    let version = response
        .extensions()
        .get::<RenderedAt>()
        .map(|rendered| rendered.0)
        .or_else(|| slot.0.get().copied())
        .unwrap_or(ApiVersion::INITIAL);
    response.headers_mut().insert(VERSION_HEADER, HeaderValue::from_static(version.as_str()));
    response
}

/// The version of an answer made before [`negotiate`] (the rate limiter's 429): the header's
/// when it names one, else the caller's pin when it is in memory, so a refusal costs no
/// database read.
pub fn known_before_negotiation(state: &AppState, request: &Request) -> Option<ApiVersion> {
    let named = request.headers().get(&VERSION_HEADER).and_then(|value| value.to_str().ok());
    match named {
        Some(named) => ApiVersion::parse(named),
        None => request.extensions().get::<Auth>().and_then(|auth| state.pins.cached(auth.subscriber_id)),
    }
}

/// After the token check and the rate limiter: the request's version, or 400 `unknown_version`.
pub async fn negotiate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let named = request.headers().get(&VERSION_HEADER).map(|value| value.to_str().ok().and_then(ApiVersion::parse));
    let version = match named {
        Some(Some(version)) => RequestVersion { version, explicit: true },
        _ => {
            let pinned = match request.extensions().get::<Auth>() {
                Some(auth) => match state.pins.get(&state.db, auth.subscriber_id).await {
                    Ok(version) => version,
                    Err(error) => return ApiError::from(error).into_response(),
                },
                None => ApiVersion::INITIAL,
            };
            RequestVersion { version: pinned, explicit: false }
        }
    };
    if let Some(slot) = request.extensions().get::<Slot>() {
        let _ = slot.0.set(version.version);
    }
    if let Some(None) = named {
        let sent =
            request.headers().get(&VERSION_HEADER).map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        return unknown(&sent.unwrap_or_default(), "Subscriber-Version").into_response();
    }
    request.extensions_mut().insert(version);
    next.run(request).await
}

/// The schemas of a route's operation, by method: its request body's and its answers' by status.
#[derive(Debug, Default, Clone)]
pub struct Shapes {
    by_method: HashMap<Method, Operation>,
}

#[derive(Debug, Default, Clone)]
struct Operation {
    request: Option<String>,
    answers: HashMap<u16, String>,
}

impl Shapes {
    /// From the OpenAPI operation of each method (as `utoipa` writes it: an answer's schema is
    /// `Success_<name>`, the success envelope around `<name>`).
    pub fn add(&mut self, method: &str, operation: &utoipa::openapi::path::Operation) {
        let Ok(method) = Method::from_bytes(method.as_bytes()) else { return };
        let Ok(operation) = serde_json::to_value(operation) else { return };
        let schema_of = |content: &Value| {
            content
                .pointer("/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
                .and_then(|target| target.rsplit('/').next())
                .map(|name| name.strip_prefix("Success_").unwrap_or(name).to_owned())
        };
        let request = operation.get("requestBody").and_then(schema_of);
        let answers = operation
            .get("responses")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(status, answer)| Some((status.parse::<u16>().ok()?, schema_of(answer)?)))
            .collect();
        self.by_method.insert(method, Operation { request, answers });
    }

    pub fn is_empty(&self) -> bool {
        self.by_method.values().all(|operation| operation.request.is_none() && operation.answers.is_empty())
    }
}

/// A route's [`Shapes`] and the state, for [`reshape`].
#[derive(Clone)]
pub struct Reshaping {
    pub state: AppState,
    pub shapes: Arc<Shapes>,
}

/// On a documented route: the request forward to the newest version, the answer back.
pub async fn reshape(State(route): State<Reshaping>, request: Request, next: Next) -> Response {
    let asked = RequestVersion::of(request.extensions()).version;
    let Some(published) = route.state.versions.get() else { return next.run(request).await };
    let versioning = &published.versioning;
    let Some(operation) = route.shapes.by_method.get(request.method()) else { return next.run(request).await };
    let request_schema = operation.request.as_deref();
    let request = match request_schema {
        Some(schema) if versioning.changes_request(asked, schema) => {
            match forward(versioning, asked, schema, request).await {
                Ok(request) => request,
                Err(error) => return error.into_response(),
            }
        }
        _ => request,
    };
    let response = next.run(request).await;
    if response.extensions().get::<Shaped>().is_some() {
        return response;
    }
    let rendered = response.extensions().get::<RenderedAt>().map_or(asked, |rendered| rendered.0);
    if rendered == ApiVersion::LATEST || !is_json(&response) {
        return response;
    }
    let status = response.status();
    if let Some(schema) =
        operation.answers.get(&status.as_u16()).filter(|schema| versioning.changes_answer(rendered, schema))
        && status.is_success()
    {
        return rewrite(response, |body| versioning.response_to(rendered, schema, body).ok().flatten()).await;
    }
    match request_schema {
        Some(schema) if status.is_client_error() && versioning.changes_request(asked, schema) => {
            rewrite(response, |body| error_named_at(versioning, asked, schema, body)).await
        }
        _ => response,
    }
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"))
}

/// The request with its body made what the newest version reads. A body that is not JSON goes
/// on as it was, for the handler to refuse as it does.
async fn forward(
    versioning: &Versioning,
    asked: ApiVersion,
    schema: &str,
    request: Request,
) -> Result<Request, ApiError> {
    let (mut parts, body) = request.into_parts();
    let bytes = http_body_util::Limited::new(body, BODY_LIMIT).collect().await.map_err(|error| {
        if error.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
            ApiError::PayloadTooLarge
        } else {
            ApiError::invalid("the request body could not be read")
        }
    })?;
    let bytes = bytes.to_bytes();
    let text = bytes.trim_ascii();
    let empty = text.is_empty() || text == b"null";
    let parsed = if empty && versioning.body_optional(asked, schema) {
        // An older version took no body here: it reads as the properties' old defaults.
        Some(Value::Object(serde_json::Map::new()))
    } else {
        serde_json::from_slice::<Value>(&bytes).ok().filter(Value::is_object)
    };
    let body = match parsed {
        Some(mut value) => {
            versioning.request_from(asked, schema, &mut value);
            if empty && !parts.headers.contains_key(header::CONTENT_TYPE) {
                parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            }
            Bytes::from(serde_json::to_vec(&value).map_err(ApiError::internal)?)
        }
        None => bytes,
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Ok(Request::from_parts(parts, Body::from(body)))
}

/// The response with its body replaced by `change(body)`, when that gives one.
async fn rewrite(response: Response, change: impl FnOnce(&[u8]) -> Option<Vec<u8>>) -> Response {
    let (mut parts, body) = response.into_parts();
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => return ApiError::internal(anyhow::anyhow!("answer not read: {error}")).into_response(),
    };
    match change(&bytes) {
        Some(changed) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(changed))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}

/// An error about a request's fields, naming them as the request's version does.
fn error_named_at(versioning: &Versioning, asked: ApiVersion, schema: &str, body: &[u8]) -> Option<Vec<u8>> {
    let mut error: Value = serde_json::from_slice(body).ok()?;
    let mut renamed = Vec::new();
    for detail in error.get_mut("details").and_then(Value::as_array_mut).into_iter().flatten() {
        let Some(field) = detail.get("field").and_then(Value::as_str) else { continue };
        if let Some(older) = versioning.error_field_to(asked, schema, field) {
            renamed.push((format!("{field}: "), format!("{older}: ")));
            detail["field"] = Value::String(older);
        }
    }
    if renamed.is_empty() {
        return None;
    }
    if let Some(Value::String(message)) = error.get_mut("error") {
        for (newer, older) in &renamed {
            *message = message.replace(newer, older);
        }
    }
    serde_json::to_vec(&error).ok()
}
