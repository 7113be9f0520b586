//! The hosted card-entry page, driven as raw HTTP: the one-time link, its headers, CSRF,
//! inline errors, reuse, expiry, and where the card number must never end up.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{
    BlockingBrowser, Subscriber, TestServer, assert_error, assert_nowhere_stored, assert_secure_page_headers,
    return_link, send,
};

/// Opens a session and returns (sessionId, url).
fn open_session(server: &TestServer, subscriber: &Subscriber) -> (i64, String) {
    let (status, body) = send(subscriber.auth(server.post("/card/session", &json!({}))));
    assert_eq!(status, 201, "{body}");
    (body["sessionId"].as_i64().expect("sessionId"), body["url"].as_str().expect("url").to_owned())
}

fn card_fields<'a>(csrf: &'a str, pan: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("csrf", csrf),
        ("pan", pan),
        ("firstName", "Grace"),
        ("lastName", "Hopper"),
        ("expMonth", "11"),
        ("expYear", "2031"),
        ("countryCode", "USA"),
    ]
}

fn session_status(server: &TestServer, subscriber: &Subscriber, session_id: i64) -> serde_json::Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/card/session/{session_id}"))));
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn a_session_is_a_one_time_link_of_this_service_valid_fifteen_minutes() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/card/session", &json!({}))));
    assert_eq!(status, 201, "{body}");
    assert!(body["error"].is_null());
    assert_eq!(body["status"], "pending");
    let url = body["url"].as_str().expect("url");
    let prefix = format!("{}/secure/card?session=", server.base_url);
    assert!(url.starts_with(&prefix), "{url}");
    assert!(url.len() - prefix.len() >= 32, "the token is long enough not to be guessed: {url}");
    let expires_at =
        chrono::DateTime::parse_from_rfc3339(body["expiresAt"].as_str().expect("expiresAt")).expect("RFC 3339");
    let minutes = (expires_at.timestamp() - chrono::Utc::now().timestamp()) as f64 / 60.0;
    assert!((14.5..=15.1).contains(&minutes), "{minutes} minutes");

    let session_id = body["sessionId"].as_i64().expect("sessionId");
    let polled = session_status(&server, &subscriber, session_id);
    assert_eq!(polled["status"], "pending");
    assert!(polled["cardId"].is_null());
    assert_eq!(polled["sessionId"], session_id);

    let (_, second) = open_session(&server, &subscriber);
    assert_ne!(second, url, "every session has its own link");
    let (status, body) = send(server.post("/card/session", &json!({})));
    assert_error(status, &body, 401, "unauthorized");
}

#[test]
fn the_page_is_locked_down_and_asks_for_the_card() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (_, url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let page = browser.get(&url);
    assert_eq!(page.status, 200, "{}", page.body);
    assert_secure_page_headers(&page);
    for field in [
        "name=\"pan\"",
        "name=\"firstName\"",
        "name=\"lastName\"",
        "name=\"expMonth\"",
        "name=\"expYear\"",
        "name=\"countryCode\"",
    ] {
        assert!(page.body.contains(field), "the form has {field}");
    }
    let cookie = page.header("set-cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");

    let stylesheet = browser.get(&server.url("/secure/assets/hosted.css"));
    assert_eq!(stylesheet.status, 200);
    assert!(stylesheet.header("content-type").starts_with("text/css"));

    let token = url.split("session=").nth(1).expect("token");
    assert!(!server.log().contains(token), "the link's token is never logged");
}

