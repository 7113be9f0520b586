//! The caller's request history (contract: "Request history"): `GET /subscriber/requests`
//! (filters, pages, an NDJSON export) and `GET /subscriber/requests/{request_id}`.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::{ErrorBody, LoggedRequest, LoggedRequestDetail, RequestLogPage, RequestQuery, Success};

use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiQuery, Auth};
use crate::paging::{self, Bound};
use crate::request_history::object_pattern;
use crate::state::AppState;
use crate::storage::request_history::{RequestFilter, StoredRequest};

/// Requests on a page unless `limit` says.
const DEFAULT_LIMIT: u32 = 100;
/// The most requests on a page: as every list's.
const MAX_LIMIT: u32 = subscriber_protocol::MAX_PAGE_LIMIT;
/// Requests read at a time for an export.
const EXPORT_PAGE: u32 = 500;
const NDJSON: &str = "application/x-ndjson";

/// The caller's request history, newest first
///
/// Every API request made with the caller's tokens, from every instance, kept 14 days (before
/// this one): method, path, route, status, error code, request id and latency. Filtered by
/// `status` (`404`, `4xx`, `5xx`, `error`), `route`, `objectId`, `requestId`, `from` and `to`,
/// paged with `limit` and `cursor`. With `Accept: application/x-ndjson`, every matching
/// request with its bodies, one JSON object a line (an export).
#[utoipa::path(get, path = "/subscriber/requests", tag = "subscriber", operation_id = "listRequests",
    params(RequestQuery),
    responses(
        (status = 200, description = "A page of the caller's requests; `nextCursor` is null on the last. \
            As `application/x-ndjson`: every matching request with its bodies, one a line.",
            content((Success<RequestLogPage> = "application/json"), (LoggedRequestDetail = "application/x-ndjson"))),
        (status = 400, description = "A filter is not valid.", body = ErrorBody),
    ))]
pub async fn list(
    State(state): State<AppState>,
    auth: Auth,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<RequestQuery>,
) -> Result<Response, ApiError> {
    let mut validation = Validation::new();
    let filter = filter(&state, &query, &mut validation);
    let limit = subscriber_protocol::rules::page_limit(&mut validation, query.limit, DEFAULT_LIMIT, MAX_LIMIT);
    let filter = validation.finish(filter)?;
    state.request_history.flush(&state.db).await?;
    let exporting = headers
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|accept| accept.split(',').any(|kind| kind.trim().starts_with(NDJSON)));
    if exporting {
        return Ok(export(state, auth.subscriber_id, filter));
    }
    let rows = state.db.requests(auth.subscriber_id, filter, limit.saturating_add(1)).await?;
    let (rows, next_cursor) =
        paging::split_page(rows, limit, |row| paging::encode_cursor(row.record.line.at_ms.get(), row.seq));
    let requests = rows.iter().map(listed).collect::<Result<Vec<_>, _>>()?;
    Ok(Json(Success::new(RequestLogPage { requests, next_cursor })).into_response())
}

/// The filter `query` asks for, within the days the history keeps.
fn filter(state: &AppState, query: &RequestQuery, validation: &mut Validation) -> RequestFilter {
    // As the reference's pattern says: a status, a class or `error`, nothing around it.
    let (status_from, status_to) = match query.status.as_deref() {
        None => (None, None),
        Some("error") => (Some(400), Some(599)),
        Some(class)
            if class.len() == 3
                && class.ends_with("xx")
                && ('1'..='5').contains(&class.chars().next().unwrap_or('0')) =>
        {
            let hundreds = i64::from(class.as_bytes()[0] - b'0') * 100;
            (Some(hundreds), Some(hundreds + 99))
        }
        Some(code) => match code.parse::<i64>() {
            Ok(number)
                if code.len() == 3
                    && (100..=599).contains(&number)
                    && code.bytes().all(|byte| byte.is_ascii_digit()) =>
            {
                (Some(number), Some(number))
            }
            _ => {
                validation.reject("status", "must be a status (404), a class (4xx, 5xx) or error");
                (None, None)
            }
        },
    };
    let text =
        |value: &Option<String>| value.as_deref().map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned);
    let object_id = text(&query.object_id);
    if object_id.as_ref().is_some_and(|id| id.chars().count() > 80 || id.chars().any(char::is_whitespace)) {
        validation.reject("objectId", "must be an id (12, evt_40) or an id of a kind (cardId:12)");
    }
    // A time given empty is not a time (the reference's pattern says so too).
    let time = |field: &str, value: &Option<String>, bound: Bound, validation: &mut Validation| {
        value.as_deref().and_then(|text| paging::parse_time_bound(field, text, bound, validation)).map(|at| {
            let ms = at.millis();
            // The end bound takes in the whole of its last second.
            if matches!(bound, Bound::End) { ms.plus(std::time::Duration::from_millis(999)) } else { ms }
        })
    };
    let oldest = state.request_history.oldest_kept();
    let from_ms = time("from", &query.from, Bound::Start, validation).map_or(oldest, |from| from.max(oldest));
    let to_ms = time("to", &query.to, Bound::End, validation);
    // Cursors read as every list's (`<time>.<id>`): the request's time and its place.
    let before_seq =
        text(&query.cursor).and_then(|cursor| paging::decode_cursor(&cursor, validation)).map(|(_, seq)| seq);
    RequestFilter {
        status_from,
        status_to,
        route: text(&query.route),
        object_pattern: object_id.as_deref().map(object_pattern),
        request_id: text(&query.request_id),
        from_ms: Some(from_ms),
        to_ms,
        before_seq,
    }
}

