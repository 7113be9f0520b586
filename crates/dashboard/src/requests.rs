//! The request log as the Developers area reads it: each of the account's recent requests with
//! the route it called (`GET /card/{card_id}`), whether the app made it by itself (following a
//! page, a live stream, a token renewal, reading a log), the headers this app sends on that
//! route, and a cURL line that repeats it.

use std::path::Path;
use subscriber_client::routes::{self, Route, Safety};

use subscriber_protocol::{Flat, LoggedRequest, LoggedRequestDetail, RequestQuery};

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::views::{ExportResult, LoggedCall, RequestDetailView, RequestHeader, RequestLogView};

/// What the app asks by itself, without a click: the request log hides these by default.
/// - `LOGIN`: the token renewed before it expires (`session`);
/// - `CARD_SESSION`, `ACCOUNT`: a page opened in the browser followed to its outcome
///   (`cards::wait_for_card_session`, `accounts::wait_for_account`);
/// - the two streams: live transactions (`live`);
/// - `WEBHOOK_DELIVERIES`, `WEBHOOK`, `REQUESTS`: the Developers area reading its logs again
///   (the deliveries panel reads the endpoint's queue with its log every 1.5 s while something is
///   on its way);
/// - `EVENTS`, `WEBHOOKS` (and deliveries): the notifications looking for news while the window
///   is in the background (`notices`).
pub const BACKGROUND: &[Route] = &[
    routes::LOGIN,
    routes::CARD_SESSION,
    routes::ACCOUNT,
    routes::CARD_TRANSACTION_STREAM,
    routes::MERCHANT_TRANSACTION_STREAM,
    routes::WEBHOOK_DELIVERIES,
    routes::WEBHOOK,
    routes::REQUESTS,
    routes::EVENTS,
    routes::WEBHOOKS,
];

/// The shell variable the cURL line reads the token from: a token never goes on a clipboard.
const TOKEN_VARIABLE: &str = "$SUBSCRIBER_TOKEN";

/// The route `method path` called: the one whose template matches with the most fixed segments
/// (`/card/session/{id}` over `/card/{card_id}/...`).
pub fn route_of(method: &str, path: &str) -> Option<Route> {
    let path = path.split('?').next().unwrap_or(path).trim_end_matches('/');
    let segments: Vec<&str> = path.split('/').collect();
    routes::ALL
        .iter()
        .filter(|route| route.method.eq_ignore_ascii_case(method))
        .filter_map(|route| {
            let template: Vec<&str> = route.template.split('/').collect();
            if template.len() != segments.len() {
                return None;
            }
            let mut fixed = 0;
            for (part, segment) in template.iter().zip(&segments) {
                if part.starts_with('{') && part.ends_with('}') {
                    if segment.is_empty() {
                        return None;
                    }
                } else if part == segment {
                    fixed += 1;
                } else {
                    return None;
                }
            }
            Some((fixed, *route))
        })
        .max_by_key(|(fixed, _)| *fixed)
        .map(|(_, route)| route)
}

/// The headers this app sends on `route` (the token shown as the variable, never its value).
fn headers(route: Option<&Route>, method: &str) -> Vec<RequestHeader> {
    let mut headers = vec![RequestHeader::new("Accept", "application/json")];
    if route.is_none_or(|route| route.authenticated) {
        headers.push(RequestHeader::new("Authorization", format!("Bearer {TOKEN_VARIABLE}")));
    }
    if matches!(method, "POST" | "PATCH" | "PUT") {
        headers.push(RequestHeader::new("Content-Type", "application/json"));
    }
    if route.is_some_and(|route| route.safety == Safety::Keyed) {
        headers.push(RequestHeader::new("Idempotency-Key", "<a new UUID per request>"));
    }
    headers
}

/// A shell-quoted word.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What a cURL command sends as the body: the body itself, or (unknown yet) `body.json`.
enum CurlBody<'a> {
    None,
    File,
    Inline(&'a str),
}