#[test]
fn a_test_card_typed_on_the_page_is_enrolled_once_and_the_link_dies() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (session_id, url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let csrf = browser.get(&url).csrf();

    let done = browser.post_form(&url, &card_fields(&csrf, "5555 5555 5555 4444"));
    assert_eq!(done.status, 200, "{}", done.body);
    assert_secure_page_headers(&done);
    assert!(done.body.contains("Card enrolled") && done.body.contains("4444"), "{}", done.body);
    assert!(!done.body.contains("5555 5555 5555 4444") && !done.body.contains("5555555555554444"));

    let polled = session_status(&server, &subscriber, session_id);
    assert_eq!(polled["status"], "completed");
    let card_id = polled["cardId"].as_i64().expect("cardId once completed");
    let (status, card) = send(subscriber.auth(server.get(&format!("/card/{card_id}"))));
    assert_eq!(status, 200, "{card}");
    assert_eq!(card["lastFour"], 4444);
    assert_eq!(card["firstName"], "Grace");
    assert_eq!(card["expYear"], 2031);

    // The same submission again, and the link opened again: both refused, nothing new.
    let replay = browser.post_form(&url, &card_fields(&csrf, "4242424242424242"));
    assert_eq!(replay.status, 410, "{}", replay.body);
    assert!(replay.body.contains("already been used"));
    assert_eq!(browser.get(&url).status, 410);
    let (_, cards) = send(subscriber.auth(server.get("/card")));
    assert_eq!(cards["cards"].as_array().map(Vec::len), Some(1), "{cards}");

    assert_nowhere_stored(&server, "5555555555554444");
    assert_nowhere_stored(&server, "5555 5555 5555 4444");
    assert_nowhere_stored(&server, url.split("session=").nth(1).expect("token"));
}

