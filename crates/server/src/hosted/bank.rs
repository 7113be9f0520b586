//! The sandbox bank's pages (sandbox only: elsewhere every one of them is a 404 page): sign-in (`/secure/bank/login?link=<token>`; for `user_mfa` the
//! same address then asks for a one-time code), then consent
//! (`/secure/bank/consent?link=<token>`), then the outcome.
//!
//! The username and password are compared with the published test credentials and then
//! dropped: they are never stored, logged or shown again. Signing in binds the link to the
//! browser that did it (the hash of its nonce cookie), so the consent step cannot be taken
//! from another browser that only knows the link.

use std::collections::HashMap;
use subscriber_protocol::AccountId;
use subscriber_protocol::UnixSeconds;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use subscriber_protocol::{AccountPermission, AccountStatus, Environment};

use super::page::{self, Branding};
use super::token::{self, Browser};
use crate::accounts::banks::{SandboxBank, credentials};
use crate::accounts::{self, ALL_PERMISSIONS, CONSENT_PATH, LOGIN_PATH, bank_link, permission_name};
use crate::link_token;
use crate::state::AppState;
use crate::storage::bank_accounts::{BankAccountRow, LinkStage, LinkStatus};

const LOGIN_PURPOSE: &str = "bank-login";
const CONSENT_PURPOSE: &str = "bank-consent";
const CODE_PURPOSE: &str = "bank-code";

struct Link {
    token: String,
    row: BankAccountRow,
    bank: &'static SandboxBank,
    branding: Branding,
}

/// The pending link a URL names, or the page that says why there is none.
async fn open_link(state: &AppState, uri: &Uri) -> Result<Link, Response> {
    let unknown =
        || page::unknown_link("bank sign-in", "Go back to the application that sent you here and start again.");
    // The published test logins must not link anything outside the sandbox, even through a
    // link made while the same database served the sandbox.
    if accounts::linkable_banks(state).is_none() {
        return Err(page::message(
            StatusCode::NOT_FOUND,
            "There is no bank sign-in here",
            "This service has no bank connection configured. Go back to the application that sent you here.",
        ));
    }
    let link_token = token::query_param(uri, "link").ok_or_else(unknown)?;
    let row = bank_link::find_by_link(state, &link_token)
        .await
        .map_err(|error| page::internal_error(&error))?
        .ok_or_else(unknown)?;
    let bank = accounts::bank_of(&row).map_err(|error| page::internal_error(&error))?;
    let branding = Branding::load(state, row.subscriber_id).await.map_err(|error| page::internal_error(&error))?;
    let link = Link { token: link_token, row, bank, branding };
    let now = UnixSeconds::now();
    // Open until it ends or expires: a new link, or a linked account's update mode.
    if link.row.stage != LinkStage::Done {
        if now < link.row.expires_at {
            return Ok(link);
        }
        return Err(page::render_branded(
            StatusCode::GONE,
            "This link has expired",
            html! {
                div class="outcome-failed" {
                    h1 { "This link has expired" }
                    p { "Bank sign-in links work for a limited time. Go back to the application and start again." }
                    (back(&link, "expired"))
                }
            },
            &link.branding,
        ));
    }
    match accounts::status_of(&link.row, now) {
        AccountStatus::Failed => Err(failed_page(&link, StatusCode::GONE, link.row.failure_reason.as_deref())),
        _ => Err(page::render_branded(
            StatusCode::GONE,
            "This account is already linked",
            html! {
                div class="outcome-ok" {
                    h1 { "This account is already linked" }
                    p { "This link has been used. You can close this window and return to the application." }
                    (back(&link, "linked"))
                }
            },
            &link.branding,
        )),
    }
}

/// Whether the link renews a linked account's consent (update mode) rather than linking a new one.
fn renews(link: &Link) -> bool {
    link.row.status != LinkStatus::Pending
}

/// The link back to the subscriber, when the account was opened with one: `accountId` and
/// `status` (`linked`, `failed`, `expired`).
fn back(link: &Link, status: &str) -> Markup {
    back_with(link, link.row.id, status)
}

