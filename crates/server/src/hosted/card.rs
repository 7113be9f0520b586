//! The card-entry page: `GET /secure/card?session=<token>` shows the form, a POST to the
//! same address enrolls the card for the subscriber who opened the session.
//!
//! The card number is checked by the same rules as the API (`cards::check_card`, channel
//! `SecurePage`), used only to compute the fingerprint and last four, and never written back
//! into a page: a rejected form comes back with the number field empty.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::Response;
use chrono::{DateTime, Datelike, Utc};
use maud::{Markup, html};
use subscriber_protocol::{CardSessionStatus, Environment};

use super::page;
use super::token::{self, Browser};
use crate::cards::session::{self, PAGE_PATH};
use crate::cards::test_cards::TEST_CARDS;
use crate::cards::validation::CardInput;
use crate::cards::{self, PanChannel};
use crate::error::ApiError;
use crate::reference::countries;
use crate::state::AppState;
use crate::storage::{card_sessions::CardSessionRow, cards::Inserted};

const CSRF_PURPOSE: &str = "card-entry";
const FIELDS: [&str; 6] = ["pan", "firstName", "lastName", "expMonth", "expYear", "countryCode"];

/// The session a link names, or the page to answer with when it names none that is open.
async fn open_session(state: &AppState, uri: &Uri) -> Result<(String, CardSessionRow), Response> {
    let unknown = || {
        page::message(
            StatusCode::NOT_FOUND,
            "This link is not valid",
            "This card-entry link is unknown. Ask the application that sent you here for a new link.",
        )
    };
    let link_token = token::query_param(uri, "session").ok_or_else(unknown)?;
    let (row, status) = session::find_by_link(state, &link_token)
        .await
        .map_err(|error| page::internal_error(&error))?
        .ok_or_else(unknown)?;
    match status {
        CardSessionStatus::Pending => Ok((link_token, row)),
        CardSessionStatus::Completed => Err(used_page()),
        CardSessionStatus::Expired => Err(expired_page()),
    }
}

fn used_page() -> Response {
    page::message(
        StatusCode::GONE,
        "This link has already been used",
        "A card was already enrolled through this link, and it cannot be used again. \
         Ask the application that sent you here for a new link to enroll another card.",
    )
}

fn expired_page() -> Response {
    page::message(
        StatusCode::GONE,
        "This link has expired",
        "Card-entry links work for a limited time and close after too many rejected attempts. \
         Ask the application that sent you here for a new link.",
    )
}

/// What the form shows again after a rejected submission: never the card number.
#[derive(Default)]
struct Retyped {
    values: HashMap<&'static str, String>,
    errors: HashMap<String, String>,
    form_error: Option<String>,
}

impl Retyped {
    fn value(&self, field: &str) -> &str {
        self.values.get(field).map_or("", String::as_str)
    }
}

