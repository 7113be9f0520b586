//! The identity page: `GET /secure/identity?session=<token>` asks the person about themselves,
//! a POST to the same address (`step=information`) issues the questions, another
//! (`step=answers`) scores them. It runs the API's own steps (`persons::authenticate_person`,
//! `persons::verify_person`): the same question sets, attempts and lock, and the same answer
//! values (the API's `choiceId`s). What the person types is checked and used to fit the
//! questions, never stored, logged or shown to the subscriber; a rejected form shows back what
//! they typed but the SSN digits.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::Response;
use maud::{Markup, html};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{
    Answer, AuthenticatePersonRequest, AuthenticatePersonResponse, PersonAddress, PersonStatus, VerifyPersonRequest,
};

use super::form::{Retyped, select_field, text_field};
use super::page::{self, Branding};
use super::token::{self, Browser};
use crate::error::ApiError;
use crate::persons::{self, session::PAGE_PATH};
use crate::reference::countries;
use crate::state::AppState;
use crate::storage::person_sessions::PersonSessionRow;

const CSRF_PURPOSE: &str = "identity";
/// The fields shown back after a rejection (the SSN digits never are).
const SHOWN_AGAIN: [&str; 7] = ["dateOfBirth", "street", "streetNo", "city", "zip", "countryCode", "phoneNumber"];

/// An open page, as it is shown.
type Open = page::OpenSession<PersonSessionRow>;

/// The page a link names, or the page that says why it is not open.
async fn open_session(state: &AppState, uri: &Uri) -> Result<Open, Response> {
    let unknown = || page::unknown_link("identity", "Ask the application that sent you here for a new link.");
    if state.identity_source.is_none() {
        return Err(page::message(
            StatusCode::NOT_FOUND,
            "There is no identity verification here",
            "This service has no identity source configured. Go back to the application that sent you here.",
        ));
    }
    let link_token = token::query_param(uri, "session").ok_or_else(unknown)?;
    let row = state
        .db
        .person_session_by_token(crate::link_token::hash(&link_token).to_vec())
        .await
        .map_err(|error| page::internal_error(&error.into()))?
        .ok_or_else(unknown)?;
    let branding = Branding::load(state, row.subscriber_id).await.map_err(|error| page::internal_error(&error))?;
    let open = Open { token: link_token, row, branding };
    if open.row.completed_at.is_some() {
        return Err(ended(
            &open,
            StatusCode::GONE,
            "This link has already been used",
            "You finished here already, and this link cannot be used again. You can close this window.",
            "used",
        ));
    }
    if UnixSeconds::now() >= open.row.expires_at {
        return Err(ended(
            &open,
            StatusCode::GONE,
            "This link has expired",
            "Identity links work for a limited time. Ask the application that sent you here for a new one.",
            "expired",
        ));
    }
    Ok(open)
}

/// The link back to the subscriber, when the page has one: `sessionId` and `status`.
fn back(open: &Open, status: &str) -> Markup {
    let Some(return_url) = &open.row.return_url else { return html! {} };
    page::return_link(&open.branding, return_url, &[("sessionId", &open.row.id.to_string()), ("status", status)])
}

/// Who asked, in the page's words.
fn asker(open: &Open) -> String {
    open.branding.display_name.clone().unwrap_or_else(|| "The application that sent you here".to_owned())
}

fn ended(open: &Open, status: StatusCode, title: &str, text: &str, outcome: &str) -> Response {
    page::render_branded(
        status,
        title,
        html! {
            div class="outcome-failed" {
                h1 { (title) }
                p { (text) }
                (back(open, outcome))
            }
        },
        &open.branding,
    )
}

