//! Each subscriber's API requests, kept in the database for `--request-log-days` (14) on every
//! instance and across restarts (contract: "Request history"): `GET /subscriber/requests`, one
//! by its id with its bodies, an NDJSON export, and the dashboard's request log.
//!
//! The layer `http::request_log` hands each answered request over here ([`RequestHistory::record`],
//! no database wait on the request's path); a writer task stores what came in since its last
//! write in one batch, masking first ([`crate::redact::body`]): no card number, secret, token
//! or password reaches a stored byte. A read on this instance writes what is waiting first, so
//! a client reads its own requests; another instance's land within moments.
//!
//! Bounds: each subscriber keeps at most [`REQUEST_HISTORY_MAX_REQUESTS`] requests and
//! [`REQUEST_HISTORY_MAX_BYTES`], its own oldest going first (no subscriber's requests push out
//! another's); what waits in memory is bounded too (beyond it, requests go unrecorded and the
//! log says so); the age prune deletes a batch at a time, never holding the writer long.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use subscriber_protocol::{SubscriberId, UnixMillis};

use bytes::Bytes;
use parking_lot::Mutex;
use subscriber_protocol::{REQUEST_HISTORY_BODY_BYTES, REQUEST_HISTORY_MAX_BYTES, REQUEST_HISTORY_MAX_REQUESTS};

pub use crate::storage::request_history::RequestLine;
use crate::storage::request_history::RequestRecord;
use crate::storage::{StorageResult, Store};

/// Requests waiting to be written, at most, and the bytes of their bodies; beyond, they go
/// unrecorded (and the log says so).
const WAITING_AT_MOST: usize = 65_536;
const WAITING_BYTES_AT_MOST: usize = 64 * 1024 * 1024;
/// Requests masked and written together, at most.
const WRITE_CHUNK: usize = 2_048;
/// The writer writes at most this often: one batch in one transaction, not one per request
/// (a busy service's requests would otherwise each cost a commit and two thread hand-offs).
const WRITE_EVERY: Duration = Duration::from_millis(100);
/// A subscriber's history is brought within its count after this many of its requests written
/// by this instance (a look at its index), and within its bytes after this many bytes (a look
/// at its rows).
const BOUND_EVERY: u32 = 5_000;
const BOUND_BYTES_EVERY: usize = 16 * 1024 * 1024;
/// The most of a successful read's answer kept.
pub const READ_ANSWER_BYTES: usize = 2 * 1024;
/// The most ids kept of one request.
const IDS_AT_MOST: usize = 64;

/// Routes whose request bodies are a person's data sent to verify their identity: checked,
/// never stored (SECURITY.md), so the history keeps only that there was one.
const PERSONAL_DATA_SENT: [&str; 2] = ["/persons/authenticate", "/persons/verify"];
const PERSONAL_DATA_NOT_KEPT: &str = "[not kept: a person's data sent to verify their identity]";

/// The subscriber a request was authenticated as, set on the response by the token check.
#[derive(Debug, Clone, Copy)]
pub struct AuthenticatedAs(pub SubscriberId);

/// The `code` of an error response, set on the response by the error's rendering.
#[derive(Debug, Clone)]
pub struct ErrorCode(pub String);

/// An answered request as the layer saw it, not masked yet.
pub struct Answered {
    pub line: RequestLine,
    /// At most a body's worth and a byte more (so a cut shows), or `None`.
    pub request_body: Option<Bytes>,
    pub response_body: Option<Bytes>,
}

/// What the writer has not written yet.
#[derive(Default)]
struct Waiting {
    requests: Vec<Answered>,
    /// Of their bodies.
    bytes: usize,
}