/// A cURL command that sends the request again.
fn curl(method: &str, url: &str, headers: &[RequestHeader], body: CurlBody<'_>) -> String {
    let mut parts = vec!["curl".to_owned()];
    if method != "GET" {
        parts.push(format!("-X {method}"));
    }
    parts.push(quoted(url));
    for header in headers {
        // The variable must expand: double quotes for the token's header.
        if header.value.contains(TOKEN_VARIABLE) {
            parts.push(format!("-H \"{}: {}\"", header.name, header.value));
        } else if !header.value.starts_with('<') {
            parts.push(format!("-H {}", quoted(&format!("{}: {}", header.name, header.value))));
        }
    }
    match body {
        CurlBody::None => {}
        CurlBody::File => parts.push("--data @body.json".to_owned()),
        CurlBody::Inline(text) => parts.push(format!("--data {}", quoted(text))),
    }
    parts.join(" \\\n  ")
}

/// One logged request, read: its route, whether the app made it by itself, what to send again.
pub fn describe(request: LoggedRequest, base_url: &str) -> LoggedCall {
    let method = request.method.to_ascii_uppercase();
    let route = route_of(&method, &request.path);
    let background = route.is_some_and(|route| BACKGROUND.contains(&route));
    let headers = headers(route.as_ref(), &method);
    let has_body = matches!(method.as_str(), "POST" | "PATCH" | "PUT");
    let url = format!("{}{}", base_url.trim_end_matches('/'), request.path);
    let curl = curl(&method, &url, &headers, if has_body { CurlBody::File } else { CurlBody::None });
    let status_text = reqwest::StatusCode::from_u16(request.status)
        .ok()
        .and_then(|status| status.canonical_reason())
        .unwrap_or("")
        .to_owned();
    LoggedCall {
        route: route.map(|route| route.endpoint()),
        background,
        url,
        headers,
        has_body,
        status_text,
        curl,
        request,
    }
}

/// `text` pretty-printed when it is JSON, else as it is.
fn pretty(text: String) -> String {
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or(text)
}

/// One request of the history with its bodies, read.
pub fn detail(request: LoggedRequestDetail, base_url: &str) -> RequestDetailView {
    let LoggedRequestDetail { request: Flat(request), query, request_body, response_body, truncated, object_ids } =
        request;
    let mut call = describe(request, base_url);
    if let Some(query) = &query {
        call.url = format!("{}?{query}", call.url);
    }
    let body = match &request_body {
        Some(body) => CurlBody::Inline(body),
        None => CurlBody::None,
    };
    call.curl = curl(&call.request.method.to_ascii_uppercase(), &call.url, &call.headers, body);
    RequestDetailView {
        call,
        query,
        request_body: request_body.map(pretty),
        response_body: response_body.map(pretty),
        truncated,
        object_ids,
    }
}

/// The service's query for what the person typed in "Find by id": a request id (`req_…`) or
/// the id of an object (`12`, `evt_40`, `cardId:12`).
pub fn search(mut query: RequestQuery) -> RequestQuery {
    if let Some(id) = query.object_id.take().map(|id| id.trim().to_owned()).filter(|id| !id.is_empty()) {
        if id.starts_with("req_") {
            query.request_id = Some(id);
        } else {
            query.object_id = Some(id);
        }
    }
    query
}

impl Dashboard {
    /// The subscriber's requests (of every client it has) through `query`, newest first, read.
    pub async fn request_log(&self, query: RequestQuery) -> Result<RequestLogView, CommandError> {
        let base_url = self.connection().await?.base_url;
        let page = self.client().await?.requests().query(search(query)).await?;
        Ok(RequestLogView {
            calls: page.requests.into_iter().map(|request| describe(request, &base_url)).collect(),
            next_cursor: page.next_cursor,
        })
    }

    /// One request of the history with its bodies.
    pub async fn request_detail(&self, request_id: String) -> Result<RequestDetailView, CommandError> {
        let base_url = self.connection().await?.base_url;
        let request = self.client().await?.request(request_id.trim()).await?;
        Ok(detail(request, &base_url))
    }

