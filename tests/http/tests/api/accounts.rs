//! Bank account linking: the bank list, `POST /account`, the sandbox bank's sign-in and
//! consent pages driven as raw HTTP, statuses, permissions and scoping.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{
    BlockingBrowser, Subscriber, TestServer, assert_error, assert_nowhere_stored, assert_secure_page_headers,
    return_link, send,
};

/// Starts a link at `bank`; returns (accountId, url).
pub fn start_link(server: &TestServer, subscriber: &Subscriber, bank: &str) -> (i64, String) {
    let (status, body) = send(subscriber.auth(server.post("/account", &json!({ "bank": bank }))));
    assert_eq!(status, 201, "{body}");
    (body["accountId"].as_i64().expect("accountId"), body["url"].as_str().expect("url").to_owned())
}

fn account(server: &TestServer, subscriber: &Subscriber, account_id: i64) -> Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/account/{account_id}"))));
    assert_eq!(status, 200, "{body}");
    body
}

/// Signs in with `username`/`password`; returns the page answered.
pub fn sign_in(browser: &mut BlockingBrowser, url: &str, username: &str, password: &str) -> crate::helpers::Page {
    let csrf = browser.get(url).csrf();
    browser.post_form(url, &[("csrf", &csrf), ("username", username), ("password", password)])
}

/// Signs in as the good user and consents to `permissions`; returns the final page.
pub fn link_with(server: &TestServer, url: &str, permissions: &[&str]) -> crate::helpers::Page {
    let mut browser = BlockingBrowser::new();
    let signed_in = sign_in(&mut browser, url, "user_good", "pass_good");
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let consent_url = server.url(signed_in.location());
    let consent = browser.get(&consent_url);
    assert_eq!(consent.status, 200, "{}", consent.body);
    let csrf = consent.csrf();
    let mut fields = vec![("csrf", csrf.as_str()), ("decision", "allow")];
    fields.extend(permissions.iter().map(|permission| (*permission, "on")));
    browser.post_form(&consent_url, &fields)
}

#[test]
fn banks_are_listed_and_named_by_id_or_name_in_any_case() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.get("/banks")));
    assert_eq!(status, 200, "{body}");
    let banks = body["banks"].as_array().expect("banks");
    assert!(banks.len() >= 5, "{body}");
    for bank in banks {
        assert!(bank["id"].as_str().is_some_and(|id| !id.is_empty()) && bank["name"].as_str().is_some(), "{bank}");
    }
    let (first_id, first_name) = (banks[0]["id"].as_str().expect("id"), banks[0]["name"].as_str().expect("name"));

    for named in [first_id.to_uppercase(), first_name.to_lowercase()] {
        let (status, body) = send(subscriber.auth(server.post("/account", &json!({ "bank": named }))));
        assert_eq!(status, 201, "{named}: {body}");
        assert!(body["error"].is_null());
        assert_eq!(body["status"], "pending");
        assert!(body["accountId"].as_i64().is_some());
        let url = body["url"].as_str().expect("url");
        assert!(url.starts_with(&format!("{}/secure/bank/login?link=", server.base_url)), "{url}");
        let expires_at =
            chrono::DateTime::parse_from_rfc3339(body["expiresAt"].as_str().expect("expiresAt")).expect("RFC 3339");
        assert!(expires_at.timestamp() > chrono::Utc::now().timestamp() + 14 * 60);
        let shown = account(&server, &subscriber, body["accountId"].as_i64().expect("id"));
        assert_eq!(shown["bank"]["id"], first_id);
        assert_eq!(shown["status"], "pending");
        assert_eq!(shown["permissions"], json!([]));
        assert!(shown["linkedAt"].is_null());
    }

    let (status, body) = send(subscriber.auth(server.post("/account", &json!({ "bank": "Bank of Nowhere" }))));
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(body["details"][0]["field"], "bank");
    let (status, body) = send(subscriber.auth(server.post("/account", &json!({}))));
    assert_error(status, &body, 400, "invalid_request");
    let (status, body) = send(server.get("/banks"));
    assert_error(status, &body, 401, "unauthorized");

    let (status, list) = send(subscriber.auth(server.get("/account")));
    assert_eq!(status, 200);
    assert_eq!(list["accounts"].as_array().map(Vec::len), Some(2), "{list}");
}