pub struct RequestHistory {
    waiting: Mutex<Waiting>,
    wake: tokio::sync::Notify,
    /// One write at a time; a reader waits for the one under way.
    writing: tokio::sync::Mutex<()>,
    /// Requests of each subscriber written since its history was last bounded.
    since_bounded: Mutex<HashMap<SubscriberId, (u32, usize)>>,
    unrecorded: AtomicU64,
    said_full_at: Mutex<Option<Instant>>,
    kept_for: Duration,
    masked_answers: Arc<MaskedAnswers>,
}

/// A successful read's answer as masked, for the next request of the same subscriber and URL
/// answered with the same bytes: a polling client gets the same answer again and again, and
/// masking it again was most of what the history cost a read (BENCHMARKS.md).
struct MaskedAnswer {
    /// What was answered (its kept beginning), compared whole before the rest is reused.
    answered: Bytes,
    text: String,
    truncated: bool,
    /// The ids its JSON holds, each `kind:value`.
    ids: Vec<String>,
    digest: Vec<u8>,
}

/// The masked answers, by subscriber and URL, at most [`MASKED_ANSWERS_BYTES`] of them.
type MaskedAnswers = quick_cache::sync::Cache<(SubscriberId, String), Arc<MaskedAnswer>, AnswerBytes>;

/// What the masked answers may hold at most.
const MASKED_ANSWERS_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Clone)]
struct AnswerBytes;

impl quick_cache::Weighter<(SubscriberId, String), Arc<MaskedAnswer>> for AnswerBytes {
    fn weight(&self, key: &(SubscriberId, String), answer: &Arc<MaskedAnswer>) -> u64 {
        let ids: usize = answer.ids.iter().map(String::len).sum();
        u64::try_from(key.1.len() + answer.answered.len() + answer.text.len() + ids + 128).unwrap_or(u64::MAX)
    }
}

impl RequestHistory {
    pub fn new(kept_for: Duration) -> Self {
        Self {
            waiting: Mutex::new(Waiting::default()),
            wake: tokio::sync::Notify::new(),
            writing: tokio::sync::Mutex::new(()),
            since_bounded: Mutex::new(HashMap::new()),
            unrecorded: AtomicU64::new(0),
            said_full_at: Mutex::new(None),
            kept_for,
            masked_answers: Arc::new(MaskedAnswers::with_weighter(4_096, MASKED_ANSWERS_BYTES, AnswerBytes)),
        }
    }

    /// How long a request is kept.
    pub fn kept_for(&self) -> Duration {
        self.kept_for
    }

    /// The oldest a request kept may be, now.
    pub fn oldest_kept(&self) -> UnixMillis {
        UnixMillis::now().minus(self.kept_for)
    }

    /// Whether requests are kept at all (`--request-log-days 0` keeps none).
    pub fn is_on(&self) -> bool {
        !self.kept_for.is_zero()
    }

    /// Hands an answered request to the writer.
    pub fn record(&self, answered: Answered) {
        if !self.is_on() {
            return;
        }
        {
            let size = answered.request_body.as_ref().map_or(0, Bytes::len)
                + answered.response_body.as_ref().map_or(0, Bytes::len);
            let mut waiting = self.waiting.lock();
            if waiting.requests.len() >= WAITING_AT_MOST || waiting.bytes + size > WAITING_BYTES_AT_MOST {
                drop(waiting);
                self.unrecorded.fetch_add(1, Ordering::Relaxed);
                let mut said = self.said_full_at.lock();
                if said.is_none_or(|at| at.elapsed() >= Duration::from_secs(60)) {
                    *said = Some(Instant::now());
                    tracing::warn!(
                        waiting = WAITING_AT_MOST,
                        waiting_bytes = WAITING_BYTES_AT_MOST,
                        unrecorded = self.unrecorded.load(Ordering::Relaxed),
                        "the request history's writer is behind: requests go unrecorded until it catches up"
                    );
                }
                return;
            }
            waiting.bytes += size;
            waiting.requests.push(answered);
        }
        self.wake.notify_one();
    }