#[test]
fn forms_without_the_right_csrf_token_and_cookie_are_refused() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (session_id, url) = open_session(&server, &subscriber);
    let (_, other_url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let csrf = browser.get(&url).csrf();
    let other_csrf = browser.get(&other_url).csrf();

    let missing = browser.post_form(&url, &card_fields("", "4242424242424242"));
    assert_eq!(missing.status, 403, "{}", missing.body);
    let forged =
        browser.post_form(&url, &card_fields("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "4242424242424242"));
    assert_eq!(forged.status, 403);
    let of_another_session = browser.post_form(&url, &card_fields(&other_csrf, "4242424242424242"));
    assert_eq!(of_another_session.status, 403);
    // The right token from a browser without the page's cookie (another site's form).
    let mut elsewhere = BlockingBrowser::new();
    let cross_site = elsewhere.post_form(&url, &card_fields(&csrf, "4242424242424242"));
    assert_eq!(cross_site.status, 403);
    assert_secure_page_headers(&cross_site);

    assert_eq!(session_status(&server, &subscriber, session_id)["status"], "pending", "nothing was enrolled");
    let accepted = browser.post_form(&url, &card_fields(&csrf, "4242424242424242"));
    assert_eq!(accepted.status, 200, "{}", accepted.body);
}

#[test]
fn mistakes_are_shown_beside_their_fields_without_the_card_number() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (session_id, url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let csrf = browser.get(&url).csrf();

    let mut fields = card_fields(&csrf, "4242424242424241");
    fields[2] = ("firstName", "");
    fields[6] = ("countryCode", "ZZZ");
    let page = browser.post_form(&url, &fields);
    assert_eq!(page.status, 400, "{}", page.body);
    assert_secure_page_headers(&page);
    for field in ["pan-error", "firstName-error", "countryCode-error"] {
        assert!(page.body.contains(&format!("id=\"{field}\"")), "{field} shown: {}", page.body);
    }
    assert!(page.body.contains("check digit"));
    assert!(!page.body.contains("4242424241"), "the number typed is not echoed");
    assert!(page.body.contains("value=\"Hopper\""), "other fields are kept");

    // A valid number that is not a sandbox test card.
    let page = browser.post_form(&url, &card_fields(&csrf, "4111111111111111"));
    assert_eq!(page.status, 400);
    assert!(page.body.contains("test cards"), "{}", page.body);
    assert!(!page.body.contains("4111111111111111"));
    assert_eq!(session_status(&server, &subscriber, session_id)["status"], "pending");
    assert_nowhere_stored(&server, "4111111111111111");
    assert_nowhere_stored(&server, "4242424242424241");
}

#[test]
fn too_many_rejected_submissions_close_the_page() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (session_id, url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let csrf = browser.get(&url).csrf();
    let mut last = reqwest::StatusCode::OK;
    for _ in 0..10 {
        last = browser.post_form(&url, &card_fields(&csrf, "1234")).status;
    }
    assert_eq!(last, 410, "the tenth rejection closes the page");
    assert_eq!(browser.get(&url).status, 410);
    assert_eq!(session_status(&server, &subscriber, session_id)["status"], "expired");
}

#[test]
fn an_expired_link_shows_a_clear_page_and_reports_expired() {
    // Long enough that a loaded machine still opens the page before it expires.
    let server = TestServer::spawn_with(&["--hosted-session-seconds", "3"]);
    let subscriber = server.subscriber();
    let (session_id, url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let csrf = browser.get(&url).csrf();
    std::thread::sleep(Duration::from_millis(4100));
    let page = browser.get(&url);
    assert_eq!(page.status, 410);
    assert_secure_page_headers(&page);
    assert!(page.body.contains("expired"), "{}", page.body);
    assert_eq!(browser.post_form(&url, &card_fields(&csrf, "4242424242424242")).status, 410);
    let polled = session_status(&server, &subscriber, session_id);
    assert_eq!(polled["status"], "expired");
    assert!(polled["cardId"].is_null());
}

#[test]
fn unknown_links_are_html_not_found_pages() {
    let server = TestServer::spawn();
    let mut browser = BlockingBrowser::new();
    for path in ["/secure/card", "/secure/card?session=", "/secure/card?session=not-a-session-token-at-all-0000000000"]
    {
        let page = browser.get(&server.url(path));
        assert_eq!(page.status, 404, "{path}");
        assert_secure_page_headers(&page);
        assert!(page.body.contains("not valid"));
    }
}

#[test]
fn sessions_are_scoped_to_their_subscriber_and_creation_is_idempotent() {
    let server = TestServer::spawn();
    let owner = server.subscriber();
    let stranger = server.subscriber();
    let (session_id, _) = open_session(&server, &owner);
    let (status, body) = send(stranger.auth(server.get(&format!("/card/session/{session_id}"))));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = send(owner.auth(server.get("/card/session/999999")));
    assert_error(status, &body, 404, "not_found");

    let request = || owner.auth(server.post("/card/session", &json!({}))).header("Idempotency-Key", "session-key-1");
    let (status, first) = send(request());
    assert_eq!(status, 201, "{first}");
    let (status, again) = send(request());
    assert_eq!(status, 201);
    assert_eq!(first, again, "the retry replays the first session, link included");
}

#[test]
fn outside_the_sandbox_the_page_is_the_only_way_to_enroll_any_valid_card() {
    let server = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/card", &crate::helpers::card_json("4111111111111111"))));
    assert_error(status, &body, 403, "pan_not_accepted");

    let (session_id, url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let page = browser.get(&url);
    assert!(!page.body.contains("Sandbox"), "no sandbox notice outside the sandbox");
    let done = browser.post_form(&url, &card_fields(&page.csrf(), "4111 1111 1111 1111"));
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("1111"));
    let polled = session_status(&server, &subscriber, session_id);
    assert_eq!(polled["status"], "completed");
    assert!(polled["cardId"].as_i64().is_some());
    assert_nowhere_stored(&server, "4111111111111111");
}

/// Registers the subscriber's return URLs (and, when given, its name and colour).
fn brand(server: &TestServer, subscriber: &Subscriber, body: serde_json::Value) {
    let (status, answer) = send(subscriber.auth(server.http.patch(server.url("/subscriber")).json(&body)));
    assert_eq!(status, 200, "{answer}");
}

#[test]
fn a_return_url_must_begin_with_a_registered_one() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    brand(&server, &subscriber, json!({ "returnUrls": ["https://app.example.com/", "https://shop.example.org/back"] }));
    let open =
        |return_url: &str| send(subscriber.auth(server.post("/card/session", &json!({ "returnUrl": return_url }))));
    for refused in [
        "https://evil.org/",
        "https://app.example.com.evil.org/",
        "https://app.example.com@evil.org/",
        "https://app.example.com:8443/",
        "http://app.example.com/",
        "http://evil.org/",
        "https://shop.example.org/backdoor",
        "https://shop.example.org/back/../admin",
        "javascript:alert(document.domain)",
        "data:text/html,<script>alert(1)</script>",
        "//evil.org",
        "/relative",
        "https://app.example.com/#fragment",
        "",
    ] {
        let (status, body) = open(refused);
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(body["details"][0]["field"], "returnUrl", "{refused}: {body}");
    }
    for taken in [
        "https://app.example.com/",
        "https://app.example.com/cards/done?user=7",
        "https://APP.example.com:443/x",
        "https://shop.example.org/back",
        "https://shop.example.org/back/card",
        // The sandbox also takes this machine, any port.
        "http://localhost:3000/done",
        "https://127.0.0.1/done",
    ] {
        let (status, body) = open(taken);
        assert_eq!(status, 201, "{taken}: {body}");
    }
    // Another subscriber's registered URLs are not this one's.
    let stranger = server.subscriber();
    let (status, body) =
        send(stranger.auth(server.post("/card/session", &json!({ "returnUrl": "https://app.example.com/" }))));
    assert_error(status, &body, 400, "invalid_request");
    // No body at all, or no returnUrl, is as before.
    let (status, body) = send(subscriber.auth(server.http.post(server.url("/card/session"))));
    assert_eq!(status, 201, "{body}");
}

#[test]
fn outside_the_sandbox_loopback_return_urls_are_refused() {
    let server = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = server.subscriber();
    for refused in ["http://localhost:3000/done", "http://127.0.0.1/done"] {
        let (status, body) = send(subscriber.auth(server.post("/card/session", &json!({ "returnUrl": refused }))));
        assert_error(status, &body, 400, "invalid_request");
    }
}

#[test]
fn after_the_card_the_page_sends_the_browser_back_with_the_session_and_its_status() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    brand(&server, &subscriber, json!({ "displayName": "Acme Pay", "returnUrls": ["https://app.example.com/cards"] }));
    let (status, body) = send(
        subscriber
            .auth(server.post("/card/session", &json!({ "returnUrl": "https://app.example.com/cards/done?u=7" }))),
    );
    assert_eq!(status, 201, "{body}");
    let (session_id, url) = (body["sessionId"].as_i64().expect("sessionId"), body["url"].as_str().expect("url"));
    let mut browser = BlockingBrowser::new();
    let page = browser.get(url);
    assert!(page.body.contains("Acme Pay"), "{}", page.body);
    assert!(return_link(&page.body).is_none(), "no way back before the card");
    let done = browser.post_form(url, &card_fields(&page.csrf(), "4242424242424242"));
    assert_eq!(done.status, 200, "{}", done.body);
    assert_secure_page_headers(&done);
    let back = return_link(&done.body).expect("a link back");
    assert_eq!(back, format!("https://app.example.com/cards/done?u=7&sessionId={session_id}&status=completed"));
    assert!(done.body.contains("Return to Acme Pay"), "{}", done.body);
    // The used link says the same.
    let again = browser.get(url);
    assert_eq!(again.status, 410);
    assert_eq!(return_link(&again.body), Some(back));

    // Without a returnUrl, the page ends as before.
    let (_, plain) = open_session(&server, &subscriber);
    let page = browser.get(&plain);
    let done = browser.post_form(&plain, &card_fields(&page.csrf(), "5555555555554444"));
    assert!(return_link(&done.body).is_none() && done.body.contains("subscriber-data://"), "{}", done.body);
}

#[test]
fn a_page_closed_by_rejections_links_back_as_expired() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) =
        send(subscriber.auth(server.post("/card/session", &json!({ "returnUrl": "http://localhost:5173/back" }))));
    assert_eq!(status, 201, "{body}");
    let (session_id, url) = (body["sessionId"].as_i64().expect("sessionId"), body["url"].as_str().expect("url"));
    let mut browser = BlockingBrowser::new();
    let csrf = browser.get(url).csrf();
    let mut last = browser.post_form(url, &card_fields(&csrf, "1234"));
    for _ in 1..10 {
        last = browser.post_form(url, &card_fields(&csrf, "1234"));
    }
    assert_eq!(last.status, 410, "{}", last.body);
    assert_eq!(
        return_link(&last.body),
        Some(format!("http://localhost:5173/back?sessionId={session_id}&status=expired"))
    );
}