#[test]
fn a_person_signs_in_and_shares_only_what_they_tick() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "northwind");
    let mut browser = BlockingBrowser::new();
    let login = browser.get(&url);
    assert_eq!(login.status, 200);
    assert_secure_page_headers(&login);
    assert!(login.body.contains("Northwind Bank") && login.body.contains("type=\"password\""));

    let signed_in =
        browser.post_form(&url, &[("csrf", &login.csrf()), ("username", "user_good"), ("password", "pass_good")]);
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert!(signed_in.location().starts_with("/secure/bank/consent?link="));
    let consent_url = server.url(signed_in.location());
    let consent = browser.get(&consent_url);
    assert_eq!(consent.status, 200);
    assert_secure_page_headers(&consent);
    for permission in ["balances", "cards", "transactions"] {
        assert!(consent.body.contains(&format!("name=\"{permission}\"")), "{permission} offered");
    }
    let pending = account(&server, &subscriber, account_id);
    assert_eq!(pending["status"], "pending", "not linked before consent");
    for field in ["name", "type", "mask"] {
        assert!(pending.get(field).is_none(), "the bank names the account once linked, not before: {pending}");
    }

    let done = browser.post_form(
        &consent_url,
        &[("csrf", &consent.csrf()), ("decision", "allow"), ("balances", "on"), ("transactions", "on")],
    );
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Account linked"));

    let linked = account(&server, &subscriber, account_id);
    assert_eq!(linked["status"], "linked");
    assert_eq!(linked["permissions"], json!(["balances", "transactions"]));
    assert!(linked["linkedAt"].as_str().is_some());
    // Named as the bank names it, with only the last four digits of its number.
    assert!(linked["name"].as_str().is_some_and(|name| name.ends_with("Checking")), "{linked}");
    assert_eq!(linked["type"], "checking");
    assert!(
        linked["mask"].as_str().is_some_and(|mask| mask.len() == 4 && mask.bytes().all(|b| b.is_ascii_digit())),
        "{linked}"
    );
    assert!(linked["balance"]["available"].as_f64().is_some(), "{linked}");
    assert!(linked.get("cards").is_none(), "cards were not shared: {linked}");
    assert_eq!(account(&server, &subscriber, account_id), linked, "the bank's data is the same on every read");

    let (status, page) = send(subscriber.auth(server.get(&format!("/account/{account_id}/transactions?limit=5"))));
    assert_eq!(status, 200, "{page}");
    let items = page["transactions"].as_array().expect("transactions");
    assert_eq!(items.len(), 5);
    for item in items {
        for field in ["transactionId", "createdAt", "pending", "amount", "currency", "description"] {
            assert!(item.get(field).is_some(), "{field} in {item}");
        }
    }
    let cursor = page["next_cursor"].as_str().expect("more pages");
    let (status, next) =
        send(subscriber.auth(server.get(&format!("/account/{account_id}/transactions?limit=5&cursor={cursor}"))));
    assert_eq!(status, 200, "{next}");
    let first_time = |page: &Value, index: usize| page["transactions"][index]["createdAt"].as_str().map(str::to_owned);
    assert!(first_time(&page, 4) >= first_time(&next, 0), "newest first across pages");
    assert_ne!(page["transactions"][0]["transactionId"], next["transactions"][0]["transactionId"]);

    // The link has done its work.
    assert_eq!(browser.get(&url).status, 410);
    assert_eq!(browser.get(&consent_url).status, 410);
    assert_nowhere_stored(&server, "pass_good");
}

#[test]
fn transactions_need_the_transactions_permission_of_a_linked_account() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (pending_id, _) = start_link(&server, &subscriber, "bluebird");
    let (status, body) = send(subscriber.auth(server.get(&format!("/account/{pending_id}/transactions"))));
    assert_error(status, &body, 403, "forbidden");

    let (account_id, url) = start_link(&server, &subscriber, "bluebird");
    let done = link_with(&server, &url, &["cards"]);
    assert_eq!(done.status, 200, "{}", done.body);
    let linked = account(&server, &subscriber, account_id);
    assert_eq!(linked["permissions"], json!(["cards"]));
    assert!(linked["cards"].as_array().is_some_and(|cards| !cards.is_empty()), "{linked}");
    assert!(linked.get("balance").is_none());
    let (status, body) = send(subscriber.auth(server.get(&format!("/account/{account_id}/transactions"))));
    assert_error(status, &body, 403, "forbidden");
    assert!(body["error"].as_str().is_some_and(|message| message.contains("transactions permission")), "{body}");
}

