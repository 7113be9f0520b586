use std::time::Duration;

use serde_json::json;

use crate::helpers::{TestServer, assert_error, send};

#[test]
fn signup_then_login_with_api_key_or_key() {
    let server = TestServer::spawn();
    let (status, body) = send(server.post("/subscriber/signup", &json!({ "email": "Ada@Example.com" })));
    assert_eq!(status, 201, "{body}");
    assert!(body["error"].is_null());
    for field in ["client_id", "secret", "public_key"] {
        assert!(body[field].as_str().is_some_and(|value| value.len() >= 16), "{field} in {body}");
    }
    let secret = body["secret"].as_str().expect("secret");
    for key_field in ["api_key", "key"] {
        let (status, body) =
            send(server.post("/subscriber/login", &json!({ "email": "ada@example.com", key_field: secret })));
        assert_eq!(status, 200, "{key_field}: {body}");
        assert!(body["error"].is_null());
        assert_eq!(body["validity_seconds"], 18000);
        assert_eq!(body["token"].as_str().map(|token| token.split('.').count()), Some(3), "a JWT");
    }
}

#[test]
fn wrong_key_and_unknown_email_get_the_same_401() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, wrong_key) =
        send(server.post("/subscriber/login", &json!({ "email": subscriber.email, "api_key": "sk_test_wrong" })));
    assert_error(status, &wrong_key, 401, "invalid_credentials");
    let (status, unknown) =
        send(server.post("/subscriber/login", &json!({ "email": "nobody@example.com", "api_key": subscriber.secret })));
    assert_error(status, &unknown, 401, "invalid_credentials");
    assert_eq!(wrong_key["error"], unknown["error"], "the two failures must not be told apart");
}

#[test]
fn signup_rejects_bad_and_duplicate_emails() {
    let server = TestServer::spawn();
    for email in [json!("not-an-email"), json!(""), json!("a@b"), json!(42)] {
        let (status, body) = send(server.post("/subscriber/signup", &json!({ "email": email })));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(body["details"][0]["field"], "email", "{body}");
    }
    let (status, body) = send(server.post("/subscriber/signup", &json!({})));
    assert_error(status, &body, 400, "invalid_request");
    let (status, _) = send(server.post("/subscriber/signup", &json!({ "email": "twice@example.com" })));
    assert_eq!(status, 201);
    let (status, body) = send(server.post("/subscriber/signup", &json!({ "email": "TWICE@example.com" })));
    assert_error(status, &body, 409, "conflict");
}

#[test]
fn the_profile_shows_the_credentials_but_never_the_secret() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.get("/subscriber")));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["email"], subscriber.email.as_str());
    assert_eq!(body["environment"], "sandbox");
    assert!(body["client_id"].as_str().is_some_and(|id| id.starts_with("cli_")));
    assert!(body["public_key"].as_str().is_some());
    assert!(chrono::DateTime::parse_from_rfc3339(body["createdAt"].as_str().expect("createdAt")).is_ok());
    assert!(!body.to_string().contains(&subscriber.secret));
}

#[test]
fn rotating_the_secret_retires_the_old_one() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(
        server.http.post(server.url("/subscriber/secret/rotate")).json(&json!({ "currentSecret": subscriber.secret })),
    ));
    assert_eq!(status, 200, "{body}");
    let new_secret = body["secret"].as_str().expect("new secret");
    assert_ne!(new_secret, subscriber.secret);
    let (status, body) =
        send(server.post("/subscriber/login", &json!({ "email": subscriber.email, "api_key": subscriber.secret })));
    assert_error(status, &body, 401, "invalid_credentials");
    let (status, body) =
        send(server.post("/subscriber/login", &json!({ "email": subscriber.email, "api_key": new_secret })));
    assert_eq!(status, 200, "{body}");
    let (status, body) = send(subscriber.auth(server.get("/subscriber")));
    assert_error(status, &body, 401, "token_expired");
}

#[test]
fn an_expired_token_is_token_expired_and_a_new_login_works() {
    let server = TestServer::spawn_with(&["--token-validity-seconds", "2"]);
    let subscriber = server.subscriber();
    let (status, body) =
        send(server.post("/subscriber/login", &json!({ "email": subscriber.email, "key": subscriber.secret })));
    assert_eq!((status, body["validity_seconds"].as_i64()), (200, Some(2)));
    let (status, _) = send(subscriber.auth(server.get("/card")));
    assert_eq!(status, 200);
    std::thread::sleep(Duration::from_millis(3100));
    let (status, body) = send(subscriber.auth(server.get("/card")));
    assert_error(status, &body, 401, "token_expired");
    let (status, body) =
        send(server.post("/subscriber/login", &json!({ "email": subscriber.email, "api_key": subscriber.secret })));
    assert_eq!(status, 200);
    let token = body["token"].as_str().expect("token");
    let (status, _) = send(server.get("/card").bearer_auth(token));
    assert_eq!(status, 200);
}

#[test]
fn requests_without_a_valid_token_are_401() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(server.get("/subscriber"));
    assert_error(status, &body, 401, "unauthorized");
    let (status, body) = send(server.get("/card/1").header("Authorization", "Basic abc"));
    assert_error(status, &body, 401, "unauthorized");
    let (status, body) = send(server.get("/card").bearer_auth("not.a.jwt"));
    assert_error(status, &body, 401, "unauthorized");
    let mut forged = subscriber.token.clone();
    forged.pop();
    forged.push(if subscriber.token.ends_with('A') { 'B' } else { 'A' });
    let (status, body) = send(server.get("/card").bearer_auth(forged));
    assert_error(status, &body, 401, "unauthorized");
}