    /// Writes what waits (masked), then brings within bounds the subscribers due for it.
    pub async fn flush(&self, db: &Store) -> StorageResult<()> {
        let _writing = self.writing.lock().await;
        let mut waiting = std::mem::take(&mut *self.waiting.lock()).requests.into_iter();
        loop {
            // A chunk at a time: what a busy service's writer holds at once (the requests, their
            // masked copies and the statement's arguments) stays small, whatever waited.
            let chunk: Vec<Answered> = waiting.by_ref().take(WRITE_CHUNK).collect();
            if chunk.is_empty() {
                return Ok(());
            }
            self.write_chunk(db, chunk).await?;
        }
    }

    /// Masks and writes `chunk`, then brings within bounds the subscribers due for it.
    async fn write_chunk(&self, db: &Store, chunk: Vec<Answered>) -> StorageResult<()> {
        let answers = Arc::clone(&self.masked_answers);
        let records: Vec<RequestRecord> =
            tokio::task::spawn_blocking(move || chunk.into_iter().map(|answered| masked(answered, &answers)).collect())
                .await
                .map_err(crate::storage::StorageError::from)?;
        let mut due = Vec::new();
        {
            let mut since = self.since_bounded.lock();
            for record in &records {
                let (count, bytes) = since.entry(record.line.subscriber_id).or_default();
                *count += 1;
                *bytes += usize::try_from(record.bytes).unwrap_or(0);
                if *count >= BOUND_EVERY || *bytes >= BOUND_BYTES_EVERY {
                    due.push((record.line.subscriber_id, *bytes >= BOUND_BYTES_EVERY));
                    (*count, *bytes) = (0, 0);
                }
            }
        }
        db.record_requests(records).await?;
        for (subscriber_id, with_bytes) in due {
            let bytes = with_bytes.then_some(REQUEST_HISTORY_MAX_BYTES);
            let gone = db.bound_requests(subscriber_id, REQUEST_HISTORY_MAX_REQUESTS, bytes).await?;
            if gone > 0 {
                tracing::info!(
                    subscriber_id = subscriber_id.get(),
                    gone,
                    "the subscriber's oldest requests left its history (its bound)"
                );
            }
        }
        Ok(())
    }

    /// The writer: once requests came in, writes them a moment later ([`WRITE_EVERY`]) with
    /// those that came meanwhile, in one batch.
    pub async fn run(&self, db: Store) {
        loop {
            self.wake.notified().await;
            tokio::time::sleep(WRITE_EVERY).await;
            if let Err(error) = self.flush(&db).await {
                tracing::warn!(error = %error, "requests not written to the history (they are lost)");
            }
        }
    }
}

/// A GET answered 2xx: its answer is kept shorter ([`READ_ANSWER_BYTES`]).
pub fn is_successful_read(method: &str, status: u16) -> bool {
    method == "GET" && (200..300).contains(&status)
}

