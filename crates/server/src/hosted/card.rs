//! The card-entry page: `GET /secure/card?session=<token>` shows the form, a POST to the
//! same address enrolls the card for the subscriber who opened the session.
//!
//! The card number is checked by the same rules as the API (`cards::check_card`, channel
//! `SecurePage`), used only to compute the fingerprint and last four, and never written back
//! into a page: a rejected form comes back with the number field empty.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::Response;
use chrono::{Datelike, Utc};
use maud::{Markup, html};
use subscriber_protocol::{CardId, CardSessionStatus, Environment};

use super::form::{Retyped, select_field, text_field};
use super::page::{self, Branding};
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

/// An open session, as it is shown.
type Open = page::OpenSession<CardSessionRow>;

/// The session a link names, or the page to answer with when it names none that is open.
async fn open_session(state: &AppState, uri: &Uri) -> Result<Open, Response> {
    let unknown = || page::unknown_link("card-entry", "Ask the application that sent you here for a new link.");
    let link_token = token::query_param(uri, "session").ok_or_else(unknown)?;
    let (row, status) = session::find_by_link(state, &link_token)
        .await
        .map_err(|error| page::internal_error(&error))?
        .ok_or_else(unknown)?;
    let branding = Branding::load(state, row.subscriber_id).await.map_err(|error| page::internal_error(&error))?;
    match status {
        CardSessionStatus::Pending => Ok(Open { token: link_token, row, branding }),
        CardSessionStatus::Completed => Err(used_page(&branding, &row)),
        CardSessionStatus::Expired => Err(expired(state, &branding, &row).await),
    }
}

/// The link back to the subscriber, when the session has one: `sessionId` and `status`.
fn back(branding: &Branding, row: &CardSessionRow, status: CardSessionStatus) -> Markup {
    let Some(return_url) = &row.return_url else { return html! {} };
    let status = match status {
        CardSessionStatus::Pending => "pending",
        CardSessionStatus::Completed => "completed",
        CardSessionStatus::Expired => "expired",
    };
    page::return_link(branding, return_url, &[("sessionId", &row.id.to_string()), ("status", status)])
}

/// A page that says what happened, with the way back when there is one.
fn outcome(branding: &Branding, row: &CardSessionRow, status: CardSessionStatus, title: &str, text: &str) -> Response {
    page::render_branded(
        StatusCode::GONE,
        title,
        html! {
            div class="outcome-failed" {
                h1 { (title) }
                p { (text) }
                (back(branding, row, status))
            }
        },
        branding,
    )
}

fn used_page(branding: &Branding, row: &CardSessionRow) -> Response {
    outcome(
        branding,
        row,
        CardSessionStatus::Completed,
        "This link has already been used",
        "A card was already enrolled through this link, and it cannot be used again. \
         Ask the application that sent you here for a new link to enroll another card.",
    )
}

/// The session is past its expiry: its event is recorded (once), the page says so.
async fn expired(state: &AppState, branding: &Branding, row: &CardSessionRow) -> Response {
    if let Err(error) = session::note_expired(state, row).await {
        return page::internal_error(&error);
    }
    outcome(
        branding,
        row,
        CardSessionStatus::Expired,
        "This link has expired",
        "Card-entry links work for a limited time and close after too many rejected attempts. \
         Ask the application that sent you here for a new link.",
    )
}

/// `GET /secure/card?session=<token>`
pub async fn show(State(state): State<AppState>, headers: HeaderMap, uri: Uri) -> Response {
    let open = match open_session(&state, &uri).await {
        Ok(open) => open,
        Err(page) => return page,
    };
    let browser = Browser::from_headers(&headers);
    let mut response = form_page(&state, &open, &browser, &Retyped::default(), StatusCode::OK);
    if let Some(cookie) = browser.set_cookie(state.public_url_is_https()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// `POST /secure/card?session=<token>`
pub async fn submit(State(state): State<AppState>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let open = match open_session(&state, &uri).await {
        Ok(open) => open,
        Err(page) => return page,
    };
    let session = &open.row;
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
            return rejected(&state, &open, &browser, &retyped).await;
        }
        Err(other) => return page::internal_error(&other),
    };

    let prepared = match cards::prepare_card(&state, session.subscriber_id, card, brand, session.labels.clone()).await {
        Ok(prepared) => prepared,
        Err(error) => return page::internal_error(&error),
    };
    let (last_four, brand) = (prepared.enrolled.last_four, prepared.enrolled.brand.clone());
    let session_id = session.id;
    let outcome = session::complete(&state, session_id, prepared).await;
    match outcome {
        Ok(Some(Inserted::Created(card_id))) => {
            tracing::info!(
                session_id = session_id.get(),
                card_id = card_id.get(),
                last_four,
                "card enrolled on the secure page"
            );
            enrolled_page(&open, &brand, last_four, card_id, false)
        }
        Ok(Some(Inserted::Duplicate(card_id))) => {
            tracing::info!(
                session_id = session_id.get(),
                card_id = card_id.get(),
                last_four,
                "secure page: card was already enrolled"
            );
            enrolled_page(&open, &brand, last_four, card_id, true)
        }
        Ok(None) => used_page(&open.branding, &open.row),
        Err(error) => page::internal_error(&error),
    }
}

/// Counts the rejection and shows the form again, or closes the page after too many.
async fn rejected(state: &AppState, open: &Open, browser: &Browser, retyped: &Retyped) -> Response {
    match session::record_rejection(state, open.row.id).await {
        Ok(true) => form_page(state, open, browser, retyped, StatusCode::BAD_REQUEST),
        // This rejection closed the session: it is expired now.
        Ok(false) => expired(state, &open.branding, &open.row).await,
        Err(error) => page::internal_error(&error),
    }
}

fn enrolled_page(open: &Open, brand: &str, last_four: u16, card_id: CardId, already: bool) -> Response {
    let title = if already { "This card was already enrolled" } else { "Card enrolled" };
    let branding = &open.branding;
    page::render_branded(
        StatusCode::OK,
        title,
        html! {
            div class="outcome-ok" {
                h1 { (title) }
                p id="enrolled-card" { (brand) " card ending in " strong { (format!("{last_four:04}")) } }
                @if open.row.return_url.is_some() {
                    (back(branding, &open.row, CardSessionStatus::Completed))
                } @else {
                    p { "You can close this window and return to the application." }
                    (page::return_to_app(&format!("card/{card_id}")))
                }
            }
        },
        branding,
    )
}

fn form_page(state: &AppState, open: &Open, browser: &Browser, retyped: &Retyped, status: StatusCode) -> Response {
    let session = &open.row;
    let branding = &open.branding;
    let action = format!("{PAGE_PATH}?session={}", open.token);
    let csrf = token::csrf_token(&state.hosted_key, CSRF_PURPOSE, session.id, &browser.nonce);
    let expires = session.expires_at.to_datetime().map(|at| at.format("%H:%M UTC").to_string());
    let this_year = u32::try_from(Utc::now().year()).unwrap_or(2026);
    let sandbox = state.environment() == Environment::Sandbox;
    let body = html! {
        header class="brand" {
            @if let Some(name) = &branding.display_name {
                strong class="subscriber" id="subscriber-name" { (name) }
                span class="who" { "secure card entry by Subscriber Data" }
            } @else {
                span class="who" { "Subscriber Data · secure card entry" }
            }
        }
        h1 { "Enroll a card" }
        p class="muted" {
            @if let Some(name) = &branding.display_name { (name) " asked you to enroll a card. " }
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
    page::render_branded(status, "Enroll a card", body, branding)
}
