//! Real-time transactions: Server-Sent Events, reconnected with `Last-Event-ID` when the
//! connection drops, so no event is lost across a reconnection.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt, stream};
use reqwest::StatusCode;
use reqwest::header::ACCEPT;
use serde::de::DeserializeOwned;
use subscriber_protocol::codes;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::routes::Route;
use crate::transport::{Answer, Call, LAST_EVENT_ID, api_error, decode_bytes, transport};

/// The event the service sends per transaction.
pub const TRANSACTION_EVENT: &str = "transaction";

/// One dispatched event of an event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// `message` when the server named none.
    pub event: String,
    pub data: String,
    /// The last `id:` seen on the stream, as of this event.
    pub id: Option<String>,
}

/// An incremental parser of `text/event-stream` (the WHATWG rules: `\n`, `\r\n` or `\r` line
/// ends; `:` comments; multi-line `data`; `id` kept across events; `retry` in milliseconds).
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    /// A `\r` ended the last chunk: a `\n` opening the next one belongs to it.
    pending_cr: bool,
    event: Option<String>,
    data: Option<String>,
    last_event_id: Option<String>,
    /// The reconnection delay the server asked for.
    pub retry: Option<Duration>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes as they arrive; returns the events they complete.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in chunk {
            if std::mem::take(&mut self.pending_cr) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\r' | b'\n' => {
                    self.pending_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.buffer);
                    events.extend(self.line(&line));
                }
                other => self.buffer.push(other),
            }
        }
        events
    }

    fn line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.first() == Some(&b':') {
            return None;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(milliseconds) = value.parse::<u64>() {
                    self.retry = Some(Duration::from_millis(milliseconds));
                }
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        let data = self.data.take()?;
        Some(SseEvent {
            event: event.filter(|name| !name.is_empty()).unwrap_or_else(|| "message".to_owned()),
            data,
            id: self.last_event_id.clone(),
        })
    }

    /// Forgets a half-received event (the connection broke in the middle of it).
    fn reset(&mut self) {
        self.buffer.clear();
        self.pending_cr = false;
        self.event = None;
        self.data = None;
    }
}

/// A stream of the `transaction` events of a card or a merchant, as typed items.
///
/// It reconnects by itself when the connection drops or goes silent, sending `Last-Event-ID`
/// so the service resumes after the last event delivered. It ends with an error when the
/// service refuses it (a wrong id: 404) or after too many failed reconnections in a row.
pub struct TransactionStream<T> {
    inner: BoxStream<'static, Result<T>>,
    connected: tokio::sync::watch::Receiver<bool>,
}

impl<T> std::fmt::Debug for TransactionStream<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TransactionStream")
    }
}

impl<T> Stream for TransactionStream<T> {
    type Item = Result<T>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.inner.poll_next_unpin(context)
    }
}

struct Connection {
    client: Client,
    route: &'static Route,
    path: String,
    /// The id of the last event delivered: sent as `Last-Event-ID` on reconnection.
    last_event_id: Option<String>,
    body: Option<BoxStream<'static, reqwest::Result<Bytes>>>,
    /// Whether the open connection has delivered anything yet.
    received: bool,
    parser: SseParser,
    ready: VecDeque<SseEvent>,
    /// Connections in a row that failed or ended before delivering anything.
    failures: u32,
    connected_once: bool,
    finished: bool,
    /// Whether a connection is open now, for [`TransactionStream::connected`].
    open: tokio::sync::watch::Sender<bool>,
}

impl<T: DeserializeOwned + Send + 'static> TransactionStream<T> {
    pub(crate) fn open(client: &Client, route: &'static Route, path: String, last_event_id: Option<String>) -> Self {
        let (open, connected) = tokio::sync::watch::channel(false);
        let connection = Connection {
            client: client.clone(),
            route,
            path,
            last_event_id,
            body: None,
            received: false,
            parser: SseParser::new(),
            ready: VecDeque::new(),
            failures: 0,
            connected_once: false,
            finished: false,
            open,
        };
        let inner = stream::unfold(connection, |mut connection| async move {
            let item = connection.next_item::<T>().await?;
            Some((item, connection))
        })
        .boxed();
        Self { inner, connected }
    }
}

impl<T> TransactionStream<T> {
    /// Whether the stream has a connection open now (`true` from the service's answer until
    /// the connection drops; `false` while it reconnects and after it ended). The stream
    /// connects when first polled, so keep polling it; this only reports. A UI's "live" light.
    pub fn connected(&self) -> tokio::sync::watch::Receiver<bool> {
        self.connected.clone()
    }
}

/// Why a connection attempt failed, and whether trying again may help.
struct Failure {
    error: Error,
    passing: bool,
}

