//! The frame every hosted page shares: layout, security headers, error pages.

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::rules::hosted::readable_accent;

use crate::error::{ApiError, RenderedError};
use crate::state::AppState;
use crate::storage::subscribers::SubscriberRow;

pub const STYLESHEET_PATH: &str = "/secure/assets/hosted.css";
const STYLESHEET: &str = include_str!("hosted.css");

/// The subscriber's accent as a stylesheet of its own (`?color=rrggbb`). The pages' CSP allows
/// styles from this service only (no inline style, no style attribute), so the colour comes
/// as a stylesheet of the service rather than loosening the policy with a nonce per page.
pub const ACCENT_PATH: &str = "/secure/assets/accent.css";

/// The subscriber a hosted page is for, as the page shows it (`PATCH /subscriber`).
#[derive(Debug, Clone, Default)]
pub struct Branding {
    /// Shown escaped (maud escapes every text it writes).
    pub display_name: Option<String>,
    /// `rrggbb`, only a colour that keeps the page readable (`rules::hosted::readable_accent`).
    pub accent: Option<String>,
}

impl Branding {
    pub fn of(subscriber: &SubscriberRow) -> Self {
        let accent = subscriber
            .brand_color
            .as_deref()
            .and_then(readable_accent)
            .map(|(red, green, blue)| format!("{red:02x}{green:02x}{blue:02x}"));
        Self { display_name: subscriber.display_name.clone(), accent }
    }

    /// The branding of the subscriber who opened a page (none when it is gone).
    pub async fn load(state: &AppState, subscriber_id: SubscriberId) -> Result<Self, ApiError> {
        Ok(state.db.subscriber(subscriber_id).await?.map(|subscriber| Self::of(&subscriber)).unwrap_or_default())
    }
}

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
    render_branded(status, title, body, &Branding::default())
}

/// A complete page in the subscriber's accent, when it has a readable one.
pub fn render_branded(status: StatusCode, title: &str, body: Markup, branding: &Branding) -> Response {
    let accent = branding.accent.as_ref().map(|accent| format!("{ACCENT_PATH}?color={accent}"));
    let document = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) }
                link rel="stylesheet" href=(STYLESHEET_PATH);
                @if let Some(accent) = &accent { link rel="stylesheet" href=(accent); }
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

/// The way back to the subscriber's app: `return_url` with the outcome added to its query.
/// A link, not a redirect: after a form's POST, the pages' `form-action 'self'` stops browsers
/// from following a redirect to another origin, while following a link is a navigation no
/// directive of the policy governs.
pub fn return_link(branding: &Branding, return_url: &str, outcome: &[(&str, &str)]) -> Markup {
    let Some(target) = crate::return_url::with_outcome(return_url, outcome) else { return html! {} };
    let label = match &branding.display_name {
        Some(name) => format!("Return to {name}"),
        None => "Return to the application".to_owned(),
    };
    html! {
        p { a class="return" id="return-link" href=(target) { (label) } }
    }
}

/// A session a hosted page's link names, while it is open: the link's token (the form posts
/// it back), the session's row and whom the page is branded for.
pub struct OpenSession<Row> {
    pub token: String,
    pub row: Row,
    pub branding: Branding,
}

/// The answer to a link that names no session: what kind of link it was, and `next`, what the
/// person can do.
pub fn unknown_link(kind: &str, next: &str) -> Response {
    message(StatusCode::NOT_FOUND, "This link is not valid", &format!("This {kind} link is unknown. {next}"))
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

/// `GET /secure/assets/accent.css?color=rrggbb`: the accent, when it is readable (checked again
/// here: the address can be typed), else nothing (the default stays).
pub async fn accent_stylesheet(uri: Uri) -> Response {
    let color = super::token::query_param(&uri, "color").map(|color| format!("#{color}"));
    let accent = color.as_deref().and_then(readable_accent);
    let text = match accent {
        Some((red, green, blue)) => format!(":root {{ --accent: #{red:02x}{green:02x}{blue:02x}; }}\n"),
        None => String::new(),
    };
    let mut response = text.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/css; charset=utf-8"));
    secure_headers(headers);
    response
}

/// `GET /secure/assets/hosted.css`
pub async fn stylesheet() -> Response {
    let mut response = STYLESHEET.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/css; charset=utf-8"));
    secure_headers(headers);
    response
}