/// [`back`] naming `account_id` (the account a re-linked login went to).
fn back_with(link: &Link, account_id: AccountId, status: &str) -> Markup {
    let Some(return_url) = &link.row.return_url else { return html! {} };
    page::return_link(&link.branding, return_url, &[("accountId", &account_id.to_string()), ("status", status)])
}

fn failed_page(link: &Link, status: StatusCode, reason: Option<&str>) -> Response {
    let reason = reason.unwrap_or("the account could not be linked");
    page::render_branded(
        status,
        "Account not linked",
        html! {
            div class="outcome-failed" {
                h1 { "Account not linked" }
                p id="failure-reason" { (link.bank.name) ": " (reason) "." }
                p { "Nothing was shared. You can close this window and return to the application." }
                (back(link, "failed"))
            }
        },
        &link.branding,
    )
}

fn forbidden_form() -> Response {
    page::message(
        StatusCode::FORBIDDEN,
        "This form could not be verified",
        "The form was not sent from the page this link opened, or your browser blocked its cookie. \
         Open the link again in this browser.",
    )
}

fn redirect(to: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(location) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response.headers_mut().insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

fn with_cookie(mut response: Response, state: &AppState, browser: &Browser) -> Response {
    if let Some(cookie) = browser.set_cookie(state.public_url_is_https()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

fn signed_in_here(link: &Link, nonce: Option<&str>) -> bool {
    match (&link.row.browser_hash, nonce) {
        (Some(stored), Some(nonce)) => *stored == link_token::hash(nonce),
        _ => false,
    }
}

/// Where a browser that already signed in for this link goes on to.
fn next_page(link: &Link, nonce: &str) -> Option<String> {
    if !signed_in_here(link, Some(nonce)) {
        return None;
    }
    (link.row.stage == LinkStage::Consent).then(|| format!("{CONSENT_PATH}?link={}", link.token))
}

/// Whether this browser signed in with the password and now owes the one-time code.
fn owes_code(link: &Link, nonce: &str) -> bool {
    link.row.stage == LinkStage::Mfa && signed_in_here(link, Some(nonce))
}

fn code_page(state: &AppState, link: &Link, browser: &Browser, error: Option<&str>, status: StatusCode) -> Response {
    let csrf = token::csrf_token(&state.hosted_key, CODE_PURPOSE, link.row.id, &browser.nonce);
    let action = format!("{LOGIN_PATH}?link={}", link.token);
    let body = html! {
        header class="brand" {
            strong { (link.bank.name) }
            span class="who" { "Online banking" }
        }
        h1 { "Enter your one-time code" }
        p class="muted" { "We sent a six-digit code to the phone on file." }
        @if state.environment() == Environment::Sandbox {
            div class="sandbox" { "Sandbox bank: the code is " code { (credentials::MFA_CODE) } "." }
        }
        @if let Some(error) = error {
            p class="form-error" id="code-error" role="alert" { (error) }
        }
        form method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            label for="code" {
                "Code"
                input type="text" id="code" name="code" value="" inputmode="numeric" autocomplete="one-time-code" maxlength="6";
            }
            button type="submit" id="verify-code" { "Continue" }
        }
    };
    page::render_branded(status, &format!("{} · One-time code", link.bank.name), body, &link.branding)
}

/// The one-time code form, posted to the sign-in address by a browser that owes it.
async fn submit_code(
    state: &AppState,
    link: &Link,
    uri: &Uri,
    fields: &HashMap<String, String>,
    nonce: String,
) -> Response {
    let presented = fields.get("csrf").map_or("", String::as_str);
    if !token::csrf_valid(&state.hosted_key, CODE_PURPOSE, link.row.id, &nonce, presented) {
        return forbidden_form();
    }
    let browser = Browser::known(nonce);
    if fields.get("code").map(|code| code.trim()) == Some(credentials::MFA_CODE) {
        return match bank_link::pass_code(state, link.row.id).await {
            Ok(_) => redirect(&format!("{CONSENT_PATH}?link={}", link.token)),
            Err(error) => page::internal_error(&error),
        };
    }
    let retry = |state: &AppState, link: &Link, message: &str| {
        code_page(state, link, &browser, Some(message), StatusCode::UNAUTHORIZED)
    };
    count_failure(state, link, uri, "The code is not right", retry).await
}

/// `GET /secure/bank/login?link=<token>`
pub async fn show_login(State(state): State<AppState>, headers: HeaderMap, uri: Uri) -> Response {
    let link = match open_link(&state, &uri).await {
        Ok(link) => link,
        Err(page) => return page,
    };
    let browser = Browser::from_headers(&headers);
    if let Some(next) = next_page(&link, &browser.nonce) {
        return redirect(&next);
    }
    if owes_code(&link, &browser.nonce) {
        return code_page(&state, &link, &browser, None, StatusCode::OK);
    }
    with_cookie(login_page(&state, &link, &browser, None, "", StatusCode::OK), &state, &browser)
}

fn login_page(
    state: &AppState,
    link: &Link,
    browser: &Browser,
    error: Option<&str>,
    username: &str,
    status: StatusCode,
) -> Response {
    let csrf = token::csrf_token(&state.hosted_key, LOGIN_PURPOSE, link.row.id, &browser.nonce);
    let action = format!("{LOGIN_PATH}?link={}", link.token);
    let body = html! {
        header class="brand" {
            strong { (link.bank.name) }
            span class="who" { "Online banking" }
        }
        h1 {
            @if renews(link) { "Sign in to renew access to your account" } @else { "Sign in to link your account" }
        }
        p class="muted" {
            @if let Some(name) = &link.branding.display_name {
                span id="subscriber-name" { (name) } " asked, through Subscriber Data, to connect to your account. "
            } @else {
                "Subscriber Data asked to connect to your account. "
            }
            "Your username and password go only to " (link.bank.name) "; Subscriber Data never sees them."
        }
        @if state.environment() == Environment::Sandbox {
            div class="sandbox" {
                "Sandbox bank: sign in with " code { (credentials::GOOD_USER) } " / " code { (credentials::GOOD_PASSWORD) }
                " (or " code { (credentials::GOOD_USER) "_2" } ", another person's login)"
                "; " code { (credentials::MFA_USER) } " also asks for a one-time code; "
                code { (credentials::LOCKED_USER) } " is a locked account."
            }
        }
        @if let Some(error) = error {
            p class="form-error" id="login-error" role="alert" { (error) }
        }
        form method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            label for="username" {
                "Username"
                input type="text" id="username" name="username" value=(username) autocomplete="username" maxlength="64";
            }
            label for="password" {
                "Password"
                input type="password" id="password" name="password" value="" autocomplete="current-password" maxlength="128";
            }
            button type="submit" id="sign-in" { "Sign in" }
        }
    };
    page::render_branded(status, &format!("{} · Sign in", link.bank.name), body, &link.branding)
}

/// `POST /secure/bank/login?link=<token>`
pub async fn submit_login(State(state): State<AppState>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let link = match open_link(&state, &uri).await {
        Ok(link) => link,
        Err(page) => return page,
    };
    let fields = token::form_fields(&body);
    if fields.contains_key("code")
        && let Some(nonce) = Browser::existing(&headers).filter(|nonce| owes_code(&link, nonce))
    {
        return submit_code(&state, &link, &uri, &fields, nonce).await;
    }
    let presented = fields.get("csrf").map_or("", String::as_str);
    let Some(nonce) = Browser::existing(&headers)
        .filter(|nonce| token::csrf_valid(&state.hosted_key, LOGIN_PURPOSE, link.row.id, nonce, presented))
    else {
        return forbidden_form();
    };
    if let Some(next) = next_page(&link, &nonce) {
        // Already signed in here (another tab): straight on.
        return redirect(&next);
    }
    // Otherwise the credentials decide, even after a sign-in elsewhere: signing in again
    // moves the link to this browser.
    let browser = Browser::known(nonce);
    let username = fields.get("username").map_or("", |value| value.trim());
    let password = fields.get("password").map_or("", String::as_str);
    let account_id = link.row.id;

    if username == credentials::LOCKED_USER {
        let reason = "the bank has locked this online banking account";
        return match bank_link::fail(&state, &link.row, reason).await {
            Ok(_) => {
                tracing::info!(account_id = account_id.get(), "bank link failed: locked bank account");
                failed_page(&link, StatusCode::OK, Some(reason))
            }
            Err(error) => page::internal_error(&error),
        };
    }
    let asks_code = credentials::asks_code(username);
    if (credentials::is_good(username) || asks_code) && password == credentials::GOOD_PASSWORD {
        // The code is asked on this same address, after the redirect.
        let (stage, next) = if asks_code { (LinkStage::Mfa, LOGIN_PATH) } else { (LinkStage::Consent, CONSENT_PATH) };
        return match bank_link::sign_in(&state, &link.row, username, &browser.nonce, stage).await {
            Ok(_) => redirect(&format!("{next}?link={}", link.token)),
            Err(error) => page::internal_error(&error),
        };
    }
    let retry = |state: &AppState, link: &Link, message: &str| {
        login_page(state, link, &browser, Some(message), username, StatusCode::UNAUTHORIZED)
    };
    count_failure(&state, &link, &uri, "The username or password is incorrect", retry).await
}

/// Counts a wrong password or code: the page asks again with the attempts left (`retry`),
/// or, at the last one allowed, the link fails.
async fn count_failure(
    state: &AppState,
    link: &Link,
    uri: &Uri,
    what: &str,
    retry: impl FnOnce(&AppState, &Link, &str) -> Response,
) -> Response {
    let account_id = link.row.id;
    let reason = "too many failed sign-in attempts";
    let failures = bank_link::record_login_failure(state, &link.row, reason).await;
    match failures {
        Ok(Some(failures)) if failures >= credentials::MAX_LOGIN_FAILURES => {
            tracing::info!(account_id = account_id.get(), "bank link failed: too many failed sign-ins");
            failed_page(link, StatusCode::OK, Some(reason))
        }
        Ok(Some(failures)) => {
            let left = credentials::MAX_LOGIN_FAILURES - failures;
            let message =
                format!("{what}. Please try again ({left} attempt{} left).", if left == 1 { "" } else { "s" });
            retry(state, link, &message)
        }
        // The link closed meanwhile (expired, or finished in another tab).
        Ok(None) => match open_link(state, uri).await {
            Ok(_) => redirect(&format!("{LOGIN_PATH}?link={}", link.token)),
            Err(page) => page,
        },
        Err(error) => page::internal_error(&error),
    }
}

/// `GET /secure/bank/consent?link=<token>`
pub async fn show_consent(State(state): State<AppState>, headers: HeaderMap, uri: Uri) -> Response {
    let link = match open_link(&state, &uri).await {
        Ok(link) => link,
        Err(page) => return page,
    };
    let nonce = Browser::existing(&headers);
    if link.row.stage != LinkStage::Consent || !signed_in_here(&link, nonce.as_deref()) {
        return redirect(&format!("{LOGIN_PATH}?link={}", link.token));
    }
    let browser = Browser::known(nonce.unwrap_or_default());
    consent_page(&state, &link, &browser, &ALL_PERMISSIONS, None, StatusCode::OK)
}

fn consent_page(
    state: &AppState,
    link: &Link,
    browser: &Browser,
    ticked: &[AccountPermission],
    error: Option<&str>,
    status: StatusCode,
) -> Response {
    let csrf = token::csrf_token(&state.hosted_key, CONSENT_PURPOSE, link.row.id, &browser.nonce);
    let action = format!("{CONSENT_PATH}?link={}", link.token);
    let describe = |permission: AccountPermission| match permission {
        AccountPermission::Balances => "Balances: the available and current balance",
        AccountPermission::Cards => "Cards: the last four digits of the cards on this account",
        AccountPermission::Transactions => "Transactions: the last 90 days of account activity",
    };
    let body = html! {
        header class="brand" {
            strong { (link.bank.name) }
            span class="who" { "Signed in" }
        }
        h1 {
            @if let Some(name) = &link.branding.display_name {
                "Share your account with " (name) " through Subscriber Data?"
            } @else {
                "Share your account with Subscriber Data?"
            }
        }
        p class="muted" { "Choose what Subscriber Data may read. You can share less; it will see nothing else." }
        @if let Some(error) = error {
            p class="form-error" id="consent-error" role="alert" { (error) }
        }
        form method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            fieldset {
                legend { "Permissions" }
                @for permission in ALL_PERMISSIONS {
                    label {
                        input type="checkbox" name=(permission_name(permission)) id=(format!("permission-{}", permission_name(permission)))
                            value="on" checked[ticked.contains(&permission)];
                        (describe(permission))
                    }
                }
            }
            div class="actions" {
                button type="submit" name="decision" value="allow" id="allow" { "Allow" }
                button type="submit" name="decision" value="cancel" id="cancel" class="secondary" { "Cancel" }
            }
        }
    };
    page::render_branded(status, &format!("{} · Consent", link.bank.name), body, &link.branding)
}