impl Connection {
    async fn next_item<T: DeserializeOwned>(&mut self) -> Option<Result<T>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                if event.id.is_some() {
                    self.last_event_id.clone_from(&event.id);
                }
                if event.event != TRANSACTION_EVENT {
                    continue;
                }
                return Some(decode_bytes(&self.route.endpoint(), StatusCode::OK, None, event.data.as_bytes()));
            }
            if self.finished {
                return None;
            }
            let Some(body) = self.body.as_mut() else {
                if let Err(error) = self.connect().await {
                    self.finished = true;
                    self.open.send_replace(false);
                    return Some(Err(error));
                }
                continue;
            };
            let idle_timeout = self.client.inner.stream.idle_timeout;
            match tokio::time::timeout(idle_timeout, body.next()).await {
                Ok(Some(Ok(bytes))) => {
                    self.received = true;
                    self.failures = 0;
                    self.ready.extend(self.parser.push(&bytes));
                }
                Ok(Some(Err(error))) => self.drop_connection(&format!("broke: {error}")),
                Ok(None) => self.drop_connection("was closed"),
                Err(_) => self.drop_connection("was silent too long"),
            }
        }
    }

    fn drop_connection(&mut self, why: &str) {
        tracing::debug!(path = %self.path, "event stream {why}: reconnecting");
        if !self.received {
            self.failures += 1;
        }
        self.body = None;
        self.parser.reset();
        self.open.send_replace(false);
    }

    /// Opens the connection, waiting and retrying while the failures are passing ones. An error
    /// returned here ends the stream.
    async fn connect(&mut self) -> Result<()> {
        let inner = &self.client.inner;
        loop {
            if self.failures > inner.stream.max_reconnect_attempts {
                return Err(Error::Transport {
                    endpoint: self.route.endpoint(),
                    timed_out: false,
                    source: format!("{} connections in a row ended before delivering anything", self.failures).into(),
                });
            }
            if self.connected_once || self.failures > 0 {
                let backoff = inner.retry.backoff(self.failures.max(1));
                tokio::time::sleep(backoff.max(self.parser.retry.unwrap_or_default())).await;
                inner.metrics.stream_reconnect();
            }
            match open_once(&self.client, self.route, &self.path, self.last_event_id.as_deref()).await {
                Ok(body) => {
                    self.body = Some(body);
                    self.received = false;
                    self.connected_once = true;
                    self.open.send_replace(true);
                    return Ok(());
                }
                Err(Failure { error, passing }) => {
                    self.failures += 1;
                    if !passing || self.failures > inner.stream.max_reconnect_attempts {
                        return Err(error);
                    }
                    tracing::debug!(path = %self.path, error = %error, failures = self.failures, "stream connection failed");
                }
            }
        }
    }
}

/// One connection attempt.
async fn open_once(
    client: &Client,
    route: &'static Route,
    path: &str,
    last_event_id: Option<&str>,
) -> Result<BoxStream<'static, reqwest::Result<Bytes>>, Failure> {
    let inner = &client.inner;
    let call = Call::new(route, path);
    let token = inner.auth.token(inner.as_ref()).await.map_err(login_failure)?;
    let mut request = inner
        .request(&call, token.as_ref(), None)
        .map_err(|error| Failure { error, passing: false })?
        .header(ACCEPT, "text/event-stream");
    if let Some(id) = last_event_id {
        request = request.header(LAST_EVENT_ID, id);
    }
    let response = request.send().await.map_err(|error| Failure { error: transport(&call, error), passing: true })?;
    inner.metrics.answered(call.method.as_str(), &call.template);
    let status = response.status();
    if status.is_success() {
        return Ok(response.bytes_stream().boxed());
    }
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap_or_default();
    let error = api_error(&call, &Answer { status, headers, body });
    if status == StatusCode::UNAUTHORIZED
        && error.code == codes::TOKEN_EXPIRED
        && inner.auth.has_credentials()
        && let Some(rejected) = &token
    {
        inner.metrics.expired_token_retry();
        inner.auth.renew_after_rejection(inner.as_ref(), rejected).await.map_err(login_failure)?;
        return Err(Failure { error: error.into(), passing: true });
    }
    let passing = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
    Err(Failure { error: error.into(), passing })
}

/// A login that failed while reconnecting: worth retrying only when the service was unreachable.
fn login_failure(error: Error) -> Failure {
    let passing = matches!(error, Error::Transport { .. });
    Failure { error, passing }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_split_on_blank_lines_and_comments_are_skipped() {
        let mut parser = SseParser::new();
        let events =
            parser.push(b": keep-alive\n\nevent: transaction\nid: 7\ndata: {\"a\":1}\n\nevent: transaction\ndata: x\n");
        assert_eq!(
            events,
            vec![SseEvent { event: "transaction".to_owned(), data: "{\"a\":1}".to_owned(), id: Some("7".to_owned()) }]
        );
        let events = parser.push(b"\n");
        assert_eq!(
            events,
            vec![SseEvent { event: "transaction".to_owned(), data: "x".to_owned(), id: Some("7".to_owned()) }]
        );
    }

    #[test]
    fn events_survive_any_chunking_and_line_ending() {
        let text =
            "retry: 1500\r\nevent: transaction\r\nid: 1\r\ndata: one\r\ndata: two\r\n\r\n:ping\r\rdata:three\n\n";
        let whole = SseParser::new().push(text.as_bytes());
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[0].data, "one\ntwo");
        assert_eq!(
            whole[1],
            SseEvent { event: "message".to_owned(), data: "three".to_owned(), id: Some("1".to_owned()) }
        );
        for split in 0..text.len() {
            let mut parser = SseParser::new();
            let mut events = parser.push(&text.as_bytes()[..split]);
            events.extend(parser.push(&text.as_bytes()[split..]));
            assert_eq!(events, whole, "split at {split}");
            assert_eq!(parser.retry, Some(Duration::from_millis(1500)));
        }
    }

    #[test]
    fn a_half_received_event_is_dropped_on_reset() {
        let mut parser = SseParser::new();
        assert!(parser.push(b"event: transaction\nid: 4\ndata: {\"par").is_empty());
        parser.reset();
        let events = parser.push(b"data: whole\n\n");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "whole");
        assert_eq!(events[0].event, "message");
        assert_eq!(events[0].id.as_deref(), Some("4"), "the id buffer survives a reconnection");
    }
}