#[test]
fn the_page_shows_the_name_escaped_and_only_a_readable_colour() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let name = "<script>alert(1)</script> & Co";
    brand(&server, &subscriber, json!({ "displayName": name, "brandColor": "#ffff00" }));
    let (_, url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let page = browser.get(&url);
    assert_eq!(page.status, 200);
    assert_secure_page_headers(&page);
    assert!(!page.body.contains("<script>"), "{}", page.body);
    assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co"), "{}", page.body);
    // Yellow on white is 1.07:1: the page keeps its own accent.
    assert!(!page.body.contains("accent.css"), "{}", page.body);
    assert!(!page.body.to_lowercase().contains("ffff00"), "{}", page.body);
    // Even asked for directly, the stylesheet does not set it.
    let sheet = browser.get(&server.url("/secure/assets/accent.css?color=ffff00"));
    assert_eq!(sheet.status, 200);
    assert!(!sheet.body.contains("--accent"), "{}", sheet.body);

    // A readable colour is the accent, through a stylesheet of the service (the CSP is kept).
    brand(&server, &subscriber, json!({ "brandColor": "#1F5FBF" }));
    let (_, url) = open_session(&server, &subscriber);
    let page = browser.get(&url);
    assert!(page.body.contains("/secure/assets/accent.css?color=1f5fbf"), "{}", page.body);
    assert!(!page.body.contains("style="), "no inline style");
    assert!(page.header("content-security-policy").contains("style-src 'self'"));
    let sheet = browser.get(&server.url("/secure/assets/accent.css?color=1f5fbf"));
    assert!(sheet.body.contains("--accent: #1f5fbf"), "{}", sheet.body);
    assert!(sheet.header("content-type").starts_with("text/css"));
    assert_eq!(sheet.header("x-content-type-options"), "nosniff");
}