/// The request with every text masked, and the ids it named; a successful read's answer masked
/// once for as long as it stays the same ([`MaskedAnswer`]).
fn masked(answered: Answered, answers: &MaskedAnswers) -> RequestRecord {
    use crate::redact::MaskedBody;
    let Answered { mut line, request_body: sent, response_body: answer } = answered;
    let body = |bytes: &Option<Bytes>| {
        bytes
            .as_ref()
            .filter(|bytes| !bytes.is_empty())
            .map(|bytes| crate::redact::body(bytes, REQUEST_HISTORY_BODY_BYTES))
    };
    let request_body = if line.route.as_deref().is_some_and(|route| PERSONAL_DATA_SENT.contains(&route)) {
        sent.as_ref().map(|_| MaskedBody { text: PERSONAL_DATA_NOT_KEPT.to_owned(), truncated: false, json: None })
    } else {
        body(&sent)
    };
    // A successful read's answer is the object as it is (the API gives it again): its first
    // 2 KiB are kept, not 16, which keeps the history's cost on the busiest routes small.
    line.path = crate::redact::client_path(&line.path);
    line.query = line.query.take().filter(|query| !query.is_empty()).map(|query| {
        crate::redact::truncate(
            &crate::redact::escape_controls(&crate::redact::mask_text(&query)),
            crate::redact::PATH_MAX_BYTES,
        )
    });
    let successful_read = is_successful_read(&line.method, line.status);
    let read_answer = answer
        .as_ref()
        .filter(|bytes| successful_read && !bytes.is_empty())
        .map(|bytes| read_answer(answers, (line.subscriber_id, read_url(&line)), bytes.clone()));
    let response_body = if successful_read { None } else { body(&answer) };
    let truncated = [&request_body, &response_body].iter().any(|body| body.as_ref().is_some_and(|body| body.truncated))
        || read_answer.as_ref().is_some_and(|answer| answer.truncated);
    let mut ids = Ids::default();
    if let Some(route) = &line.route {
        ids.add_path(route, &line.path);
    }
    if let Some(query) = &line.query {
        ids.add_query(query);
    }
    // The ids of the bodies that were JSON, from the value already parsed to mask them.
    for json in [&request_body, &response_body].into_iter().flatten().filter_map(|body| body.json.as_ref()) {
        ids.add_value(json);
    }
    if let Some(answer) = &read_answer {
        answer.ids.iter().for_each(|id| ids.add_written(id));
    }
    let request_body = request_body.map(|body| body.text);
    let (response_body, response_answer) = match (response_body, read_answer) {
        (_, Some(answer)) => (Some(answer.text.clone()), Some(answer.digest.clone())),
        (body, None) => (body.map(|body| body.text), None),
    };
    let object_ids = ids.written();
    let bytes = [&line.request_id, &line.method, &line.path, &object_ids].iter().map(|text| text.len()).sum::<usize>()
        + [&line.route, &line.query, &line.code, &request_body, &response_body]
            .iter()
            .map(|text| text.as_ref().map_or(0, String::len))
            .sum::<usize>()
        + 64;
    RequestRecord {
        line,
        request_body,
        response_body,
        response_answer,
        truncated,
        object_ids,
        bytes: i64::try_from(bytes).unwrap_or(i64::MAX),
    }
}

/// The URL a read asked for (its path and query, masked), which its memo goes by.
fn read_url(line: &RequestLine) -> String {
    match &line.query {
        Some(query) => format!("{}?{query}", line.path),
        None => line.path.clone(),
    }
}

/// A successful read's answer masked: as last time, when the same subscriber's same URL was
/// answered with the same bytes; masked (its first [`READ_ANSWER_BYTES`]) otherwise.
fn read_answer(answers: &MaskedAnswers, key: (SubscriberId, String), answered: Bytes) -> Arc<MaskedAnswer> {
    if let Some(answer) = answers.get(&key).filter(|answer| answer.answered == answered) {
        return answer;
    }
    let masked = crate::redact::body(&answered, READ_ANSWER_BYTES);
    let mut ids = Ids::default();
    if let Some(json) = &masked.json {
        ids.add_value(json);
    }
    let answer = Arc::new(MaskedAnswer {
        answered,
        digest: crate::storage::request_history::answer_digest(&masked.text),
        text: masked.text,
        truncated: masked.truncated,
        ids: ids.0,
    });
    answers.insert(key, Arc::clone(&answer));
    answer
}

/// The ids a request named (its path's parameters, its query) or got back (its bodies' `…Id`
/// and `id` fields), each as `kind:value`.
#[derive(Default)]
struct Ids(Vec<String>);

impl Ids {
    fn add(&mut self, kind: &str, value: &str) {
        let value = value.trim();
        if value.is_empty() || value.len() > 64 || value.chars().any(char::is_whitespace) || self.0.len() >= IDS_AT_MOST
        {
            return;
        }
        self.add_written(&format!("{kind}:{value}"));
    }

