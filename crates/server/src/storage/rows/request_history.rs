//! The rows of `request_history`: each subscriber's API requests with their masked bodies
//! (contract: "Request history").

use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::{Sql, sql};
use subscriber_protocol::SubscriberId;

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
    pub at_ms: i64,
}

/// A request as it is stored: every text already masked (`crate::request_history` masks).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    pub line: RequestLine,
    pub request_body: Option<String>,
    pub response_body: Option<String>,
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

/// The columns a [`StoredRequest`] reads, in order.
pub const COLUMNS: &str = "seq, subscriber_id, request_id, method, route, path, query, status, code, latency_ms, \
                           at_ms, request_body, response_body, truncated, object_ids, bytes";

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
    pub from_ms: Option<i64>,
    pub to_ms: Option<i64>,
    /// Only rows older than this place (the cursor).
    pub before_seq: Option<i64>,
}

sql! {
    /// One row (both databases insert it the same way; PostgreSQL inserts a batch with `unnest`).
    pub(in crate::storage) static INSERT = "INSERT INTO request_history (subscriber_id, request_id, method, route, \
        path, query, status, code, latency_ms, at_ms, request_body, response_body, truncated, object_ids, bytes) \
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";
}

/// A page: `$1` subscriber, then the filter's values in [`RequestFilter`]'s order, `$10` the
/// most rows.
pub fn page() -> &'static Sql {
    sql!(
        "SELECT {COLUMNS} FROM request_history
         WHERE subscriber_id = $1
           AND (CAST($2 AS BIGINT) IS NULL OR status >= $2)
           AND (CAST($3 AS BIGINT) IS NULL OR status <= $3)
           AND (CAST($4 AS TEXT) IS NULL OR route = $4 OR path = $4)
           AND (CAST($5 AS TEXT) IS NULL OR object_ids LIKE $5 ESCAPE '\\')
           AND (CAST($6 AS TEXT) IS NULL OR request_id = $6)
           AND (CAST($7 AS BIGINT) IS NULL OR at_ms >= $7)
           AND (CAST($8 AS BIGINT) IS NULL OR at_ms <= $8)
           AND (CAST($9 AS BIGINT) IS NULL OR seq < $9)
         ORDER BY seq DESC
         LIMIT $10"
    )
}
