use serde_json::json;

use crate::helpers::{TEST_PANS, TestServer, assert_error, assert_nowhere_stored, card_json, send};

#[test]
fn a_replayed_key_returns_the_first_response_and_creates_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let key = uuid::Uuid::new_v4().to_string();
    let first = subscriber
        .auth(server.post("/card", &card_json(TEST_PANS[0])).header("Idempotency-Key", &key))
        .send()
        .expect("sent");
    assert_eq!(first.status(), 201);
    let first: serde_json::Value = first.json().expect("json");
    let replay = subscriber
        .auth(server.post("/card", &card_json(TEST_PANS[0])).header("Idempotency-Key", &key))
        .send()
        .expect("sent");
    assert_eq!(replay.status(), 201, "replayed, not 409 duplicate");
    assert_eq!(replay.headers().get("idempotent-replayed").and_then(|value| value.to_str().ok()), Some("true"));
    let replay: serde_json::Value = replay.json().expect("json");
    assert_eq!(replay, first);
    let (_, cards) = send(subscriber.auth(server.get("/card")));
    assert_eq!(cards["cards"].as_array().map(Vec::len), Some(1));
}

#[test]
fn the_same_key_with_another_body_is_409_and_changes_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let key = "order-7";
    let (status, _) =
        send(subscriber.auth(server.post("/card", &card_json(TEST_PANS[0])).header("Idempotency-Key", key)));
    assert_eq!(status, 201);
    let (status, body) =
        send(subscriber.auth(server.post("/card", &card_json(TEST_PANS[1])).header("Idempotency-Key", key)));
    assert_error(status, &body, 409, "conflict");
    let (_, cards) = send(subscriber.auth(server.get("/card")));
    assert_eq!(cards["cards"].as_array().map(Vec::len), Some(1));
}

#[test]
fn keys_belong_to_one_subscriber() {
    let server = TestServer::spawn();
    let ada = server.subscriber();
    let bob = server.subscriber();
    let key = "shared-key";
    let (status, ada_body) =
        send(ada.auth(server.post("/card", &card_json(TEST_PANS[0])).header("Idempotency-Key", key)));
    assert_eq!(status, 201);
    let (status, bob_body) =
        send(bob.auth(server.post("/card", &card_json(TEST_PANS[0])).header("Idempotency-Key", key)));
    assert_eq!(status, 201, "another subscriber's key does not replay: {bob_body}");
    assert_ne!(ada_body["cardId"], bob_body["cardId"]);
}

#[test]
fn a_validation_failure_is_replayed_too_and_a_bad_key_is_400() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let mut bad = card_json(TEST_PANS[0]);
    bad["expMonth"] = json!(13);
    let (status, first) = send(subscriber.auth(server.post("/card", &bad).header("Idempotency-Key", "bad-once")));
    assert_error(status, &first, 400, "invalid_request");
    let (status, again) = send(subscriber.auth(server.post("/card", &bad).header("Idempotency-Key", "bad-once")));
    assert_eq!((status, &again["details"]), (400, &first["details"]));
    let (status, body) = send(
        subscriber.auth(server.post("/card", &card_json(TEST_PANS[0])).header("Idempotency-Key", "x".repeat(300))),
    );
    assert_error(status, &body, 400, "invalid_request");
}

#[test]
fn signup_is_never_replayed_because_the_secret_is_not_kept() {
    let server = TestServer::spawn();
    let body = json!({ "email": "keyed@example.com" });
    let (status, first) = send(server.post("/subscriber/signup", &body).header("Idempotency-Key", "signup-1"));
    assert_eq!(status, 201);
    let (status, again) = send(server.post("/subscriber/signup", &body).header("Idempotency-Key", "signup-1"));
    assert_error(status, &again, 409, "conflict");
    let secret = first["secret"].as_str().expect("secret");
    assert_nowhere_stored(&server, secret);
}