    /// `kind:value`, found before.
    fn add_written(&mut self, id: &str) {
        if self.0.len() < IDS_AT_MOST && !self.0.iter().any(|known| known == id) {
            self.0.push(id.to_owned());
        }
    }

    /// `/card/{card_id}` over `/card/12`: `cardId:12`.
    fn add_path(&mut self, route: &str, path: &str) {
        for (template, segment) in route.split('/').zip(path.split('/')) {
            if let Some(name) = template.strip_prefix('{').and_then(|name| name.strip_suffix('}')) {
                self.add(&camel_case(name), segment);
            }
        }
    }

    fn add_query(&mut self, query: &str) {
        for pair in query.split('&') {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
            if is_id_name(name) {
                self.add(&camel_case(name), &value);
            }
        }
    }

    fn add_value(&mut self, value: &serde_json::Value) {
        fn walk(ids: &mut Ids, value: &serde_json::Value) {
            match value {
                serde_json::Value::Object(fields) => {
                    for (name, field) in fields {
                        match field {
                            serde_json::Value::Number(number) if is_id_name(name) => ids.add(name, &number.to_string()),
                            serde_json::Value::String(text) if is_id_name(name) => ids.add(name, text),
                            serde_json::Value::Array(items) if name.ends_with("Ids") => {
                                let kind = name.trim_end_matches('s');
                                for item in items {
                                    match item {
                                        serde_json::Value::Number(number) => ids.add(kind, &number.to_string()),
                                        serde_json::Value::String(text) => ids.add(kind, text),
                                        _ => {}
                                    }
                                }
                            }
                            other => walk(ids, other),
                        }
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|item| walk(ids, item)),
                _ => {}
            }
        }
        walk(self, value);
    }

    /// ` a:1 b:2 `: a space on both sides of each.
    fn written(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        format!(" {} ", self.0.join(" "))
    }
}

fn is_id_name(name: &str) -> bool {
    name == "id" || name.ends_with("Id") || name.ends_with("_id")
}

/// `card_id` as `cardId`.
fn camel_case(name: &str) -> String {
    let mut camel = String::with_capacity(name.len());
    let mut upper = false;
    for character in name.chars() {
        if character == '_' {
            upper = true;
        } else if upper {
            camel.extend(character.to_uppercase());
            upper = false;
        } else {
            camel.push(character);
        }
    }
    camel
}

/// The `LIKE` pattern finding requests that named `object_id`: `cardId:12` as that id of that
/// kind, a bare `12` or `evt_40` as an id of any kind.
pub fn object_pattern(object_id: &str) -> String {
    let escaped: String = object_id
        .trim()
        .chars()
        .flat_map(|character| match character {
            '\\' | '%' | '_' => vec!['\\', character],
            character => vec![character],
        })
        .collect();
    if object_id.contains(':') { format!("% {escaped} %") } else { format!("%:{escaped} %") }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Subscriber 1's `GET /subscriber`, answered `{}`.
    fn read(request_id: String) -> Answered {
        Answered {
            line: RequestLine {
                subscriber_id: SubscriberId(1),
                request_id,
                method: "GET".to_owned(),
                route: None,
                path: "/subscriber".to_owned(),
                query: None,
                status: 200,
                code: None,
                latency_ms: 1.0,
                at_ms: UnixMillis(1_000),
            },
            request_body: None,
            response_body: Some(Bytes::from_static(b"{}")),
        }
    }

    /// `--request-log-days 0`: nothing is kept, nothing waits.
    #[test]
    fn a_history_kept_for_no_time_records_nothing() {
        let history = RequestHistory::new(Duration::ZERO);
        assert!(!history.is_on());
        history.record(read("req_1".to_owned()));
        assert!(history.waiting.lock().requests.is_empty());
        assert!(RequestHistory::new(Duration::from_secs(1)).is_on());
    }

    /// More than a chunk waiting: every request is written, in order, once, and nothing waits.
    #[tokio::test]
    async fn what_waits_beyond_a_chunk_is_written_whole() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = Store::open(&dir.path().join("history.sqlite3").into()).await.expect("a database");
        let history = RequestHistory::new(Duration::from_secs(60));
        let waiting = WRITE_CHUNK * 2 + 5;
        for index in 0..waiting {
            history.record(read(format!("req_{index}")));
        }
        history.flush(&store).await.expect("written");
        assert!(history.waiting.lock().requests.is_empty());
        let mut written = Vec::new();
        let mut filter = crate::storage::request_history::RequestFilter::default();
        loop {
            let page = store.requests(SubscriberId(1), filter.clone(), 1_000).await.expect("read");
            let Some(last) = page.last() else { break };
            filter.before_seq = Some(last.seq);
            written.extend(page.into_iter().map(|request| request.record.line.request_id));
        }
        let expected: Vec<String> = (0..waiting).rev().map(|index| format!("req_{index}")).collect();
        assert_eq!(written, expected, "every request once, newest first");
    }