fn with_cookie(mut response: Response, state: &AppState, browser: &Browser) -> Response {
    if let Some(cookie) = browser.set_cookie(state.public_url_is_https()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// `GET /secure/identity?session=<token>`: the questions still open, else the form.
pub async fn show(State(state): State<AppState>, headers: HeaderMap, uri: Uri) -> Response {
    let open = match open_session(&state, &uri).await {
        Ok(open) => open,
        Err(page) => return page,
    };
    let browser = Browser::from_headers(&headers);
    let response = match current(&state, &open).await {
        Ok(Current::Questions(questions)) => questions_page(&state, &open, &browser, &questions, None, StatusCode::OK),
        Ok(Current::Form) => information_page(&state, &open, &browser, &Retyped::default(), StatusCode::OK),
        Ok(Current::Done(response)) => response,
        Err(error) => page::internal_error(&error),
    };
    with_cookie(response, &state, &browser)
}

/// Where the person stands on an open page.
enum Current {
    Questions(AuthenticatePersonResponse),
    Form,
    /// Verified or locked: the page is used, its outcome shown.
    Done(Response),
}

async fn current(state: &AppState, open: &Open) -> Result<Current, ApiError> {
    let now = UnixSeconds::now();
    let person = state
        .db
        .person(open.row.subscriber_id, open.row.person_id)
        .await?
        .ok_or_else(|| ApiError::not_found("the person was removed"))?;
    if person.verified_at.is_some() {
        return Ok(Current::Done(finish(state, open, Finished::Verified).await));
    }
    if let Some(until) = person.locked_until.filter(|until| *until > now) {
        return Ok(Current::Done(finish(state, open, Finished::Locked { until }).await));
    }
    Ok(match persons::open_questions(state, person.id, now).await? {
        Some(questions) => Current::Questions(questions),
        None => Current::Form,
    })
}

enum Finished {
    Verified,
    Locked { until: UnixSeconds },
}

/// The outcome: the page is used from now on.
async fn finish(state: &AppState, open: &Open, finished: Finished) -> Response {
    if let Err(error) = state.db.complete_person_session(open.row.id, UnixSeconds::now()).await {
        return page::internal_error(&error.into());
    }
    let asker = asker(open);
    match finished {
        Finished::Verified => {
            tracing::info!(session_id = open.row.id.get(), "identity page: person verified");
            page::render_branded(
                StatusCode::OK,
                "You're verified",
                html! {
                    div class="outcome-ok" {
                        h1 { "You're verified" }
                        p { "Thank you. " (asker) " now knows your identity is confirmed; it never sees your answers." }
                        @if open.row.return_url.is_some() { (back(open, "verified")) }
                        @else { p { "You can close this window." } }
                    }
                },
                &open.branding,
            )
        }
        Finished::Locked { until } => {
            tracing::info!(session_id = open.row.id.get(), "identity page: person locked");
            let when = until
                .to_datetime()
                .map_or_else(|| "later".to_owned(), |at| at.format("%-d %B %Y at %H:%M UTC").to_string());
            page::render_branded(
                StatusCode::OK,
                "We couldn't confirm your identity",
                html! {
                    div class="outcome-failed" {
                        h1 { "We couldn't confirm your identity" }
                        p id="locked-reason" {
                            "The answers didn't match the records three times, so verification is paused for your "
                            "protection. Nothing you typed was kept."
                        }
                        p id="next-step" {
                            "What happens next: you can try again after " strong { (when) } ", with a new link from "
                            (asker) ". If you think this is a mistake, contact " (asker) " directly."
                        }
                        (back(open, "locked"))
                    }
                },
                &open.branding,
            )
        }
    }
}

/// `POST /secure/identity?session=<token>`: `step=information` or `step=answers`.
pub async fn submit(State(state): State<AppState>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let open = match open_session(&state, &uri).await {
        Ok(open) => open,
        Err(page) => return page,
    };
    let fields = token::form_fields(&body);
    let presented = fields.get("csrf").map_or("", String::as_str);
    let Some(nonce) = Browser::existing(&headers)
        .filter(|nonce| token::csrf_valid(&state.hosted_key, CSRF_PURPOSE, open.row.id, nonce, presented))
    else {
        return page::message(
            StatusCode::FORBIDDEN,
            "This form could not be verified",
            "The form was not sent from the page this link opened, or your browser blocked its cookie. \
             Open the link again in this browser.",
        );
    };
    let browser = Browser::known(nonce);
    let field = |name: &str| fields.get(name).map_or("", |value| value.trim()).to_owned();
    match field("step").as_str() {
        "answers" => submit_answers(&state, &open, &browser, &fields).await,
        _ => {
            let country = field("countryCode").to_uppercase();
            let optional = |text: String| (!text.is_empty()).then_some(text);
            let request = AuthenticatePersonRequest {
                person_id: open.row.person_id,
                date_of_birth: field("dateOfBirth"),
                address: PersonAddress {
                    street: field("street"),
                    street_no: field("streetNo"),
                    city: field("city"),
                    zip: field("zip"),
                    country_code: country.clone(),
                },
                phone_number: optional(field("phoneNumber")),
                // Asked of US addresses only.
                ssn_last4: optional(field("ssnLast4")).filter(|_| country == "USA"),
            };
            let mut retyped = Retyped::default();
            for name in SHOWN_AGAIN {
                retyped.values.insert(name, field(name));
            }
            submit_information(&state, &open, &browser, request, retyped).await
        }
    }
}

async fn submit_information(
    state: &AppState,
    open: &Open,
    browser: &Browser,
    request: AuthenticatePersonRequest,
    mut retyped: Retyped,
) -> Response {
    match persons::authenticate_person(state, open.row.subscriber_id, request).await {
        Ok(questions) => questions_page(state, open, browser, &questions, None, StatusCode::OK),
        Err(ApiError::InvalidRequest { details, message }) => {
            for detail in details {
                // `address.zip` is the form's `zip`.
                let name = detail.field.trim_start_matches("address.").to_owned();
                retyped.errors.insert(name, detail.message);
            }
            if retyped.errors.is_empty() {
                retyped.form_error = Some(message);
            }
            information_page(state, open, browser, &retyped, StatusCode::BAD_REQUEST)
        }
        Err(ApiError::Locked { until, .. }) => finish(state, open, Finished::Locked { until: until.into() }).await,
        Err(ApiError::Conflict { .. }) => finish(state, open, Finished::Verified).await,
        Err(error) => page::internal_error(&error),
    }
}

async fn submit_answers(
    state: &AppState,
    open: &Open,
    browser: &Browser,
    fields: &std::collections::HashMap<String, String>,
) -> Response {
    let answers: Vec<Answer> = fields
        .iter()
        .filter_map(|(name, value)| {
            let question_id = name.strip_prefix("q")?.parse().ok()?;
            let choice_id = value.trim().parse().ok()?;
            Some(Answer { question_id, choice_id })
        })
        .collect();
    let request = VerifyPersonRequest { person_id: open.row.person_id, answers };
    match persons::verify_person(state, open.row.subscriber_id, request).await {
        Ok(outcome) => match (outcome.status, outcome.locked_until) {
            (PersonStatus::Verified, _) => finish(state, open, Finished::Verified).await,
            (PersonStatus::Locked, Some(until)) => finish(state, open, Finished::Locked { until: until.into() }).await,
            _ => try_again_page(open, outcome.attempts_remaining),
        },
        Err(ApiError::Locked { until, .. }) => finish(state, open, Finished::Locked { until: until.into() }).await,
        // Not every question answered: the same questions again, saying so.
        Err(ApiError::InvalidRequest { .. }) => {
            match persons::open_questions(state, open.row.person_id, UnixSeconds::now()).await {
                Ok(Some(questions)) => questions_page(
                    state,
                    open,
                    browser,
                    &questions,
                    Some("Choose one answer for every question."),
                    StatusCode::BAD_REQUEST,
                ),
                Ok(None) => {
                    let retyped = Retyped {
                        form_error: Some("The questions expired before they were answered: please start again.".into()),
                        ..Retyped::default()
                    };
                    information_page(state, open, browser, &retyped, StatusCode::BAD_REQUEST)
                }
                Err(error) => page::internal_error(&error),
            }
        }
        // Answered already (another tab), or verified meanwhile: where the person stands now.
        Err(ApiError::Conflict { .. }) => match current(state, open).await {
            Ok(Current::Done(response)) => response,
            Ok(Current::Questions(questions)) => questions_page(state, open, browser, &questions, None, StatusCode::OK),
            Ok(Current::Form) => information_page(state, open, browser, &Retyped::default(), StatusCode::OK),
            Err(error) => page::internal_error(&error),
        },
        Err(error) => page::internal_error(&error),
    }
}

fn header(open: &Open) -> Markup {
    html! {
        header class="brand" {
            @if let Some(name) = &open.branding.display_name {
                strong class="subscriber" id="subscriber-name" { (name) }
                span class="who" { "identity check by Subscriber Data" }
            } @else {
                span class="who" { "Subscriber Data · identity check" }
            }
        }
    }
}

fn information_page(
    state: &AppState,
    open: &Open,
    browser: &Browser,
    retyped: &Retyped,
    status: StatusCode,
) -> Response {
    let action = format!("{PAGE_PATH}?session={}", open.token);
    let csrf = token::csrf_token(&state.hosted_key, CSRF_PURPOSE, open.row.id, &browser.nonce);
    let countries: Vec<(String, String)> =
        countries::all().into_iter().map(|(code, name)| (code.to_owned(), format!("{name} ({code})"))).collect();
    let body = html! {
        (header(open))
        h1 { "Confirm your identity" }
        p class="muted" {
            (asker(open)) " asked you to confirm who you are. Tell us a little about yourself, then answer four "
            "questions only you should know. What you type here is used for these questions and not kept; "
            (asker(open)) " sees only whether you are verified."
        }
        @if let Some(error) = &retyped.form_error {
            p class="form-error" role="alert" { (error) }
        }
        form method="post" action=(action) autocomplete="on" novalidate {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="step" value="information";
            (text_field(retyped, "dateOfBirth", "Date of birth (YYYY-MM-DD)", "bday", "numeric", retyped.value("dateOfBirth")))
            div class="row" {
                (text_field(retyped, "street", "Street", "address-line1", "text", retyped.value("street")))
                (text_field(retyped, "streetNo", "Number", "address-line2", "text", retyped.value("streetNo")))
            }
            div class="row" {
                (text_field(retyped, "city", "City", "address-level2", "text", retyped.value("city")))
                (text_field(retyped, "zip", "Postal code", "postal-code", "text", retyped.value("zip")))
            }
            (select_field(retyped, "countryCode", "Country", "country", &countries))
            (text_field(retyped, "phoneNumber", "Phone (optional)", "tel", "tel", retyped.value("phoneNumber")))
            // Shown for a US address only (the stylesheet, no script): elsewhere it is not asked.
            div class="us-only" {
                (text_field(retyped, "ssnLast4", "Last four digits of your Social Security number (optional)", "off", "numeric", ""))
            }
            button type="submit" id="continue" { "Continue" }
        }
    };
    page::render_branded(status, "Confirm your identity", body, &open.branding)
}

fn questions_page(
    state: &AppState,
    open: &Open,
    browser: &Browser,
    questions: &AuthenticatePersonResponse,
    error: Option<&str>,
    status: StatusCode,
) -> Response {
    let action = format!("{PAGE_PATH}?session={}", open.token);
    let csrf = token::csrf_token(&state.hosted_key, CSRF_PURPOSE, open.row.id, &browser.nonce);
    let until = questions.expires_at.format("%H:%M UTC").to_string();
    let body = html! {
        (header(open))
        h1 { "Four questions about you" }
        p class="muted" { "Choose the answer that fits; \"None of the above\" is right when none does. Answer by " (until) "." }
        @if let Some(error) = error {
            p class="form-error" role="alert" { (error) }
        }
        form method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="step" value="answers";
            @for (index, question) in questions.questions.iter().enumerate() {
                fieldset class="question" {
                    legend { (index + 1) ". " (question.text) }
                    @for choice in &question.choices {
                        label class="choice" {
                            input type="radio" name=(format!("q{}", question.question_id)) value=(choice.choice_id)
                                id=(format!("choice-{}", choice.choice_id));
                            (choice.text)
                        }
                    }
                }
            }
            button type="submit" id="submit-answers" { "Submit answers" }
        }
    };
    page::render_branded(status, "Four questions about you", body, &open.branding)
}

fn try_again_page(open: &Open, attempts_left: u32) -> Response {
    let again = format!("{PAGE_PATH}?session={}", open.token);
    page::render_branded(
        StatusCode::OK,
        "Those answers didn't match",
        html! {
            div class="outcome-failed" {
                h1 { "Those answers didn't match" }
                p id="attempts-left" {
                    "Not enough answers matched the records. You can try again with new questions: "
                    (attempts_left) " attempt" @if attempts_left != 1 { "s" } " left before verification pauses."
                }
                a class="return" id="try-again" href=(again) { "Try again" }
            }
        },
        &open.branding,
    )
}
