//! The rows of `request_history`: each subscriber's API requests with their masked bodies
//! (contract: "Request history").

use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::{Sql, sql};
use subscriber_protocol::{SubscriberId, UnixMillis};

/// What every request is, as it arrived and was answered (not masked yet while it waits,
/// masked once stored).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestLine {
    pub subscriber_id: SubscriberId,
    pub request_id: String,
    pub method: String,
    /// The matched route's template (`/card/{card_id}`).
    pub route: Option<String>,
    pub path: String,
    pub query: Option<String>,
    pub status: u16,
    /// The error's `code`, when it failed.
    pub code: Option<String>,
    pub latency_ms: f64,
    /// When it arrived, in Unix milliseconds.
    pub at_ms: UnixMillis,
}

/// A request as it is stored: every text already masked (`crate::request_history` masks).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    pub line: RequestLine,
    pub request_body: Option<String>,
    pub response_body: Option<String>,
    /// A successful read's answer is kept once per distinct text ([`answer_digest`] of
    /// `response_body`, in `request_answers`), the row naming it: polling clients get the same
    /// answer again and again.
    pub response_answer: Option<Vec<u8>>,
    pub truncated: bool,
    /// The ids it named or got back, each as ` kind:value ` (spaces around every one, so a
    /// `LIKE '% kind:value %'` finds it whole).
    pub object_ids: String,
    /// What the row holds, for the per-subscriber bound.
    pub bytes: i64,
}

/// A stored request with its place in the history (newest has the highest).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRequest {
    pub seq: i64,
    pub record: RequestRecord,
}

/// The columns a [`StoredRequest`] reads, in order, from [`HISTORY`]: an answer kept once is
/// read where it is kept.
pub const COLUMNS: &str = "h.seq, h.subscriber_id, h.request_id, h.method, h.route, h.path, h.query, h.status, \
                           h.code, h.latency_ms, h.at_ms, h.request_body, COALESCE(h.response_body, a.body), \
                           h.truncated, h.object_ids, h.bytes, h.response_answer";

/// The history (`h`) with the answers kept once (`a`).
pub const HISTORY: &str = "request_history h LEFT JOIN request_answers a \
                           ON a.subscriber_id = h.subscriber_id AND a.digest = h.response_answer";

/// What names a kept answer: the first 16 bytes of SHA-256 of its (masked) text, within its
/// subscriber's answers.
pub fn answer_digest(text: &str) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())[..16].to_vec()
}

impl FromRow for StoredRequest {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            seq: row.column(0)?,
            record: RequestRecord {
                line: RequestLine {
                    subscriber_id: row.column(1)?,
                    request_id: row.column(2)?,
                    method: row.column(3)?,
                    route: row.column(4)?,
                    path: row.column(5)?,
                    query: row.column(6)?,
                    status: row.column(7)?,
                    code: row.column(8)?,
                    latency_ms: row.column(9)?,
                    at_ms: row.column(10)?,
                },
                request_body: row.column(11)?,
                response_body: row.column(12)?,
                truncated: row.column(13)?,
                object_ids: row.column(14)?,
                bytes: row.column(15)?,
                response_answer: row.column(16)?,
            },
        })
    }
}

/// What a page of the history is filtered by; `None` lets everything through.
#[derive(Debug, Clone, Default)]
pub struct RequestFilter {
    pub status_from: Option<i64>,
    pub status_to: Option<i64>,
    /// A route template or a path, exactly.
    pub route: Option<String>,
    /// A `LIKE` pattern over `object_ids` (already escaped with `\`).
    pub object_pattern: Option<String>,
    pub request_id: Option<String>,
    pub from_ms: Option<UnixMillis>,
    pub to_ms: Option<UnixMillis>,
    /// Only rows older than this place (the cursor).
    pub before_seq: Option<i64>,
}

sql! {
    /// One row (both databases insert it the same way; PostgreSQL inserts a batch with `unnest`).
    pub(in crate::storage) static INSERT = "INSERT INTO request_history (subscriber_id, request_id, method, route, \
        path, query, status, code, latency_ms, at_ms, request_body, response_body, truncated, object_ids, bytes, \
        response_answer) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";
}

sql! {
    /// One answer kept once, or the newest use of one kept already (which an answer's prune
    /// goes by). Nothing is written when a newer use was. PostgreSQL upserts a batch with `unnest`.
    pub(in crate::storage) static KEEP_ANSWER = "INSERT INTO request_answers (subscriber_id, digest, body, last_at_ms) \
        VALUES ($1, $2, $3, $4) {ANSWER_CONFLICT}";
}

/// What a second use of a kept answer does: the newest use is remembered.
pub const ANSWER_CONFLICT: &str = "ON CONFLICT (subscriber_id, digest) DO UPDATE SET last_at_ms = excluded.last_at_ms \
                                   WHERE request_answers.last_at_ms < excluded.last_at_ms";

/// An answer kept once, with the newest request of the batch naming it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptAnswer {
    pub subscriber_id: SubscriberId,
    pub digest: Vec<u8>,
    pub body: String,
    pub last_at_ms: UnixMillis,
}

/// The batch's answers kept once, one per subscriber and digest (a statement may not touch a
/// row twice), their bodies taken off the rows that name them.
pub fn kept_answers(records: &mut [RequestRecord]) -> Vec<KeptAnswer> {
    let mut answers: Vec<KeptAnswer> = Vec::new();
    let mut places = std::collections::HashMap::new();
    for record in records.iter_mut() {
        let Some(digest) = &record.response_answer else { continue };
        let Some(body) = record.response_body.take() else { continue };
        let at = record.line.at_ms;
        match places.entry((record.line.subscriber_id, digest.clone())) {
            std::collections::hash_map::Entry::Occupied(place) => {
                let answer: &mut KeptAnswer = &mut answers[*place.get()];
                answer.last_at_ms = answer.last_at_ms.max(at);
            }
            std::collections::hash_map::Entry::Vacant(place) => {
                place.insert(answers.len());
                answers.push(KeptAnswer {
                    subscriber_id: record.line.subscriber_id,
                    digest: digest.clone(),
                    body,
                    last_at_ms: at,
                });
            }
        }
    }
    answers
}

/// A page: `$1` subscriber, then the filter's values in [`RequestFilter`]'s order, `$10` the
/// most rows.
pub fn page() -> &'static Sql {
    sql!(
        "SELECT {COLUMNS} FROM {HISTORY}
         WHERE h.subscriber_id = $1
           AND (CAST($2 AS BIGINT) IS NULL OR status >= $2)
           AND (CAST($3 AS BIGINT) IS NULL OR status <= $3)
           AND (CAST($4 AS TEXT) IS NULL OR route = $4 OR path = $4)
           AND (CAST($5 AS TEXT) IS NULL OR object_ids LIKE $5 ESCAPE '\\')
           AND (CAST($6 AS TEXT) IS NULL OR request_id = $6)
           AND (CAST($7 AS BIGINT) IS NULL OR at_ms >= $7)
           AND (CAST($8 AS BIGINT) IS NULL OR at_ms <= $8)
           AND (CAST($9 AS BIGINT) IS NULL OR h.seq < $9)
         ORDER BY h.seq DESC
         LIMIT $10"
    )
}