/// `GET /secure/card?session=<token>`
pub async fn show(State(state): State<AppState>, headers: HeaderMap, uri: Uri) -> Response {
    let (link_token, session) = match open_session(&state, &uri).await {
        Ok(open) => open,
        Err(page) => return page,
    };
    let browser = Browser::from_headers(&headers);
    let mut response = form_page(&state, &link_token, &session, &browser, &Retyped::default(), StatusCode::OK);
    if let Some(cookie) = browser.set_cookie(state.public_url_is_https()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// `POST /secure/card?session=<token>`
pub async fn submit(State(state): State<AppState>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let (link_token, session) = match open_session(&state, &uri).await {
        Ok(open) => open,
        Err(page) => return page,
    };
    let fields = token::form_fields(&body);
    let presented = fields.get("csrf").map_or("", String::as_str);
    let browser = Browser::existing(&headers);
    let Some(nonce) =
        browser.filter(|nonce| token::csrf_valid(&state.hosted_key, CSRF_PURPOSE, session.id, nonce, presented))
    else {
        return page::message(
            StatusCode::FORBIDDEN,
            "This form could not be verified",
            "The form was not sent from the page this link opened, or your browser blocked its cookie. \
             Open the link again and retype the card; nothing was saved.",
        );
    };
    let browser = Browser::known(nonce);

    let text = |name: &str| fields.get(name).map_or("", |value| value.trim());
    // An unreadable month or year becomes a value the shared rules reject with their message.
    let exp_month = text("expMonth").parse::<u32>().unwrap_or(0);
    let exp_year = text("expYear").parse::<u32>().unwrap_or(u32::MAX);
    let input = CardInput {
        pan: text("pan"),
        first_name: text("firstName"),
        last_name: text("lastName"),
        exp_month,
        exp_year,
        country_code: text("countryCode"),
    };
    let checked = cards::check_card(state.environment(), PanChannel::SecurePage, &input);
    let (card, brand) = match checked {
        Ok(checked) => checked,
        Err(ApiError::InvalidRequest { details, message }) => {
            let mut retyped = Retyped::default();
            for field in FIELDS.into_iter().filter(|field| *field != "pan") {
                retyped.values.insert(field, text(field).to_owned());
            }
            for detail in details {
                retyped.errors.entry(detail.field).or_insert(detail.message);
            }
            if retyped.errors.is_empty() {
                retyped.form_error = Some(message);
            }
            return rejected(&state, &link_token, &session, &browser, &retyped).await;
        }
        Err(other) => return page::internal_error(&other),
    };

    let prepared = match cards::prepare_card(&state, session.subscriber_id, card, brand).await {
        Ok(prepared) => prepared,
        Err(error) => return page::internal_error(&error),
    };
    let (last_four, brand) = (prepared.enrolled.last_four, prepared.enrolled.brand.clone());
    let session_id = session.id;
    let outcome = session::complete(&state, session_id, prepared).await;
    match outcome {
        Ok(Some(Inserted::Created(card_id))) => {
            tracing::info!(session_id, card_id, last_four, "card enrolled on the secure page");
            enrolled_page(&brand, last_four, card_id, false)
        }
        Ok(Some(Inserted::Duplicate(card_id))) => {
            tracing::info!(session_id, card_id, last_four, "secure page: card was already enrolled");
            enrolled_page(&brand, last_four, card_id, true)
        }
        Ok(None) => used_page(),
        Err(error) => page::internal_error(&error),
    }
}

/// Counts the rejection and shows the form again, or closes the page after too many.
async fn rejected(
    state: &AppState,
    link_token: &str,
    session: &CardSessionRow,
    browser: &Browser,
    retyped: &Retyped,
) -> Response {
    match session::record_rejection(state, session.id).await {
        Ok(true) => form_page(state, link_token, session, browser, retyped, StatusCode::BAD_REQUEST),
        Ok(false) => expired_page(),
        Err(error) => page::internal_error(&error),
    }
}

fn enrolled_page(brand: &str, last_four: u16, card_id: i64, already: bool) -> Response {
    let title = if already { "This card was already enrolled" } else { "Card enrolled" };
    page::render(
        StatusCode::OK,
        title,
        html! {
            div class="outcome-ok" {
                h1 { (title) }
                p id="enrolled-card" { (brand) " card ending in " strong { (format!("{last_four:04}")) } }
                p { "You can close this window and return to the application." }
                (page::return_to_app(&format!("card/{card_id}")))
            }
        },
    )
}

fn form_page(
    state: &AppState,
    link_token: &str,
    session: &CardSessionRow,
    browser: &Browser,
    retyped: &Retyped,
    status: StatusCode,
) -> Response {
    let action = format!("{PAGE_PATH}?session={link_token}");
    let csrf = token::csrf_token(&state.hosted_key, CSRF_PURPOSE, session.id, &browser.nonce);
    let expires = DateTime::from_timestamp(session.expires_at, 0).map(|at| at.format("%H:%M UTC").to_string());
    let this_year = u32::try_from(Utc::now().year()).unwrap_or(2026);
    let sandbox = state.environment() == Environment::Sandbox;
    let body = html! {
        header class="brand" {
            span class="who" { "Subscriber Data · secure card entry" }
        }
        h1 { "Enroll a card" }
        p class="muted" {
            "Your card number goes only to Subscriber Data, which keeps the last four digits, never the number."
            @if let Some(expires) = &expires { " This page works until " (expires) "." }
        }
        @if sandbox {
            div class="sandbox" {
                "Sandbox: only test cards are accepted, e.g. "
                @for (index, card) in TEST_CARDS.iter().take(3).enumerate() {
                    @if index > 0 { ", " }
                    code { (card.pan) }
                }
                "."
            }
        }
        @if let Some(error) = &retyped.form_error {
            p class="form-error" role="alert" { (error) }
        }
        form method="post" action=(action) autocomplete="off" novalidate {
            input type="hidden" name="csrf" value=(csrf);
            (text_field(retyped, "pan", "Card number", "cc-number", "numeric", ""))
            div class="row" {
                (text_field(retyped, "firstName", "First name", "cc-given-name", "text", retyped.value("firstName")))
                (text_field(retyped, "lastName", "Last name", "cc-family-name", "text", retyped.value("lastName")))
            }
            div class="row" {
                (select_field(retyped, "expMonth", "Expiry month", "cc-exp-month",
                    &(1..=12).map(|month| (month.to_string(), format!("{month:02}"))).collect::<Vec<_>>()))
                (select_field(retyped, "expYear", "Expiry year", "cc-exp-year",
                    &(this_year..=this_year + 20).map(|year| (year.to_string(), year.to_string())).collect::<Vec<_>>()))
            }
            (select_field(retyped, "countryCode", "Country", "country",
                &countries::all().into_iter().map(|(code, name)| (code.to_owned(), format!("{name} ({code})"))).collect::<Vec<_>>()))
            button type="submit" id="enroll" { "Enroll card" }
        }
    };
    page::render(status, "Enroll a card", body)
}

fn field_error(retyped: &Retyped, name: &str) -> Markup {
    html! {
        @if let Some(error) = retyped.errors.get(name) {
            span class="field-error" id=(format!("{name}-error")) role="alert" { (error) }
        }
    }
}

fn text_field(retyped: &Retyped, name: &str, label: &str, autocomplete: &str, inputmode: &str, value: &str) -> Markup {
    let invalid = retyped.errors.contains_key(name);
    html! {
        label for=(name) {
            (label)
            input type="text" id=(name) name=(name) value=(value) autocomplete=(autocomplete)
                inputmode=(inputmode) maxlength="64" aria-invalid=(invalid)
                aria-describedby=[invalid.then(|| format!("{name}-error"))];
            (field_error(retyped, name))
        }
    }
}

fn select_field(
    retyped: &Retyped,
    name: &str,
    label: &str,
    autocomplete: &str,
    options: &[(String, String)],
) -> Markup {
    let invalid = retyped.errors.contains_key(name);
    let chosen = retyped.value(name);
    html! {
        label for=(name) {
            (label)
            select id=(name) name=(name) autocomplete=(autocomplete) aria-invalid=(invalid)
                aria-describedby=[invalid.then(|| format!("{name}-error"))] {
                option value="" selected[chosen.is_empty()] { "Choose…" }
                @for (value, text) in options {
                    option value=(value) selected[value.eq_ignore_ascii_case(chosen)] { (text) }
                }
            }
            (field_error(retyped, name))
        }
    }
}
