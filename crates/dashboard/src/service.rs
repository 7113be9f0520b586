//! The HTTP calls the dashboard makes, in one small module.
//!
//! The typed client (`crates/client`) is the project's way to talk to the service; until it is
//! on `main`, these few calls stand in for it, with the same shape (one method per endpoint,
//! errors carrying status, code, message and request id), so swapping is local to this file.

use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;
use subscriber_protocol::{
    CardList, CardTransaction, CardTransactionPage, CardTransactionQuery, EnrollCardRequest, EnrollCardResponse,
    ErrorBody, LoginRequest, LoginResponse, RotateSecretResponse, SandboxCardList, SandboxTransactionRequest,
    SandboxTransactionResponse, SignupRequest, SignupResponse, SubscriberProfile,
};

use crate::error::{CommandError, codes};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// One service, by base URL.
#[derive(Debug, Clone)]
pub struct Service {
    http: reqwest::Client,
    /// Without a trailing slash.
    base_url: String,
}

impl Service {
    pub fn new(base_url: &str) -> Result<Self, CommandError> {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("subscriber-dashboard/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| CommandError::new(codes::UNREACHABLE, format!("no HTTP client: {error}")))?;
        Ok(Self { http, base_url: base_url.trim_end_matches('/').to_owned() })
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Whether the service answers at all: any contract JSON (here a 401 for a call without a
    /// token) proves it is there.
    pub async fn probe(&self) -> Result<(), CommandError> {
        let response = self.request(Method::GET, "/subscriber", None).send().await.map_err(transport)?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(transport)?;
        if serde_json::from_slice::<ErrorBody>(&bytes).is_ok() || status.is_success() {
            return Ok(());
        }
        Err(CommandError {
            status: Some(status.as_u16()),
            request_id: request_id(&headers),
            ..CommandError::new(
                codes::UNEXPECTED_RESPONSE,
                format!("{} answers, but not as a Subscriber Data service (HTTP {status})", self.base_url),
            )
        })
    }

    pub async fn signup(&self, email: &str) -> Result<SignupResponse, CommandError> {
        let body = SignupRequest { email: email.to_owned() };
        self.send(
            self.request(Method::POST, "/subscriber/signup", None)
                .json(&body)
                .header("Idempotency-Key", uuid::Uuid::new_v4().to_string()),
        )
        .await
    }

    pub async fn login(&self, email: &str, api_key: &str) -> Result<LoginResponse, CommandError> {
        let body = LoginRequest { email: email.to_owned(), api_key: api_key.to_owned() };
        self.send(self.request(Method::POST, "/subscriber/login", None).json(&body)).await
    }

    pub async fn profile(&self, token: &str) -> Result<SubscriberProfile, CommandError> {
        self.send(self.request(Method::GET, "/subscriber", Some(token))).await
    }

    pub async fn rotate_secret(&self, token: &str) -> Result<RotateSecretResponse, CommandError> {
        self.send(self.request(Method::POST, "/subscriber/secret/rotate", Some(token)).json(&serde_json::json!({})))
            .await
    }

    pub async fn cards(&self, token: &str) -> Result<CardList, CommandError> {
        self.send(self.request(Method::GET, "/card", Some(token))).await
    }

    pub async fn enroll_card(&self, token: &str, card: &EnrollCardRequest) -> Result<EnrollCardResponse, CommandError> {
        self.send(
            self.request(Method::POST, "/card", Some(token))
                .json(card)
                .header("Idempotency-Key", uuid::Uuid::new_v4().to_string()),
        )
        .await
    }

    pub async fn card_transactions(
        &self,
        token: &str,
        card_id: i64,
        query: &CardTransactionQuery,
    ) -> Result<CardTransactionPage, CommandError> {
        self.send(self.request(Method::GET, &format!("/card/{card_id}/transactions"), Some(token)).query(query)).await
    }

    pub async fn sandbox_cards(&self, token: &str) -> Result<SandboxCardList, CommandError> {
        self.send(self.request(Method::GET, "/sandbox/cards", Some(token))).await
    }

    pub async fn sandbox_transaction(
        &self,
        token: &str,
        request: &SandboxTransactionRequest,
    ) -> Result<SandboxTransactionResponse, CommandError> {
        self.send(self.request(Method::POST, "/sandbox/transactions", Some(token)).json(request)).await
    }

    /// The card's real-time stream (Server-Sent Events), resuming after `last_event_id`.
    pub async fn card_transaction_stream(
        &self,
        token: &str,
        card_id: i64,
        last_event_id: Option<&str>,
    ) -> Result<BoxStream<'static, Result<SseEvent, CommandError>>, CommandError> {
        let mut request = self
            .http
            .get(format!("{}/card/{card_id}/transactions/stream", self.base_url))
            .header(AUTHORIZATION, bearer(token)?)
            .header("Accept", "text/event-stream");
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.send().await.map_err(transport)?;
        if !response.status().is_success() {
            return Err(service_error(response).await);
        }
        let mut parser = SseParser::default();
        let bytes = response.bytes_stream();
        Ok(bytes
            .flat_map(move |chunk| {
                let events: Vec<Result<SseEvent, CommandError>> = match chunk {
                    Ok(chunk) => parser.push(&chunk).into_iter().map(Ok).collect(),
                    Err(error) => vec![Err(transport(error))],
                };
                futures::stream::iter(events)
            })
            .boxed())
    }

    fn request(&self, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
        let mut headers = HeaderMap::new();
        if let Some(token) = token
            && let Ok(value) = bearer(token)
        {
            headers.insert(AUTHORIZATION, value);
        }
        self.http.request(method, format!("{}{path}", self.base_url)).timeout(REQUEST_TIMEOUT).headers(headers)
    }

    async fn send<T: DeserializeOwned>(&self, request: RequestBuilder) -> Result<T, CommandError> {
        let response = request.send().await.map_err(transport)?;
        if !response.status().is_success() {
            return Err(service_error(response).await);
        }
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(transport)?;
        serde_json::from_slice(&bytes).map_err(|error| CommandError {
            request_id: request_id(&headers),
            ..CommandError::new(codes::UNEXPECTED_RESPONSE, format!("the service's answer was not understood: {error}"))
        })
    }
}

fn bearer(token: &str) -> Result<HeaderValue, CommandError> {
    let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| CommandError::new(codes::INVALID_INPUT, "the token is not a valid header value"))?;
    value.set_sensitive(true);
    Ok(value)
}

fn request_id(headers: &HeaderMap) -> Option<String> {
    headers.get("x-request-id").and_then(|value| value.to_str().ok()).map(str::to_owned)
}

async fn service_error(response: reqwest::Response) -> CommandError {
    let status = response.status();
    let header_request_id = request_id(response.headers());
    let bytes = response.bytes().await.unwrap_or_default();
    match serde_json::from_slice::<ErrorBody>(&bytes) {
        Ok(body) => CommandError::from_service(status.as_u16(), body, header_request_id),
        Err(_) => CommandError {
            status: Some(status.as_u16()),
            request_id: header_request_id,
            ..CommandError::new(
                if status == StatusCode::BAD_GATEWAY || status == StatusCode::SERVICE_UNAVAILABLE {
                    codes::UNREACHABLE
                } else {
                    codes::UNEXPECTED_RESPONSE
                },
                format!("the service answered HTTP {status} without an error body"),
            )
        },
    }
}

fn transport(error: reqwest::Error) -> CommandError {
    let message = if error.is_timeout() {
        "the service did not answer in time".to_owned()
    } else if error.is_connect() {
        "the service cannot be reached".to_owned()
    } else {
        format!("the connection to the service failed: {error}")
    };
    CommandError::new(codes::UNREACHABLE, message)
}

/// One Server-Sent Event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub id: Option<String>,
    pub data: String,
}

