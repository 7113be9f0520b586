//! One call on the wire: the token, the `Idempotency-Key`, retries, and turning the answer
//! into a typed value or an [`Error`].

use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use subscriber_protocol::{ErrorBody, LoginRequest, LoginResponse, codes};

use crate::auth::{Credentials, LogIn, Secret, Token};
use crate::client::Inner;
use crate::error::{ApiError, Error, Result};
use crate::routes::{self, Route, Safety};

pub(crate) const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
pub(crate) const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
/// Every request names the version this client's types are written in: the newest.
pub(crate) const VERSION: HeaderName = HeaderName::from_static("subscriber-version");

/// A request before it is sent: which route, the concrete path, query and JSON body.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub method: Method,
    /// Recorded in the metrics: the route template, or the path itself for raw calls.
    pub template: String,
    pub authenticated: bool,
    pub safety: Safety,
    pub path: String,
    pub query: Option<String>,
    pub body: Option<Bytes>,
    /// The media type asked for, when not JSON (an export).
    pub accept: Option<&'static str>,
    /// The API version the request is written in, when not this client's (the API shell).
    pub version: Option<subscriber_protocol::versions::ApiVersion>,
}

impl Call {
    pub fn new(route: &Route, path: impl Into<String>) -> Self {
        Self {
            method: Method::from_bytes(route.method.as_bytes()).unwrap_or(Method::POST),
            template: route.template.to_owned(),
            authenticated: route.authenticated,
            safety: route.safety,
            path: path.into(),
            query: None,
            body: None,
            accept: None,
            version: None,
        }
    }

    pub fn json(mut self, body: &impl Serialize) -> Result<Self> {
        let bytes = serde_json::to_vec(body).map_err(|error| Error::invalid("body", error.to_string()))?;
        self.body = Some(Bytes::from(bytes));
        Ok(self)
    }

    pub fn query(mut self, query: &impl Serialize) -> Result<Self> {
        let encoded = serde_urlencoded::to_string(query).map_err(|error| Error::invalid("query", error.to_string()))?;
        self.query = (!encoded.is_empty()).then_some(encoded);
        Ok(self)
    }

    pub fn endpoint(&self) -> String {
        format!("{} {}", self.method, self.template)
    }
}

/// What came back: any status.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Answer {
    fn request_id(&self) -> Option<String> {
        self.headers.get(REQUEST_ID).and_then(|value| value.to_str().ok()).map(str::to_owned)
    }
}

impl Inner {
    /// Sends `call` (logging in first when needed), retries where safe, and returns a success
    /// answer or the error.
    pub async fn execute(&self, call: &Call) -> Result<Answer> {
        // One key for every attempt of this call: a retry must be recognised as the same request.
        let key = (call.safety == Safety::Keyed).then(|| uuid::Uuid::new_v4().to_string());
        let token = if call.authenticated { self.auth.token(self).await? } else { None };
        let answer = self.attempts(call, token.as_ref(), key.as_deref()).await?;
        if answer.status == StatusCode::UNAUTHORIZED
            && self.auth.has_credentials()
            && let Some(rejected) = &token
            && error_code(&answer.body).as_deref() == Some(codes::TOKEN_EXPIRED)
        {
            self.metrics.expired_token_retry();
            let token = self.auth.renew_after_rejection(self, rejected).await?;
            let answer = self.attempts(call, token.as_ref(), key.as_deref()).await?;
            return success(call, answer);
        }
        success(call, answer)
    }

    /// Sends `call` once (logging in first when needed) and returns whatever came back, any
    /// status: what the API shell shows.
    pub async fn send_once_raw(&self, call: &Call) -> Result<Answer> {
        let token = if call.authenticated { self.auth.token(self).await? } else { None };
        self.send_once(call, token.as_ref(), None).await
    }

    pub async fn call<T: DeserializeOwned>(&self, call: Call) -> Result<T> {
        let answer = self.execute(&call).await?;
        decode(&call, &answer)
    }

