//! Extractors whose rejections are the contract's JSON errors.

use axum::body::Bytes;
use std::sync::Arc;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap, header};
use axum::middleware::Next;
use axum::response::Response;
use parking_lot::Mutex;
use serde::de::DeserializeOwned;

use crate::credentials::VerifiedToken;
use crate::error::ApiError;
use crate::state::AppState;

/// The largest body the service reads (the contract's 64 KiB).
pub const BODY_LIMIT: usize = 64 * 1024;

/// A JSON body: 415 unless sent as JSON, 413 over the limit, 400 naming the JSON path that
/// failed to parse.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = json_body(request, state).await?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// A JSON body whose fields are all optional: an empty body is the default value.
pub struct ApiJsonOrEmpty<T>(pub T);

impl<T: DeserializeOwned + Default, S: Send + Sync> FromRequest<S> for ApiJsonOrEmpty<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = json_body(request, state).await?;
        // `null` is no body too: it is what a client serializing "nothing" sends.
        let text = bytes.trim_ascii();
        if text.is_empty() || text == b"null" {
            return Ok(ApiJsonOrEmpty(T::default()));
        }
        parse_json(&bytes).map(ApiJsonOrEmpty)
    }
}

/// The body's bytes: 415 unless sent as JSON (an empty body may come without a type), 413
/// over the limit.
async fn json_body<S: Send + Sync>(request: Request, state: &S) -> Result<Bytes, ApiError> {
    let is_json =
        request.headers().get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).map(is_json_content_type);
    let bytes = Bytes::from_request(request, state).await.map_err(|rejection| {
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge
        } else {
            ApiError::invalid("the request body could not be read")
        }
    })?;
    match is_json {
        Some(true) => Ok(bytes),
        Some(false) => {
            Err(ApiError::UnsupportedMediaType("send the body with Content-Type: application/json".to_owned()))
        }
        None if bytes.is_empty() => Ok(bytes),
        None => {
            Err(ApiError::UnsupportedMediaType("the body has no Content-Type: send it as application/json".to_owned()))
        }
    }
}

fn is_json_content_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Parses a JSON body, naming the field that failed.
///
/// JSON has one kind of number: `2030.0` is the integer 2030 (as JSON Schema says too), so
/// integral numbers written with a fraction are read as integers before the fields are.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::invalid("the request body is empty: send a JSON object"));
    }
    let mut value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| {
        if error.is_syntax() && error.to_string().starts_with("trailing characters") {
            ApiError::invalid("the body has trailing characters after the JSON value")
        } else {
            ApiError::invalid(format!("the body is not valid JSON for this request: {error}"))
        }
    })?;
    // Every body this service reads is an object. serde would also fill a struct from an
    // array, by position (`[]` for a body whose fields are all optional): not what the
    // contract or the OpenAPI document accepts.
    if !value.is_object() {
        return Err(ApiError::invalid("the body must be a JSON object"));
    }
    integral_numbers_as_integers(&mut value);
    let value = serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let message = describe_json_error(&inner);
        if let Some(missing) = missing_field(&message) {
            let field = if path == "." { missing.to_owned() } else { format!("{path}.{missing}") };
            return ApiError::invalid_field(field, "is required");
        }
        if inner.is_syntax() || inner.is_eof() || path == "." {
            ApiError::invalid(format!("the body is not valid JSON for this request: {message}"))
        } else {
            ApiError::invalid_field(path, message)
        }
    })?;
    Ok(value)
}

fn integral_numbers_as_integers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(number) => {
            if let Some(float) = number.as_f64().filter(|float| number.is_f64() && float.fract() == 0.0) {
                // Casts are exact here: the value is integral and inside the target's range.
                // `i64::MIN` itself stays a float: an integer written in range arrives as one,
                // so a float there is one below the range rounded up to it
                // (`-9223372036854775809`), which the field's own rule refuses.
                if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
                    *number = serde_json::Number::from(float as u64);
                } else if float > -9_223_372_036_854_775_808.0 && float < 0.0 {
                    *number = serde_json::Number::from(float as i64);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral_numbers_as_integers),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(integral_numbers_as_integers),
        _ => {}
    }
}