impl SseEvent {
    /// The transaction a `transaction` event carries.
    pub fn transaction(&self) -> Option<CardTransaction> {
        (self.event == "transaction").then(|| serde_json::from_str(&self.data).ok()).flatten()
    }
}

/// Turns the bytes of an event stream into events, across chunk boundaries (the format of the
/// HTML standard: `field: value` lines, a blank line ends an event, `:` lines are comments).
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    current: SseEvent,
    has_data: bool,
}

impl SseParser {
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|byte| *byte == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if self.has_data {
                    let mut event = std::mem::take(&mut self.current);
                    if event.event.is_empty() {
                        event.event = "message".to_owned();
                    }
                    events.push(event);
                } else {
                    self.current = SseEvent::default();
                }
                self.has_data = false;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => self.current.event = value.to_owned(),
                "id" => self.current.id = Some(value.to_owned()),
                "data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    self.current.data.push_str(value);
                    self.has_data = true;
                }
                _ => {}
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_split_across_chunks_and_comments_are_skipped() {
        let mut parser = SseParser::default();
        assert!(parser.push(b": keep-alive\n\nevent: transac").is_empty());
        let events = parser.push(b"tion\nid: 7\ndata: {\"a\":\ndata: 1}\n\n");
        assert_eq!(
            events,
            vec![SseEvent { event: "transaction".into(), id: Some("7".into()), data: "{\"a\":\n1}".into() }]
        );
        let events = parser.push(b"data: plain\r\n\r\n");
        assert_eq!(events[0].event, "message");
        assert_eq!(events[0].data, "plain");
    }
}