    /// The request as it goes on the wire.
    pub fn request(&self, call: &Call, token: Option<&Secret>, key: Option<&str>) -> Result<reqwest::RequestBuilder> {
        let url = match &call.query {
            Some(query) => format!("{}{}?{}", self.base_url, call.path, query),
            None => format!("{}{}", self.base_url, call.path),
        };
        let mut request = self.http.request(call.method.clone(), url).header(
            VERSION,
            HeaderValue::from_static(
                call.version.unwrap_or(subscriber_protocol::versions::ApiVersion::LATEST).as_str(),
            ),
        );
        if let Some(token) = token {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
                .map_err(|_| Error::invalid("token", "contains characters a header cannot carry"))?;
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        if let Some(key) = key {
            request = request.header(IDEMPOTENCY_KEY, key);
        }
        if let Some(accept) = call.accept {
            request = request.header(reqwest::header::ACCEPT, accept);
        }
        if let Some(body) = &call.body {
            request = request.header(CONTENT_TYPE, "application/json").body(body.clone());
        }
        Ok(request)
    }

    /// Sends until an answer that should not be repeated, or the retry budget is spent.
    async fn attempts(&self, call: &Call, token: Option<&Secret>, key: Option<&str>) -> Result<Answer> {
        let started = Instant::now();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = self.send_once(call, token, key).await;
            let wait = match &outcome {
                Ok(answer) if answer.status.is_success() => return outcome,
                Ok(answer) => retry_after(&answer.headers).unwrap_or_else(|| self.retry.backoff(attempt)),
                Err(_) => self.retry.backoff(attempt),
            };
            let may_retry = match &outcome {
                Ok(answer) => is_retryable_status(call, answer.status),
                Err(error) => is_retryable_failure(call, error),
            };
            if !may_retry || attempt >= self.retry.max_attempts || started.elapsed() + wait > self.retry.max_elapsed {
                return outcome;
            }
            tracing::debug!(endpoint = %call.endpoint(), attempt, wait_ms = wait.as_millis() as u64, "retrying");
            self.metrics.retry();
            tokio::time::sleep(wait).await;
        }
    }

    async fn send_once(&self, call: &Call, token: Option<&Secret>, key: Option<&str>) -> Result<Answer> {
        let mut request = self.request(call, token, key)?.timeout(self.request_timeout);
        if call.accept.is_none() {
            request = request.header(ACCEPT, "application/json");
        }
        let response = request.send().await.map_err(|error| transport(call, error))?;
        self.metrics.answered(call.method.as_str(), &call.template);
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await.map_err(|error| transport(call, error))?;
        Ok(Answer { status, headers, body })
    }
}

impl LogIn for Inner {
    async fn log_in(&self, credentials: &Credentials) -> Result<Token> {
        let call = Call::new(&routes::LOGIN, routes::LOGIN.template).json(&LoginRequest {
            email: credentials.email.clone(),
            api_key: credentials.secret.expose().to_owned(),
        })?;
        let sent_at = Instant::now();
        let answer = success(&call, self.attempts(&call, None, None).await?)?;
        let response: LoginResponse = decode(&call, &answer)?;
        self.metrics.login();
        tracing::debug!(validity_seconds = response.validity_seconds, "logged in");
        Ok(Token::issued(response.token, sent_at, Duration::from_secs(response.validity_seconds)))
    }
}

fn is_retryable_status(call: &Call, status: StatusCode) -> bool {
    call.safety != Safety::Unsafe
        && matches!(
            status,
            StatusCode::TOO_MANY_REQUESTS
                | StatusCode::BAD_GATEWAY
                | StatusCode::SERVICE_UNAVAILABLE
                | StatusCode::GATEWAY_TIMEOUT
        )
}

fn is_retryable_failure(call: &Call, error: &Error) -> bool {
    match error {
        // Nothing reached the service: safe to repeat whatever the call.
        Error::Transport { source, .. }
            if source.downcast_ref::<reqwest::Error>().is_some_and(reqwest::Error::is_connect) =>
        {
            true
        }
        Error::Transport { .. } => call.safety != Safety::Unsafe,
        _ => false,
    }
}