/// serde names a missing field only in its message: "missing field `pan`".
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.split('`').next()
}

/// serde's messages end in "at line 1 column 9"; the field path says more to a user.
fn describe_json_error(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(cut) if !error.is_syntax() && !error.is_eof() => text[..cut].to_owned(),
        _ => text,
    }
}

/// A query string: 400 naming the parameter that failed.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or_default();
        let deserializer = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(deserializer).map(ApiQuery).map_err(|error| {
            let path = error.path().to_string();
            let message = error.into_inner().to_string();
            if path == "." {
                ApiError::invalid(format!("the query string is not valid: {message}"))
            } else {
                ApiError::invalid_field(path, message)
            }
        })
    }
}

/// A numeric id from the path, as the id type `T` (`IdPath<WebhookId>`). An id that is not a
/// number addresses nothing: 404.
pub struct IdPath<T = i64>(pub T);

/// Ids are counted up from 1; an id of 12 digits or more is a card number typed in the wrong
/// place far more likely than an id, and must not be echoed in the answer.
const LARGEST_ID: i64 = 99_999_999_999;

impl<S: Send + Sync, T: From<i64>> FromRequestParts<S> for IdPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let axum::extract::Path(raw) = axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::not_found("no such path"))?;
        raw.parse::<i64>().ok().filter(|id| (1..=LARGEST_ID).contains(id)).map(|id| IdPath(T::from(id))).ok_or_else(
            || {
                ApiError::not_found(format!(
                    "no resource with id {:?}: ids are positive integers",
                    crate::redact::client_path(&raw)
                ))
            },
        )
    }
}

/// The subscriber a bearer token speaks for.
#[derive(Debug, Clone)]
pub struct Auth {
    pub subscriber_id: SubscriberId,
    pub client_id: Arc<str>,
    /// The credential generation the token was issued under.
    pub generation: i64,
    /// When the token stops working (Unix seconds).
    pub expires_at: UnixSeconds,
}

/// Why the request's bearer token was refused, left in the request's extensions by
/// [`authenticate_requests`] for the [`Auth`] extractor to answer with. The error is not
/// `Clone` (it may carry the cause of a database failure), so the first extractor takes it.
#[derive(Clone)]
struct TokenRefused(Arc<Mutex<Option<ApiError>>>);

/// What the request's bearer token proved, as [`authenticate_requests`] decided it.
pub enum TokenCheck<'a> {
    /// No `Authorization` header: an anonymous caller.
    Absent,
    Verified(&'a Auth),
    /// A token was sent and refused; the [`Auth`] extractor answers with the precise 401.
    Refused,
}

impl TokenCheck<'_> {
    pub fn of(extensions: &Extensions) -> TokenCheck<'_> {
        match extensions.get::<Auth>() {
            Some(auth) => TokenCheck::Verified(auth),
            None if extensions.get::<TokenRefused>().is_some() => TokenCheck::Refused,
            None => TokenCheck::Absent,
        }
    }
}

/// Middleware outside every layer that needs the caller (request limits, idempotency, usage,
/// the [`Auth`] extractor): the one check of a request's bearer token, so a token is verified
/// once per request. It refuses nothing itself: a public route ignores a bad token, and the
/// extractor of a protected route answers with why it was refused.
pub async fn authenticate_requests(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let mut caller = None;
    if request.headers().contains_key(header::AUTHORIZATION) {
        match authenticate(&state, request.headers()).await {
            Ok(auth) => {
                caller = Some(crate::request_history::AuthenticatedAs(auth.subscriber_id));
                request.extensions_mut().insert(auth);
            }
            Err(refusal) => {
                request.extensions_mut().insert(TokenRefused(Arc::new(Mutex::new(Some(refusal)))));
            }
        }
    }
    let mut response = next.run(request).await;
    // For the subscriber's request log.
    if let Some(caller) = caller {
        response.extensions_mut().insert(caller);
    }
    response
}