    /// A read answered with the same bytes again is masked once: the second record is the
    /// first's, secret masked and ids found; other bytes at the same URL are masked anew.
    #[test]
    fn a_read_answered_alike_is_masked_once() {
        let history = RequestHistory::new(Duration::from_secs(60));
        let answered = |answer: &'static str| {
            let mut read = read("req_1".to_owned());
            read.line.route = Some("/webhooks/{webhook_id}".to_owned());
            read.line.path = "/webhooks/12".to_owned();
            read.response_body = Some(Bytes::from_static(answer.as_bytes()));
            read
        };
        let first = masked(answered(r#"{"id":12,"secret":"whsec_first"}"#), &history.masked_answers);
        assert_eq!(history.masked_answers.len(), 1);
        let key = (SubscriberId(1), "/webhooks/12".to_owned());
        let kept = history.masked_answers.get(&key).expect("kept for the URL");
        let again = masked(answered(r#"{"id":12,"secret":"whsec_first"}"#), &history.masked_answers);
        assert_eq!(again, first);
        let reused = history.masked_answers.get(&key).expect("kept for the URL");
        assert!(Arc::ptr_eq(&kept, &reused), "the same bytes again: the answer masked before, not masked anew");
        let body = first.response_body.as_deref().expect("kept");
        assert!(!body.contains("whsec_first"), "{body}");
        assert_eq!(first.object_ids, " webhookId:12 id:12 ");
        assert!(first.response_answer.is_some());

        let changed = masked(answered(r#"{"id":12,"secret":"whsec_second"}"#), &history.masked_answers);
        let remasked = history.masked_answers.get(&key).expect("kept for the URL");
        assert!(!Arc::ptr_eq(&kept, &remasked), "other bytes at the URL are masked anew");
        assert!(!changed.response_body.as_deref().expect("kept").contains("whsec_second"));
        assert_eq!(changed.response_answer, first.response_answer, "the same masked text, the same answer");
        let other = masked(answered(r#"{"id":12,"secret":null}"#), &history.masked_answers);
        assert_ne!(other.response_answer, first.response_answer);
        assert_eq!(history.masked_answers.len(), 1, "one URL, its latest answer");
    }

    #[test]
    fn the_ids_of_a_request_are_found_in_its_path_query_and_bodies() {
        let mut ids = Ids::default();
        ids.add_path("/card/{card_id}/transactions", "/card/12/transactions");
        ids.add_query("accountId=7&limit=5");
        ids.add_value(&serde_json::json!({"id":"evt_40","data":{"transactionId":99,"personIds":[3,4]},"amount":12}));
        assert_eq!(ids.written(), " cardId:12 accountId:7 personId:3 personId:4 transactionId:99 id:evt_40 ");
        assert_eq!(object_pattern("cardId:12"), "% cardId:12 %");
        assert_eq!(object_pattern("evt_40"), "%:evt\\_40 %");
    }
}