    /// Every request through `query` with its bodies, written to `path` as NDJSON (a line each).
    pub async fn export_request_log(&self, query: RequestQuery, path: &Path) -> Result<ExportResult, CommandError> {
        let mut query = search(query);
        query.cursor = None;
        let requests = self.client().await?.requests().query(query).export().await?;
        let mut text = String::new();
        for request in &requests {
            let line = serde_json::to_string(request)
                .map_err(|error| CommandError::new(crate::error::codes::IO, error.to_string()))?;
            text.push_str(&line);
            text.push('\n');
        }
        std::fs::write(path, text).map_err(|error| {
            CommandError::new(crate::error::codes::IO, format!("{} cannot be written: {error}", path.display()))
        })?;
        Ok(ExportResult { path: path.display().to_string(), rows: u32::try_from(requests.len()).unwrap_or(u32::MAX) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logged(method: &str, path: &str) -> LoggedRequest {
        LoggedRequest {
            method: method.to_owned(),
            path: path.to_owned(),
            route: None,
            status: 201,
            code: None,
            request_id: "req_1".to_owned(),
            latency_ms: 1.5,
            at: chrono::DateTime::from_timestamp(1_795_400_000, 0).unwrap_or_default(),
        }
    }

    #[test]
    fn a_path_names_its_route_fixed_segments_first() {
        let endpoint = |method, path| route_of(method, path).map(|route| route.endpoint());
        assert_eq!(endpoint("GET", "/card/12"), Some("GET /card/{card_id}".to_owned()));
        assert_eq!(endpoint("GET", "/card/session/3"), Some("GET /card/session/{session_id}".to_owned()));
        assert_eq!(endpoint("GET", "/merchant/discover"), Some("GET /merchant/discover".to_owned()));
        assert_eq!(
            endpoint("GET", "/merchant/7/transactions/"),
            Some("GET /merchant/{merchant_id}/transactions".to_owned())
        );
        assert_eq!(endpoint("DELETE", "/webhooks/4"), Some("DELETE /webhooks/{webhook_id}".to_owned()));
        assert_eq!(endpoint("GET", "/nowhere"), None);
    }

    #[test]
    fn the_apps_own_reads_are_background() {
        assert!(describe(logged("GET", "/account/5"), "http://x").background);
        assert!(describe(logged("POST", "/subscriber/login"), "http://x").background);
        assert!(describe(logged("GET", "/card/5/transactions/stream"), "http://x").background);
        assert!(!describe(logged("GET", "/account"), "http://x").background);
        assert!(!describe(logged("POST", "/webhooks"), "http://x").background);
        // The deliveries panel's polling: the log and the endpoint's queue.
        assert!(describe(logged("GET", "/webhooks/4"), "http://x").background);
        assert!(describe(logged("GET", "/webhooks/4/deliveries"), "http://x").background);
        assert!(describe(logged("GET", "/webhooks"), "http://x").background);
        assert!(describe(logged("GET", "/events"), "http://x").background);
        assert!(describe(logged("GET", "/subscriber/requests"), "http://x").background);
        // What a click does on the same endpoint stays shown.
        assert!(!describe(logged("PATCH", "/webhooks/4"), "http://x").background);
        assert!(!describe(logged("DELETE", "/webhooks/4"), "http://x").background);
        assert!(!describe(logged("POST", "/webhooks/4/test"), "http://x").background);
    }

    #[test]
    fn curl_repeats_the_request_without_the_token() {
        let call = describe(logged("POST", "/card"), "http://127.0.0.1:9/");
        assert_eq!(call.url, "http://127.0.0.1:9/card");
        assert_eq!(call.status_text, "Created");
        assert!(call.curl.starts_with("curl \\\n  -X POST \\\n  'http://127.0.0.1:9/card'"), "{}", call.curl);
        assert!(call.curl.contains("-H \"Authorization: Bearer $SUBSCRIBER_TOKEN\""));
        assert!(call.curl.contains("--data @body.json"));
        assert!(call.headers.iter().any(|header| header.name == "Idempotency-Key"));
        let read = describe(logged("GET", "/card/1/transactions"), "http://h");
        assert!(!read.curl.contains("-X") && !read.curl.contains("--data") && !read.has_body);
        let login = describe(logged("POST", "/subscriber/login"), "http://h");
        assert!(!login.headers.iter().any(|header| header.name == "Authorization"));
    }
}
