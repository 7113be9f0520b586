//! The frame every hosted page shares: layout, security headers, error pages.

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use crate::error::RenderedError;

pub const STYLESHEET_PATH: &str = "/secure/assets/hosted.css";
const STYLESHEET: &str = include_str!("hosted.css");

/// No script, no frame, no third party: the page loads only its own stylesheet and can
/// post only to this service.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The headers of every hosted page and its stylesheet.
fn secure_headers(headers: &mut HeaderMap) {
    let fixed: [(HeaderName, &'static str); 7] = [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
        (header::PRAGMA, "no-cache"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (HeaderName::from_static("cross-origin-opener-policy"), "same-origin"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// A complete page. Error statuses are marked as rendered so the API's JSON error
/// rendering leaves the HTML alone.
pub fn render(status: StatusCode, title: &str, body: Markup) -> Response {
    let document = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) }
                link rel="stylesheet" href=(STYLESHEET_PATH);
            }
            body { main { (body) } }
        }
    };
    let mut response = (status, document.into_string()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    secure_headers(headers);
    response.extensions_mut().insert(RenderedError);
    response
}

/// "Return to Subscriber Data": a link that opens `route` in the desktop dashboard (its
/// `subscriber-data://` scheme; the routes are those of crates/dashboard's `links`). A browser
/// without the app installed does nothing with it.
pub fn return_to_app(route: &str) -> Markup {
    html! {
        p {
            a class="return" id="return-to-app" href=(format!("subscriber-data://{route}")) {
                "Return to Subscriber Data"
            }
        }
    }
}

/// A page that only says what happened (unknown, used or expired links; failures).
pub fn message(status: StatusCode, title: &str, text: &str) -> Response {
    let class = if status.is_success() { "outcome-ok" } else { "outcome-failed" };
    render(
        status,
        title,
        html! {
            div class=(class) {
                h1 { (title) }
                p { (text) }
            }
        },
    )
}

/// For a failure the person cannot fix; the cause is logged with the request id.
pub fn internal_error(cause: &crate::error::ApiError) -> Response {
    if let crate::error::ApiError::Unavailable { retry_after_seconds, .. } = cause {
        let mut page = message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Briefly unavailable",
            "The service cannot finish this step right now. Nothing was saved; please try again in a moment.",
        );
        if let Ok(value) = HeaderValue::from_str(&retry_after_seconds.to_string()) {
            page.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return page;
    }
    if let crate::error::ApiError::Internal(cause) = cause {
        tracing::error!(error = format!("{cause:#}"), "hosted page failed");
    }
    message(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something went wrong",
        "The service could not finish this step. Nothing was saved; please try again in a moment.",
    )
}

/// `GET /secure/assets/hosted.css`
pub async fn stylesheet() -> Response {
    let mut response = STYLESHEET.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/css; charset=utf-8"));
    secure_headers(headers);
    response
}