#[test]
fn consenting_to_nothing_asks_again_and_cancelling_fails_the_link() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "cedar-trust");
    let none = link_with(&server, &url, &[]);
    assert_eq!(none.status, 400);
    assert!(none.body.contains("at least one"), "{}", none.body);
    assert_eq!(account(&server, &subscriber, account_id)["status"], "pending");

    let mut browser = BlockingBrowser::new();
    let signed_in = sign_in(&mut browser, &url, "user_good", "pass_good");
    let consent_url = server.url(signed_in.location());
    let csrf = browser.get(&consent_url).csrf();
    let cancelled = browser.post_form(&consent_url, &[("csrf", &csrf), ("decision", "cancel"), ("balances", "on")]);
    assert_eq!(cancelled.status, 200);
    assert!(cancelled.body.contains("not linked"));
    let failed = account(&server, &subscriber, account_id);
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["permissions"], json!([]));
    assert!(failed["failureReason"].as_str().is_some_and(|reason| reason.contains("declined")), "{failed}");
}

#[test]
fn wrong_passwords_ask_again_then_fail_the_link() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "harbor-cu");
    let mut browser = BlockingBrowser::new();
    let first = sign_in(&mut browser, &url, "user_good", "Wr0ng-Passw0rd-1");
    assert_eq!(first.status, 401);
    assert!(first.body.contains("incorrect") && first.body.contains("2 attempts left"), "{}", first.body);
    assert!(!first.body.contains("Wr0ng-Passw0rd-1"), "the password is not written back");
    assert_eq!(account(&server, &subscriber, account_id)["status"], "pending");
    let second = sign_in(&mut browser, &url, "someone_else", "Wr0ng-Passw0rd-2");
    assert_eq!(second.status, 401);
    let third = sign_in(&mut browser, &url, "user_good", "Wr0ng-Passw0rd-3");
    assert_eq!(third.status, 200);
    assert!(third.body.contains("too many failed sign-in attempts"), "{}", third.body);
    let failed = account(&server, &subscriber, account_id);
    assert_eq!(failed["status"], "failed");
    assert_eq!(browser.get(&url).status, 410);
    for password in ["Wr0ng-Passw0rd-1", "Wr0ng-Passw0rd-2", "Wr0ng-Passw0rd-3"] {
        assert_nowhere_stored(&server, password);
    }
}

#[test]
fn a_locked_bank_user_fails_the_link_at_once() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "first-meridian");
    let mut browser = BlockingBrowser::new();
    let page = sign_in(&mut browser, &url, "user_locked", "pass_good");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("locked"), "{}", page.body);
    let failed = account(&server, &subscriber, account_id);
    assert_eq!(failed["status"], "failed");
    assert!(failed["failureReason"].as_str().is_some_and(|reason| reason.contains("locked")));
}

#[test]
fn consent_belongs_to_the_browser_that_signed_in_and_forms_need_their_token() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "northwind");
    let mut browser = BlockingBrowser::new();
    let login = browser.get(&url);
    let no_token = browser.post_form(&url, &[("username", "user_good"), ("password", "pass_good")]);
    assert_eq!(no_token.status, 403);
    let mut elsewhere = BlockingBrowser::new();
    let cross_site =
        elsewhere.post_form(&url, &[("csrf", &login.csrf()), ("username", "user_good"), ("password", "pass_good")]);
    assert_eq!(cross_site.status, 403, "a token without its browser's cookie is refused");

    let signed_in =
        browser.post_form(&url, &[("csrf", &login.csrf()), ("username", "user_good"), ("password", "pass_good")]);
    let consent_url = server.url(signed_in.location());
    // Someone else who has only the link is sent to sign in, and cannot consent.
    let mut intruder = BlockingBrowser::new();
    let redirected = intruder.get(&consent_url);
    assert_eq!(redirected.status, 303);
    assert!(redirected.location().starts_with("/secure/bank/login"));
    let intruder_csrf = intruder.get(&url).csrf();
    let refused =
        intruder.post_form(&consent_url, &[("csrf", &intruder_csrf), ("decision", "allow"), ("balances", "on")]);
    assert_ne!(refused.status, 200);
    assert_eq!(account(&server, &subscriber, account_id)["status"], "pending");
}