#[test]
fn a_token_of_another_server_is_rejected() {
    let first = TestServer::spawn();
    let second = TestServer::spawn();
    let subscriber = first.subscriber();
    let (status, body) = send(subscriber.auth(second.get("/subscriber")));
    assert_error(status, &body, 401, "unauthorized");
}

#[test]
fn established_counts_billable_requests_and_sandbox_does_not() {
    let server = TestServer::spawn_with(&["--environment", "established"]);
    let subscriber = server.subscriber();
    for _ in 0..3 {
        let (status, _) = send(subscriber.auth(server.get("/card")));
        assert_eq!(status, 200);
    }
    let (status, body) = send(subscriber.auth(server.get("/subscriber/usage")));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["environment"], "established");
    assert_eq!(body["billable"], true);
    let cards = body["usage"]
        .as_array()
        .expect("usage rows")
        .iter()
        .find(|row| row["endpoint"] == "GET /card")
        .unwrap_or_else(|| panic!("GET /card counted: {body}"));
    assert_eq!(cards["count"], 3);
    assert_eq!(cards["day"], chrono::Utc::now().date_naive().to_string());

    let sandbox = TestServer::spawn();
    let subscriber = sandbox.subscriber();
    let _ = send(subscriber.auth(sandbox.get("/card")));
    let (status, body) = send(subscriber.auth(sandbox.get("/subscriber/usage")));
    assert_eq!(status, 200);
    assert_eq!((body["billable"].as_bool(), body["total"].as_u64()), (Some(false), Some(0)));
}

/// The version that shows the hosted pages' branding with the account.
const NEWEST: &str = "2026-12-01";

/// `PATCH /subscriber` with its body, answered in the newest version.
fn patch_subscriber(
    server: &TestServer,
    subscriber: &crate::helpers::Subscriber,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    send(subscriber.auth(server.http.patch(server.url("/subscriber")).json(body)).header("Subscriber-Version", NEWEST))
}

/// `GET /subscriber` in the newest version.
fn profile(server: &TestServer, subscriber: &crate::helpers::Subscriber) -> serde_json::Value {
    let (status, body) = send(subscriber.auth(server.get("/subscriber")).header("Subscriber-Version", NEWEST));
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn patch_subscriber_takes_any_subset_of_its_fields() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let before = profile(&server, &subscriber);
    assert!(before["displayName"].is_null() && before["brandColor"].is_null(), "{before}");
    assert_eq!(before["returnUrls"], json!([]));

    let (status, body) = patch_subscriber(&server, &subscriber, &json!({ "displayName": "  Acme Pay  " }));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["displayName"], "Acme Pay", "trimmed");
    assert_eq!(body["apiVersion"], before["apiVersion"], "the pin stays");

    let urls = json!(["https://app.example.com/", "https://shop.example.org/return?from=sd"]);
    let (status, body) =
        patch_subscriber(&server, &subscriber, &json!({ "brandColor": "#1F5FBF", "returnUrls": urls }));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["brandColor"], "#1f5fbf");
    assert_eq!(body["returnUrls"], urls);
    assert_eq!(body["displayName"], "Acme Pay", "a field not sent stays");

    let shown = profile(&server, &subscriber);
    assert_eq!(
        (&shown["displayName"], &shown["brandColor"], &shown["returnUrls"]),
        (&json!("Acme Pay"), &json!("#1f5fbf"), &urls)
    );
    // The first version keeps the seed's profile: the account's pin is that version.
    let (_, seed) = send(subscriber.auth(server.get("/subscriber")));
    assert!(seed.get("displayName").is_none() && seed.get("returnUrls").is_none(), "{seed}");

    // The list is replaced, not merged.
    let (status, body) = patch_subscriber(&server, &subscriber, &json!({ "returnUrls": [] }));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["returnUrls"], json!([]));
}

#[test]
fn bad_profile_values_are_400_and_change_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, _) = patch_subscriber(
        &server,
        &subscriber,
        &json!({ "displayName": "Acme", "brandColor": "#000000", "returnUrls": ["https://app.example.com/"] }),
    );
    assert_eq!(status, 200);
    let before = profile(&server, &subscriber);

    let long = "x".repeat(81);
    let cases = [
        (json!({}), None),
        (json!({ "unknown": 1 }), None),
        (json!({ "displayName": null }), None),
        (json!({ "displayName": "   " }), Some("displayName")),
        (json!({ "displayName": long }), Some("displayName")),
        (json!({ "displayName": "a\u{0007}b" }), Some("displayName")),
        (json!({ "brandColor": "blue" }), Some("brandColor")),
        (json!({ "brandColor": "#12345" }), Some("brandColor")),
        (json!({ "brandColor": "#12345g" }), Some("brandColor")),
        (json!({ "returnUrls": ["http://app.example.com/"] }), Some("returnUrls[0]")),
        (json!({ "returnUrls": ["https://app.example.com/", "https://a.example/#top"] }), Some("returnUrls[1]")),
        (json!({ "returnUrls": ["https://user:pw@app.example.com/"] }), Some("returnUrls[0]")),
        (json!({ "returnUrls": ["/relative"] }), Some("returnUrls[0]")),
        (json!({ "returnUrls": vec!["https://app.example.com/"; 11] }), Some("returnUrls")),
        // A good field beside a bad one is not applied either.
        (json!({ "displayName": "Other", "brandColor": "nope" }), Some("brandColor")),
        (json!({ "displayName": "Other", "apiVersion": "2026-12-02" }), Some("apiVersion")),
    ];
    for (body, field) in cases {
        let (status, answer) = patch_subscriber(&server, &subscriber, &body);
        assert_eq!(status, 400, "{body}: {answer}");
        if let Some(field) = field {
            assert_eq!(answer["details"][0]["field"], field, "{body}: {answer}");
        }
    }
    assert_eq!(before, profile(&server, &subscriber), "nothing changed");
}