#[test]
fn completed_and_expired_sessions_are_events_recorded_once() {
    let server = TestServer::spawn_with(&["--hosted-session-seconds", "3"]);
    let subscriber = server.subscriber();
    let events = |event_type: &str| {
        let (status, page) = send(subscriber.auth(server.get(&format!("/events?type={event_type}"))));
        assert_eq!(status, 200, "{page}");
        page["events"].as_array().expect("events").clone()
    };
    let (completed_id, url) = open_session(&server, &subscriber);
    let (expired_id, expiring_url) = open_session(&server, &subscriber);
    let mut browser = BlockingBrowser::new();
    let csrf = browser.get(&url).csrf();
    let done = browser.post_form(&url, &card_fields(&csrf, "4242424242424242"));
    assert_eq!(done.status, 200, "{}", done.body);
    let card_id = session_status(&server, &subscriber, completed_id)["cardId"].as_i64().expect("cardId");
    let completed = events("card_session.completed");
    assert_eq!(completed.len(), 1, "{completed:?}");
    assert_eq!(completed[0]["data"], json!({ "sessionId": completed_id, "cardId": card_id }));

    std::thread::sleep(Duration::from_millis(4100));
    assert!(events("card_session.expired").is_empty(), "nothing has looked at it yet");
    assert_eq!(session_status(&server, &subscriber, expired_id)["status"], "expired");
    assert_eq!(session_status(&server, &subscriber, expired_id)["status"], "expired");
    assert_eq!(browser.get(&expiring_url).status, 410);
    let expired = events("card_session.expired");
    assert_eq!(expired.len(), 1, "recorded once: {expired:?}");
    assert_eq!(expired[0]["data"], json!({ "sessionId": expired_id }));
    // The completed session never expires.
    assert_eq!(session_status(&server, &subscriber, completed_id)["status"], "completed");
    assert_eq!(events("card_session.expired").len(), 1);
}