#[test]
fn an_unused_link_expires() {
    let server = TestServer::spawn_with(&["--hosted-session-seconds", "1"]);
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "northwind");
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(account(&server, &subscriber, account_id)["status"], "expired");
    let mut browser = BlockingBrowser::new();
    let page = browser.get(&url);
    assert_eq!(page.status, 410);
    assert!(page.body.contains("expired"));
    let (status, body) = send(subscriber.auth(server.get(&format!("/account/{account_id}/transactions"))));
    assert_error(status, &body, 403, "forbidden");
}

#[test]
fn accounts_are_scoped_to_their_subscriber_and_creation_is_idempotent() {
    let server = TestServer::spawn();
    let owner = server.subscriber();
    let stranger = server.subscriber();
    let (account_id, url) = start_link(&server, &owner, "northwind");
    link_with(&server, &url, &["balances", "cards", "transactions"]);
    for path in [format!("/account/{account_id}"), format!("/account/{account_id}/transactions")] {
        let (status, body) = send(stranger.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
    }
    let (_, list) = send(stranger.auth(server.get("/account")));
    assert_eq!(list["accounts"], json!([]));

    let request =
        || owner.auth(server.post("/account", &json!({ "bank": "bluebird" }))).header("Idempotency-Key", "k-1");
    let (status, first) = send(request());
    assert_eq!(status, 201);
    let (status, again) = send(request());
    assert_eq!(status, 201);
    assert_eq!(first, again);
    let other_body =
        owner.auth(server.post("/account", &json!({ "bank": "northwind" }))).header("Idempotency-Key", "k-1");
    let (status, body) = send(other_body);
    assert_error(status, &body, 409, "conflict");
}

#[test]
fn the_mfa_user_is_asked_for_a_one_time_code_before_consent() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "thames-mutual");
    let mut browser = BlockingBrowser::new();
    let signed_in = sign_in(&mut browser, &url, "user_mfa", "pass_good");
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert_eq!(server.url(signed_in.location()), url, "the code is asked on the sign-in address");
    let code_url = url.clone();
    let page = browser.get(&code_url);
    assert_eq!(page.status, 200);
    assert_secure_page_headers(&page);
    assert!(page.body.contains("name=\"code\""), "{}", page.body);
    // Consent is not reachable before the code, nor the code from another browser.
    let consent_url = code_url.replace("/secure/bank/login", "/secure/bank/consent");
    assert_eq!(browser.get(&consent_url).status, 303);
    let mut elsewhere = BlockingBrowser::new();
    assert!(!elsewhere.get(&code_url).body.contains("name=\"code\""), "another browser sees the sign-in form");

    let wrong = browser.post_form(&code_url, &[("csrf", &page.csrf()), ("code", "000000")]);
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("code is not right") && wrong.body.contains("2 attempts left"), "{}", wrong.body);
    let right = browser.post_form(&code_url, &[("csrf", &wrong.csrf()), ("code", "123456")]);
    assert_eq!(right.status, 303);
    assert_eq!(server.url(right.location()), consent_url);
    let consent = browser.get(&consent_url);
    assert_eq!(consent.status, 200);
    let done = browser.post_form(&consent_url, &[("csrf", &consent.csrf()), ("decision", "allow"), ("balances", "on")]);
    assert_eq!(done.status, 200, "{}", done.body);
    let linked = account(&server, &subscriber, account_id);
    assert_eq!(linked["status"], "linked");
    assert_eq!(linked["balance"]["currency"], "GBP");
}