/// `POST /secure/bank/consent?link=<token>`
pub async fn submit_consent(State(state): State<AppState>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let link = match open_link(&state, &uri).await {
        Ok(link) => link,
        Err(page) => return page,
    };
    let fields = token::form_fields(&body);
    let presented = fields.get("csrf").map_or("", String::as_str);
    let Some(nonce) = Browser::existing(&headers)
        .filter(|nonce| token::csrf_valid(&state.hosted_key, CONSENT_PURPOSE, link.row.id, nonce, presented))
    else {
        return forbidden_form();
    };
    if link.row.stage != LinkStage::Consent || !signed_in_here(&link, Some(&nonce)) {
        return redirect(&format!("{LOGIN_PATH}?link={}", link.token));
    }
    let browser = Browser::known(nonce);
    let account_id = link.row.id;
    if fields.get("decision").map(String::as_str) == Some("cancel") {
        let reason = "the account holder declined to share the account";
        return match bank_link::fail(&state, &link.row, reason).await {
            Ok(_) => {
                tracing::info!(account_id = account_id.get(), "bank link declined");
                failed_page(&link, StatusCode::OK, Some(reason))
            }
            Err(error) => page::internal_error(&error),
        };
    }
    let granted: Vec<AccountPermission> =
        ALL_PERMISSIONS.into_iter().filter(|permission| fields.contains_key(permission_name(*permission))).collect();
    if granted.is_empty() {
        return consent_page(
            &state,
            &link,
            &browser,
            &[],
            Some("Choose at least one thing to share, or cancel."),
            StatusCode::BAD_REQUEST,
        );
    }
    let linked = bank_link::link(&state, &link.row, &granted).await;
    match linked {
        Ok(Some(linked_id)) => {
            if linked_id == account_id {
                tracing::info!(account_id = account_id.get(), "bank account linked");
            } else {
                tracing::info!(
                    account_id = account_id.get(),
                    linked_id = linked_id.get(),
                    "the same bank login re-linked its account"
                );
            }
            let names: Vec<&str> = granted.iter().map(|permission| permission_name(*permission)).collect();
            page::render_branded(
                StatusCode::OK,
                "Account linked",
                html! {
                    div class="outcome-ok" {
                        h1 { @if renews(&link) { "Access renewed" } @else { "Account linked" } }
                        p { "Your " (link.bank.name) " account is linked to Subscriber Data." }
                        p id="granted" { "Shared: " (names.join(", ")) "." }
                        @if link.row.return_url.is_some() {
                            (back_with(&link, linked_id, "linked"))
                        } @else {
                            p { "You can close this window and return to the application." }
                            (page::return_to_app(&format!("account/{linked_id}")))
                        }
                    }
                },
                &link.branding,
            )
        }
        Ok(None) => page::message(
            StatusCode::GONE,
            "This link has expired",
            "The link closed before the account was linked. Go back to the application and start again.",
        ),
        Err(error) => page::internal_error(&error),
    }
}