/// Every request through `filter`, with its bodies, one JSON object a line, read a page at a
/// time while the answer goes out.
fn export(state: AppState, subscriber_id: SubscriberId, filter: RequestFilter) -> Response {
    let pages = futures::stream::unfold(Some(filter), move |filter| {
        let state = state.clone();
        async move {
            let mut filter = filter?;
            let rows = match state.db.requests(subscriber_id, filter.clone(), EXPORT_PAGE).await {
                Ok(rows) => rows,
                Err(error) => {
                    tracing::warn!(error = %error, "the request history's export stopped short");
                    return Some((Err(std::io::Error::other("the export stopped short")), None));
                }
            };
            let next = (rows.len() == EXPORT_PAGE as usize).then(|| {
                filter.before_seq = rows.last().map(|row| row.seq);
                filter
            });
            let mut lines = String::new();
            for row in rows {
                if let Ok(detail) = detailed(row)
                    && let Ok(line) = serde_json::to_string(&detail)
                {
                    lines.push_str(&line);
                    lines.push('\n');
                }
            }
            Some((Ok::<_, std::io::Error>(lines), next))
        }
    });
    let mut response = Body::from_stream(pages).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(NDJSON));
    response
}

/// One request of the caller's history with its bodies
///
/// The request by its id (`X-Request-Id`, `requestId` in every error body and in the list),
/// with its query, the body it sent and the body it got back, masked.
#[utoipa::path(get, path = "/subscriber/requests/{request_id}", tag = "subscriber", operation_id = "getRequest",
    params(("request_id" = String, Path, description = "A request id of the caller's (`X-Request-Id`).")),
    responses(
        (status = 200, description = "The request with its bodies.", body = Success<LoggedRequestDetail>),
        (status = 404, description = "No such request of the caller's in the history.", body = ErrorBody),
    ))]
pub async fn one(
    State(state): State<AppState>,
    auth: Auth,
    Path(request_id): Path<String>,
) -> Result<Json<Success<LoggedRequestDetail>>, ApiError> {
    let not_found = || ApiError::not_found("no such request of this subscriber in the request history");
    if request_id.is_empty() || request_id.len() > 200 {
        return Err(not_found());
    }
    state.request_history.flush(&state.db).await?;
    let row = state.db.request(auth.subscriber_id, request_id).await?.ok_or_else(not_found)?;
    if row.record.line.at_ms < state.request_history.oldest_kept() {
        return Err(not_found());
    }
    Ok(Json(Success::new(detailed(row)?)))
}

/// A stored request as the API shows it in a list.
fn listed(stored: &StoredRequest) -> Result<LoggedRequest, ApiError> {
    let line = &stored.record.line;
    let at = chrono::DateTime::from_timestamp_millis(line.at_ms.get())
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("stored time {} is out of range", line.at_ms)))?;
    Ok(LoggedRequest {
        method: line.method.clone(),
        path: line.path.clone(),
        route: line.route.clone(),
        status: line.status,
        code: line.code.clone(),
        request_id: line.request_id.clone(),
        latency_ms: line.latency_ms,
        at,
    })
}

/// A stored request with its bodies.
fn detailed(stored: StoredRequest) -> Result<LoggedRequestDetail, ApiError> {
    let request = listed(&stored)?;
    let record = stored.record;
    Ok(LoggedRequestDetail {
        request: request.into(),
        query: record.line.query,
        request_body: record.request_body,
        response_body: record.response_body,
        truncated: record.truncated,
        object_ids: record.object_ids.split_whitespace().map(str::to_owned).collect(),
    })
}