#[test]
fn a_bank_link_takes_only_a_registered_return_url_and_links_back_with_its_outcome() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.http.patch(server.url("/subscriber")).json(&json!({
        "displayName": "Acme <Bank> Friends", "returnUrls": ["https://app.example.com/"]
    }))));
    assert_eq!(status, 200, "{body}");
    let (_, banks) = send(subscriber.auth(server.get("/banks")));
    let bank = banks["banks"][0]["id"].as_str().expect("a bank").to_owned();
    let enroll = |return_url: &str| {
        send(subscriber.auth(server.post("/account", &json!({ "bank": bank, "returnUrl": return_url }))))
    };
    for refused in [
        "https://app.example.com.evil.org/",
        "https://app.example.com@evil.org/",
        "http://app.example.com/",
        "javascript:alert(1)",
        "data:text/html,hi",
        "//evil.org",
    ] {
        let (status, body) = enroll(refused);
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(body["details"][0]["field"], "returnUrl", "{refused}: {body}");
    }
    let (_, accounts) = send(subscriber.auth(server.get("/account")));
    assert_eq!(accounts["accounts"], json!([]), "a refused request opened nothing");

    let (status, body) = enroll("https://app.example.com/banks?from=sd");
    assert_eq!(status, 201, "{body}");
    let (account_id, url) = (body["accountId"].as_i64().expect("accountId"), body["url"].as_str().expect("url"));
    let mut browser = BlockingBrowser::new();
    let login = browser.get(url);
    assert!(login.body.contains("Acme &lt;Bank&gt; Friends") && !login.body.contains("<Bank>"), "{}", login.body);
    let linked = link_with(&server, url, &["balances"]);
    assert_eq!(linked.status, 200, "{}", linked.body);
    assert_eq!(
        return_link(&linked.body),
        Some(format!("https://app.example.com/banks?from=sd&accountId={account_id}&status=linked"))
    );

    // A failed link goes back too, in the sandbox to this machine as well.
    let (status, body) = enroll("http://127.0.0.1:8000/cb");
    assert_eq!(status, 201, "{body}");
    let (account_id, url) = (body["accountId"].as_i64().expect("accountId"), body["url"].as_str().expect("url"));
    let mut browser = BlockingBrowser::new();
    let failed = sign_in(&mut browser, url, "user_locked", "pass_good");
    assert_eq!(failed.status, 200, "{}", failed.body);
    assert_eq!(
        return_link(&failed.body),
        Some(format!("http://127.0.0.1:8000/cb?accountId={account_id}&status=failed"))
    );
}

/// Signs in as `username` and consents to everything; returns the final page.
fn link_as(server: &TestServer, url: &str, username: &str) -> crate::helpers::Page {
    let mut browser = BlockingBrowser::new();
    let signed_in = sign_in(&mut browser, url, username, "pass_good");
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let consent_url = server.url(signed_in.location());
    let consent = browser.get(&consent_url);
    assert_eq!(consent.status, 200, "{}", consent.body);
    let fields = [
        ("csrf", consent.csrf()),
        ("decision", "allow".to_owned()),
        ("balances", "on".to_owned()),
        ("transactions", "on".to_owned()),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(name, value)| (*name, value.as_str())).collect();
    browser.post_form(&consent_url, &fields)
}

fn advance(server: &TestServer, subscriber: &Subscriber, days: i64) {
    let (status, body) =
        send(subscriber.auth(server.post("/sandbox/clock/advance", &json!({ "seconds": days * 86_400 }))));
    assert_eq!(status, 200, "{body}");
}

fn events_of(server: &TestServer, subscriber: &Subscriber, event_type: &str) -> Vec<Value> {
    let (status, page) = send(subscriber.auth(server.get(&format!("/events?type={event_type}"))));
    assert_eq!(status, 200, "{page}");
    page["events"].as_array().cloned().unwrap_or_default()
}

fn time_of(value: &Value) -> chrono::DateTime<chrono::FixedOffset> {
    chrono::DateTime::parse_from_rfc3339(value.as_str().unwrap_or_default()).expect("an RFC 3339 time")
}

