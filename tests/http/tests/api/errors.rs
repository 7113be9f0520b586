use serde_json::{Value, json};

use crate::helpers::{TEST_PAN, TestServer, assert_error, card_json, read, send};

#[test]
fn unknown_routes_are_json_404s() {
    let server = TestServer::spawn();
    for path in ["/no/such/route", "/cards", "/", "/card/1/nope"] {
        let (status, body) = send(server.get(path));
        assert_error(status, &body, 404, "not_found");
    }
}

#[test]
fn a_wrong_method_is_a_json_405() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.http.delete(server.url("/card"))));
    assert_error(status, &body, 405, "method_not_allowed");
    let (status, body) = send(server.get("/subscriber/login"));
    assert_error(status, &body, 405, "method_not_allowed");
    let (status, body) = send(server.http.put(server.url("/card/")).json(&json!({})));
    assert_error(status, &body, 405, "method_not_allowed");
}

#[test]
fn malformed_bodies_are_400_and_name_the_problem() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let raw = |body: &'static str| {
        subscriber.auth(server.http.post(server.url("/card")).header("Content-Type", "application/json").body(body))
    };
    for body in ["{", "", "[1,2]", "null", "{\"pan\": }", "{} trailing"] {
        let (status, response) = send(raw(body));
        assert_error(status, &response, 400, "invalid_request");
    }
    let mut wrong_type = card_json(TEST_PAN);
    wrong_type["firstName"] = json!(["Ada"]);
    let (status, body) = send(subscriber.auth(server.post("/card", &wrong_type)));
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(body["details"][0]["field"], "firstName");
}

/// serde would fill a struct from an array by position; the contract has objects only, at
/// the top and inside. Each is refused and nothing is made.
#[test]
fn arrays_in_place_of_objects_are_400_and_change_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let raw = |path: &str, body: Value| subscriber.auth(server.post(path, &body));
    let cases = [
        ("/sandbox/transactions", json!([])),
        ("/sandbox/transactions", json!([1, 10.0, "Shop"])),
        ("/card", json!([TEST_PAN, "Ada", "Lovelace", 12, 2030, "USA"])),
        ("/merchant", json!(["Cafe", "5812", "USA"])),
        ("/account", json!(["chase"])),
        ("/persons", json!(["Ada", "Lovelace", "ada@example.com"])),
        ("/persons/verify", json!({"personId": 1, "answers": [[1, 2]]})),
        (
            "/persons/authenticate",
            json!({"personId": 1, "dateOfBirth": "1990-01-01", "address": ["Main St", "1", "Springfield", "12345", "USA"]}),
        ),
    ];
    for (path, body) in cases {
        let (status, response) = send(raw(path, body.clone()));
        assert_error(status, &response, 400, "invalid_request");
        assert!(response["error"].as_str().is_some_and(|message| !message.is_empty()), "{path} {body}: {response}");
    }
    let (status, merchant) = send(raw("/merchant", json!({"name": "Cafe", "category": "5812", "countryCode": "USA"})));
    assert_eq!(status, 201, "{merchant}");
    let located = json!({"location": ["USA", "Main St", "1", "Springfield", "12345"]});
    let (status, response) = send(raw("/merchant/location", located));
    assert_error(status, &response, 400, "invalid_request");
    let (status, body) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(status, 200);
    assert_eq!(body["locations"], json!([]), "{body}");
    let (status, body) = send(subscriber.auth(server.get("/card")));
    assert_eq!(status, 200);
    assert_eq!(body["cards"], json!([]), "{body}");
}

#[test]
fn a_body_that_is_not_json_is_415() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(
        subscriber.auth(server.http.post(server.url("/card")).header("Content-Type", "text/plain").body("pan=4242")),
    );
    assert_error(status, &body, 415, "unsupported_media_type");
    let (status, body) = send(server.http.post(server.url("/subscriber/signup")).body(r#"{"email":"a@example.com"}"#));
    assert_error(status, &body, 415, "unsupported_media_type");
}

#[test]
fn a_body_over_64_kib_is_413_and_changes_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let mut big = card_json(TEST_PAN);
    big["firstName"] = json!("x".repeat(70 * 1024));
    let (status, body) = send(subscriber.auth(server.post("/card", &big)));
    assert_error(status, &body, 413, "payload_too_large");
    let (status, body) =
        send(server.post("/subscriber/signup", &json!({ "email": format!("{}@example.com", "a".repeat(70_000)) })));
    assert_error(status, &body, 413, "payload_too_large");
    let (_, cards) = send(subscriber.auth(server.get("/card")));
    assert_eq!(cards["cards"], json!([]));
}

#[test]
fn every_response_carries_a_request_id_that_errors_repeat() {
    let server = TestServer::spawn();
    let response = server.get("/nowhere").send().expect("sent");
    let header = response.headers().get("x-request-id").and_then(|value| value.to_str().ok()).map(str::to_owned);
    let (_, body) = read(response);
    assert_eq!(body["requestId"].as_str(), header.as_deref());
    let response = server.get("/nowhere").header("X-Request-Id", "trace-abc-123").send().expect("sent");
    assert_eq!(response.headers().get("x-request-id").and_then(|value| value.to_str().ok()), Some("trace-abc-123"));
    let subscriber = server.subscriber();
    let response = subscriber.auth(server.get("/card")).send().expect("sent");
    assert!(response.headers().contains_key("x-request-id"), "successes carry it too");
}

#[test]
fn every_route_answers_with_and_without_a_trailing_slash() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    for path in ["/subscriber", "/card", &format!("/card/{card_id}"), &format!("/card/{card_id}/transactions")] {
        let (plain, plain_body) = send(subscriber.auth(server.get(path)));
        let (slashed, slashed_body) = send(subscriber.auth(server.get(&format!("{path}/"))));
        assert_eq!((plain, slashed), (200, 200), "{path}");
        assert_eq!(plain_body, slashed_body, "{path}");
    }
    let (status, _) = send(server.post("/subscriber/signup/", &json!({ "email": "slash@example.com" })));
    assert_eq!(status, 201);
}

#[test]
fn successes_carry_error_null() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    for path in ["/subscriber", "/card"] {
        let (status, body) = send(subscriber.auth(server.get(path)));
        assert_eq!(status, 200);
        assert!(body.get("error").is_some_and(serde_json::Value::is_null), "{path}: {body}");
    }
}