pub(crate) fn transport(call: &Call, error: reqwest::Error) -> Error {
    Error::Transport { endpoint: call.endpoint(), timed_out: error.is_timeout(), source: Box::new(error.without_url()) }
}

/// `Retry-After` as seconds or as an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(text).ok()?;
    let wait = at.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

fn error_code(body: &[u8]) -> Option<String> {
    serde_json::from_slice::<ErrorBody>(body).ok().map(|body| body.code)
}

/// The answer when it is a success, else its error.
pub(crate) fn success(call: &Call, answer: Answer) -> Result<Answer> {
    if answer.status.is_success() {
        return Ok(answer);
    }
    Err(api_error(call, &answer).into())
}

pub(crate) fn api_error(call: &Call, answer: &Answer) -> ApiError {
    let header_request_id = answer.request_id();
    let retry_after = retry_after(&answer.headers);
    match serde_json::from_slice::<ErrorBody>(&answer.body) {
        Ok(body) => ApiError {
            status: answer.status,
            code: body.code,
            message: body.error,
            request_id: body.request_id.or(header_request_id),
            details: body.details,
            card_id: body.card_id,
            merchant_id: body.merchant_id,
            locked_until: body.locked_until,
            retry_after,
            endpoint: call.endpoint(),
        },
        Err(_) => ApiError {
            status: answer.status,
            code: "unexpected_response".to_owned(),
            message: format!(
                "{} without the service's error body: {:?}",
                answer.status,
                String::from_utf8_lossy(&answer.body).chars().take(200).collect::<String>()
            ),
            request_id: header_request_id,
            details: Vec::new(),
            card_id: None,
            merchant_id: None,
            locked_until: None,
            retry_after,
            endpoint: call.endpoint(),
        },
    }
}

/// The body as `T`, naming the JSON path that did not fit.
pub(crate) fn decode<T: DeserializeOwned>(call: &Call, answer: &Answer) -> Result<T> {
    decode_bytes(&call.endpoint(), answer.status, answer.request_id(), &answer.body)
}

pub(crate) fn decode_bytes<T: DeserializeOwned>(
    endpoint: &str,
    status: StatusCode,
    request_id: Option<String>,
    body: &[u8],
) -> Result<T> {
    let failed = |path: String, message: String| Error::Decode {
        endpoint: endpoint.to_owned(),
        status,
        path,
        message,
        request_id: request_id.clone(),
    };
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|error| failed(error.path().to_string(), error.inner().to_string()))?;
    deserializer.end().map_err(|error| failed(".".to_owned(), error.to_string()))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Page {
        transactions: Vec<Item>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        amount: f64,
    }

    #[test]
    fn decode_errors_name_the_json_path() {
        let body = br#"{"transactions": [{"amount": 1.5}, {"amount": "12.00"}]}"#;
        let error = decode_bytes::<Page>("GET /x", StatusCode::OK, None, body).expect_err("amount is a string");
        match error {
            Error::Decode { path, .. } => assert_eq!(path, "transactions[1].amount"),
            other => panic!("expected a decode error, got {other:?}"),
        }
        let error = decode_bytes::<Page>("GET /x", StatusCode::OK, None, b"{\"transactions\": [] } x")
            .expect_err("trailing bytes");
        assert!(matches!(error, Error::Decode { .. }), "{error:?}");
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        let in_a_minute = (chrono::Utc::now() + chrono::Duration::seconds(60)).format("%a, %d %b %Y %H:%M:%S GMT");
        headers.insert(RETRY_AFTER, HeaderValue::from_str(&in_a_minute.to_string()).expect("ascii"));
        let wait = retry_after(&headers).expect("a date parses");
        assert!(wait > Duration::from_secs(55) && wait <= Duration::from_secs(60), "{wait:?}");
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers), None);
    }
}