#[test]
fn consent_runs_out_on_the_sandbox_clock_and_the_person_renews_it_on_the_same_account() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "northwind");
    assert!(account(&server, &subscriber, account_id)["consentExpiresAt"].is_null(), "no consent before linking");
    let (status, body) = send(subscriber.auth(server.post(&format!("/account/{account_id}/reauth"), &json!({}))));
    assert_error(status, &body, 409, "conflict");
    assert_eq!(link_as(&server, &url, "user_good").status, 200);
    let linked = account(&server, &subscriber, account_id);
    assert_eq!(linked["status"], "linked", "{linked}");
    let first_consent = time_of(&linked["consentExpiresAt"]);
    let days = (first_consent.timestamp() - chrono::Utc::now().timestamp()) / 86_400;
    assert!((89..=90).contains(&days), "90 days of consent: {linked}");

    // Seven days before the end the subscriber hears of it, once.
    advance(&server, &subscriber, 82);
    assert!(events_of(&server, &subscriber, "account.consent_expiring").is_empty(), "not yet at 8 days left");
    advance(&server, &subscriber, 2);
    let expiring = events_of(&server, &subscriber, "account.consent_expiring");
    assert_eq!(expiring.len(), 1, "{expiring:?}");
    assert_eq!(expiring[0]["data"]["accountId"], account_id);
    assert!(expiring[0]["data"]["consentExpiresAt"].is_string(), "{}", expiring[0]);
    advance(&server, &subscriber, 1);
    assert_eq!(events_of(&server, &subscriber, "account.consent_expiring").len(), 1, "once per consent");
    assert_eq!(account(&server, &subscriber, account_id)["status"], "linked", "still linked before the end");

    // Past the end: re-authentication required, and the data is not read.
    advance(&server, &subscriber, 6);
    let lapsed = account(&server, &subscriber, account_id);
    assert_eq!(lapsed["status"], "reauth_required", "{lapsed}");
    assert!(lapsed["balance"].is_null(), "{lapsed}");
    for path in ["transactions", "recurring"] {
        let (status, body) = send(subscriber.auth(server.get(&format!("/account/{account_id}/{path}"))));
        assert_error(status, &body, 409, "reauth_required");
    }
    let (status, body) = send(subscriber.auth(server.post(&format!("/account/{account_id}/refresh"), &json!({}))));
    assert_error(status, &body, 409, "reauth_required");

    // Another subscriber cannot renew it.
    let stranger = server.subscriber();
    let (status, body) = send(stranger.auth(server.post(&format!("/account/{account_id}/reauth"), &json!({}))));
    assert_error(status, &body, 404, "not_found");

    // Update mode: the bank's pages again, the same account.
    let (status, reauth) = send(subscriber.auth(server.post(&format!("/account/{account_id}/reauth"), &json!({}))));
    assert_eq!(status, 200, "{reauth}");
    assert_eq!(reauth["accountId"], account_id);
    let renew_url = reauth["url"].as_str().expect("url").to_owned();
    assert_ne!(renew_url, url);
    let mut browser = BlockingBrowser::new();
    let old = browser.get(&url);
    assert_eq!(old.status, 404, "the first link no longer opens: {}", old.body);
    let login = browser.get(&renew_url);
    assert!(login.body.contains("renew access"), "{}", login.body);
    assert_eq!(account(&server, &subscriber, account_id)["status"], "reauth_required", "until the person consents");
    let renewed = link_as(&server, &renew_url, "user_good");
    assert_eq!(renewed.status, 200, "{}", renewed.body);
    assert!(renewed.body.contains("Access renewed"), "{}", renewed.body);
    let again = account(&server, &subscriber, account_id);
    assert_eq!(again["status"], "linked", "{again}");
    assert!(time_of(&again["consentExpiresAt"]) > time_of(&lapsed["consentExpiresAt"]), "{again} {lapsed}");
    assert!(time_of(&again["consentExpiresAt"]).timestamp() >= first_consent.timestamp(), "{again}");
    assert_eq!(again["linkedAt"], lapsed["linkedAt"], "first linked then (on the sandbox clock)");
    let (status, body) = send(subscriber.auth(server.get(&format!("/account/{account_id}/transactions"))));
    assert_eq!(status, 200, "{body}");
    let (_, list) = send(subscriber.auth(server.get("/account")));
    assert_eq!(list["accounts"].as_array().map(Vec::len), Some(1), "{list}");
    let linked_events = events_of(&server, &subscriber, "account.linked");
    assert_eq!(linked_events.len(), 2, "{linked_events:?}");
    assert!(linked_events.iter().all(|event| event["data"]["accountId"] == account_id));
    // A used update link is done with.
    let used = BlockingBrowser::new().get(&renew_url);
    assert_eq!(used.status, 410, "{}", used.body);
}