/// The check of a bearer token: signature, expiry, environment, and that no secret rotation
/// has revoked it.
async fn authenticate(state: &AppState, headers: &HeaderMap) -> Result<Auth, ApiError> {
    let header_value = headers
        .get(header::AUTHORIZATION)
        .ok_or_else(missing_authorization)?
        .to_str()
        .map_err(|_| ApiError::Unauthorized("the Authorization header is not valid text".to_owned()))?;
    let token = bearer_token(header_value)
        .ok_or_else(|| ApiError::Unauthorized("the Authorization header must be Bearer <token>".to_owned()))?;
    let VerifiedToken { subscriber_id, client_id, generation, expires_at } = state.auth.verify_token(token)?;
    match state.generations.current(&state.db, subscriber_id).await? {
        None => return Err(ApiError::Unauthorized("the subscriber of this token no longer exists".to_owned())),
        Some(current) if current != generation => return Err(ApiError::TokenRevoked),
        Some(_) => {}
    }
    Ok(Auth { subscriber_id, client_id, generation, expires_at })
}

fn missing_authorization() -> ApiError {
    ApiError::Unauthorized("missing Authorization header: send Authorization: Bearer <token>".to_owned())
}

/// A protected route's caller, as [`authenticate_requests`] verified it.
impl<S: Send + Sync> FromRequestParts<S> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let extensions = &parts.extensions;
        if let Some(auth) = extensions.get::<Auth>() {
            return Ok(auth.clone());
        }
        match extensions.get::<TokenRefused>() {
            // A second `Auth` in one handler finds the refusal already taken.
            Some(TokenRefused(refusal)) => Err(refusal
                .lock()
                .take()
                .unwrap_or_else(|| ApiError::Unauthorized("the bearer token was refused".to_owned()))),
            None => Err(missing_authorization()),
        }
    }
}

fn bearer_token(header_value: &str) -> Option<&str> {
    let (scheme, token) = header_value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }

    #[test]
    fn json_content_types() {
        assert!(is_json_content_type("application/json"));
        assert!(is_json_content_type("application/json; charset=utf-8"));
        assert!(is_json_content_type("application/merge-patch+json"));
        assert!(!is_json_content_type("text/plain"));
    }

    #[test]
    fn integral_numbers_with_a_fraction_are_integers() {
        #[derive(serde::Deserialize, Debug)]
        struct Body {
            year: u32,
            amount: f64,
        }
        let body = parse_json::<Body>(br#"{"year": 2030.0, "amount": 12}"#).expect("2030.0 is an integer");
        assert_eq!((body.year, body.amount), (2030, 12.0));
        let error = parse_json::<Body>(br#"{"year": 2030.5, "amount": 1}"#).expect_err("not an integer");
        match error {
            ApiError::InvalidRequest { details, .. } => assert_eq!(details[0].field, "year"),
            other => panic!("unexpected {other:?}"),
        }
        assert!(parse_json::<Body>(br#"{"year": 2030, "amount": 1} x"#).is_err());
        // An integer below i64::MIN (a float rounded to it) is not taken as i64::MIN, and the
        // smallest i64 itself still is (Schemathesis sent `streetNo: -9223372036854775809`).
        #[derive(serde::Deserialize, Debug)]
        struct Signed {
            number: i64,
        }
        assert!(parse_json::<Signed>(br#"{"number": -9223372036854775809}"#).is_err());
        let smallest = parse_json::<Signed>(br#"{"number": -9223372036854775808}"#).expect("in range");
        assert_eq!(smallest.number, i64::MIN);
        let location = br#"{"location": {"street": "S", "streetNo": -9223372036854775809}, "metadata": {}}"#;
        assert!(parse_json::<subscriber_protocol::rules::merchants::LocationBody>(location).is_err());
        // A large integer written with a fraction is read exactly (serde_json's fast float parser
        // could land one ULP beside it, a fraction the service then refused).
        #[derive(serde::Deserialize, Debug)]
        struct Id {
            id: i64,
        }
        let id = parse_json::<Id>(br#"{"id": -4125180098434002.0}"#).expect("an integer");
        assert_eq!(id.id, -4_125_180_098_434_002);
    }

    #[test]
    fn parse_errors_name_the_field() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Body {
            inner: Inner,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Inner {
            count: u32,
        }
        let error = parse_json::<Body>(br#"{"inner": {"count": "x"}}"#).expect_err("wrong type");
        match error {
            ApiError::InvalidRequest { details, .. } => assert_eq!(details[0].field, "inner.count"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