#[test]
fn the_same_bank_login_linked_again_relinks_its_account_and_another_login_adds_one() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (first_id, url) = start_link(&server, &subscriber, "northwind");
    assert_eq!(link_as(&server, &url, "user_good").status, 200);
    let (second_id, url) = start_link(&server, &subscriber, "Northwind Bank");
    let page = link_as(&server, &url, "user_good");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(&format!("account/{first_id}")), "the page names the account re-linked");
    // One account: the second link reads as the first.
    let (_, list) = send(subscriber.auth(server.get("/account")));
    let ids: Vec<i64> =
        list["accounts"].as_array().expect("accounts").iter().filter_map(|a| a["accountId"].as_i64()).collect();
    assert_eq!(ids, [first_id], "{list}");
    let second = account(&server, &subscriber, second_id);
    assert_eq!((second["accountId"].as_i64(), &second["status"]), (Some(first_id), &json!("linked")), "{second}");
    let linked = events_of(&server, &subscriber, "account.linked");
    assert_eq!(linked.len(), 2, "{linked:?}");
    assert!(linked.iter().all(|event| event["data"]["accountId"] == first_id), "{linked:?}");

    // Another person's login at the same bank, or the same login at another bank, is another account.
    let (other_person, url) = start_link(&server, &subscriber, "northwind");
    assert_eq!(link_as(&server, &url, "user_good_2").status, 200);
    let (other_bank, url) = start_link(&server, &subscriber, "harbor-cu");
    assert_eq!(link_as(&server, &url, "user_good").status, 200);
    let (_, list) = send(subscriber.auth(server.get("/account")));
    let ids: Vec<i64> =
        list["accounts"].as_array().expect("accounts").iter().filter_map(|a| a["accountId"].as_i64()).collect();
    assert_eq!(ids, [other_bank, other_person, first_id], "{list}");
    // Another subscriber's link with the same login is theirs alone.
    let stranger = server.subscriber();
    let (theirs, url) = start_link(&server, &stranger, "northwind");
    assert_eq!(link_as(&server, &url, "user_good").status, 200);
    assert_eq!(account(&server, &stranger, theirs)["accountId"], theirs);
}

#[test]
fn a_refresh_fetches_what_is_new_and_says_so() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (account_id, url) = start_link(&server, &subscriber, "bluebird");
    let (status, body) = send(subscriber.auth(server.post(&format!("/account/{account_id}/refresh"), &json!({}))));
    assert_error(status, &body, 409, "conflict");
    assert_eq!(link_as(&server, &url, "user_good").status, 200);
    assert!(account(&server, &subscriber, account_id)["refreshedAt"].is_null());
    let count = |server: &TestServer| {
        let (status, body) =
            send(subscriber.auth(server.get(&format!("/account/{account_id}/transactions?limit=500"))));
        assert_eq!(status, 200, "{body}");
        body["transactions"].as_array().map_or(0, Vec::len)
    };
    let before = count(&server);
    advance(&server, &subscriber, 10);
    let (status, refreshed) = send(subscriber.auth(server.post(&format!("/account/{account_id}/refresh"), &json!({}))));
    assert_eq!(status, 200, "{refreshed}");
    assert_eq!(refreshed["accountId"], account_id);
    assert!(refreshed["refreshedAt"].is_string(), "{refreshed}");
    let after = count(&server);
    assert!(after > before, "ten days on, the refresh brings what is new: {before} then {after}");
    let events = events_of(&server, &subscriber, "account.refreshed");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["data"]["accountId"], account_id);
    let (status, body) = send(subscriber.auth(server.post("/account/999999/refresh", &json!({}))));
    assert_error(status, &body, 404, "not_found");
}
