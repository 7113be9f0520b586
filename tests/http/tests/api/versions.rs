//! Dated API versions, from outside (contract: "Versions (third round)"): the
//! `Subscriber-Version` header, the pin set at signup and moved by `PATCH /subscriber`, 400
//! `unknown_version`, the header on every answer (errors included), each version's document, and
//! the flows of the spec at `2026-12-01`, whose names are camelCase everywhere. The rest of the
//! suite sends no version header and signs up fresh subscribers: it is the proof that
//! `2026-11-21` is the seed spec's shapes, exactly.

use std::time::Duration;

use reqwest::blocking::RequestBuilder;
use serde_json::{Value, json};
use subscriber_testkit::WebhookReceiver;

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TEST_PAN, TestServer, assert_error, card_json, read, send};

const FIRST: &str = "2026-11-21";
const NEWEST: &str = "2026-12-01";
const HEADER: &str = "Subscriber-Version";

/// Sends and returns (status, the answer's version, JSON body).
fn versioned(request: RequestBuilder) -> (u16, String, Value) {
    let response = request.send().expect("request sent");
    let version = response
        .headers()
        .get(HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no {HEADER} on a {} answer", response.status()));
    let (status, body) = read(response);
    (status, version, body)
}

/// A fresh subscriber signed up and logged in at `version` (the header on both requests).
pub(crate) fn subscriber_at(server: &TestServer, version: &str) -> (Subscriber, Value) {
    let email = format!("v-{}@example.com", uuid::Uuid::new_v4().simple());
    let (status, answered, signup) =
        versioned(server.post("/subscriber/signup", &json!({ "email": email })).header(HEADER, version));
    assert_eq!((status, answered.as_str()), (201, version), "{signup}");
    let secret = signup["secret"].as_str().expect("secret").to_owned();
    let key = if version == FIRST { "api_key" } else { "apiKey" };
    let (status, _, login) =
        versioned(server.post("/subscriber/login", &json!({ "email": email, key: secret })).header(HEADER, version));
    assert_eq!(status, 200, "{login}");
    let token = login["token"].as_str().expect("token").to_owned();
    (Subscriber { email, secret, client_id: String::new(), token }, signup)
}

fn keys(body: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = body.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

#[test]
fn every_answer_says_its_version_errors_included() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let newest = |request: RequestBuilder| request.header(HEADER, NEWEST);
    for (request, expected_status, expected_version) in [
        (server.get("/openapi.json"), 200, FIRST),
        (server.get("/healthz"), 200, FIRST),
        (server.get("/nothing/here"), 404, FIRST),
        (newest(server.get("/nothing/here")), 404, NEWEST),
        (server.get("/card"), 401, FIRST),
        (newest(server.get("/card")), 401, NEWEST),
        (subscriber.auth(server.get("/card")), 200, FIRST),
        (subscriber.auth(server.get("/card/999999")), 404, FIRST),
        (newest(subscriber.auth(server.get("/card/999999"))), 404, NEWEST),
        (subscriber.auth(server.post("/card", &json!({}))), 400, FIRST),
        (subscriber.auth(server.http.put(server.url("/card"))), 405, FIRST),
        (server.get("/card").bearer_auth("not.a.token"), 401, FIRST),
    ] {
        let (status, version, body) = versioned(request);
        assert_eq!((status, version.as_str()), (expected_status, expected_version), "{body}");
    }
}

#[test]
fn an_unknown_version_is_400_and_changes_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    for sent in ["2026-11-22", "2026-12-1", "latest", "", "2026-12-01; 2026-11-21"] {
        let (status, version, body) = versioned(
            server.post("/subscriber/signup", &json!({ "email": "unknown@example.com" })).header(HEADER, sent),
        );
        assert_error(status, &body, 400, "unknown_version");
        assert_eq!(body["details"][0]["field"], HEADER, "{body}");
        assert_eq!(version, FIRST, "answered in the version a request without the header gets");
        let (status, _, body) = versioned(subscriber.auth(server.get("/subscriber")).header(HEADER, sent));
        assert_error(status, &body, 400, "unknown_version");
    }
    // Nothing was created by the refused signups.
    let (status, _, body) =
        versioned(server.post("/subscriber/signup", &json!({ "email": "unknown@example.com" })).header(HEADER, NEWEST));
    assert_eq!(status, 201, "{body}");
    let (status, body) = send(server.get("/openapi.json?version=2027-01-01"));
    assert_error(status, &body, 400, "unknown_version");
    assert_eq!(body["details"][0]["field"], "version");
}

#[test]
fn a_signup_without_a_version_is_pinned_to_the_first() {
    let server = TestServer::spawn();
    let (subscriber, signup) = subscriber_at(&server, FIRST);
    assert_eq!(keys(&signup), ["client_id", "email", "environment", "error", "public_key", "secret"]);
    let (status, version, profile) = versioned(subscriber.auth(server.get("/subscriber")));
    assert_eq!((status, version.as_str()), (200, FIRST));
    assert_eq!(keys(&profile), ["client_id", "createdAt", "email", "environment", "error", "public_key"]);
    // The header asks for another version, request by request.
    let (_, version, profile) = versioned(subscriber.auth(server.get("/subscriber")).header(HEADER, NEWEST));
    assert_eq!(version, NEWEST);
    assert_eq!(
        keys(&profile),
        [
            "apiVersion",
            "brandColor",
            "clientId",
            "createdAt",
            "displayName",
            "email",
            "environment",
            "error",
            "publicKey",
            "returnUrls"
        ]
    );
    assert_eq!(profile["apiVersion"], FIRST, "the pin, not the version of this request");
}

#[test]
fn a_signup_naming_a_version_is_pinned_to_it() {
    let server = TestServer::spawn();
    let (subscriber, signup) = subscriber_at(&server, NEWEST);
    assert_eq!(keys(&signup), ["apiVersion", "clientId", "email", "environment", "error", "publicKey", "secret"]);
    assert_eq!(signup["apiVersion"], NEWEST);
    // Without the header: the pin, for a login (known by its e-mail) as for a token.
    let (status, version, login) =
        versioned(server.post("/subscriber/login", &json!({ "email": subscriber.email, "apiKey": subscriber.secret })));
    assert_eq!((status, version.as_str()), (200, NEWEST), "{login}");
    assert_eq!(keys(&login), ["error", "token", "validitySeconds"]);
    let (_, version, profile) = versioned(subscriber.auth(server.get("/subscriber")));
    assert_eq!(version, NEWEST);
    assert_eq!(profile["clientId"], signup["clientId"]);
    let (_, version, profile) = versioned(subscriber.auth(server.get("/subscriber")).header(HEADER, FIRST));
    assert_eq!(version, FIRST);
    assert_eq!(keys(&profile), ["client_id", "createdAt", "email", "environment", "error", "public_key"]);
}

#[test]
fn patch_subscriber_moves_the_pin() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, version, moved) =
        versioned(subscriber.auth(server.http.patch(server.url("/subscriber")).json(&json!({ "apiVersion": NEWEST }))));
    assert_eq!((status, version.as_str()), (200, NEWEST), "answered in the new pin: {moved}");
    assert_eq!(moved["apiVersion"], NEWEST);
    let (_, version, profile) = versioned(subscriber.auth(server.get("/subscriber")));
    assert_eq!((version.as_str(), &profile["apiVersion"]), (NEWEST, &json!(NEWEST)));
    let (_, version, page) = versioned(subscriber.auth(server.get("/events")));
    assert_eq!(version, NEWEST);
    assert!(page.get("nextCursor").is_some() && page.get("next_cursor").is_none(), "{page}");

    // An unknown version moves nothing.
    let patch = |body: Value| subscriber.auth(server.http.patch(server.url("/subscriber")).json(&body));
    for sent in [json!("2026-12-02"), json!("newest")] {
        let (status, body) = send(patch(json!({ "apiVersion": sent })));
        assert_error(status, &body, 400, "unknown_version");
        assert_eq!(body["details"][0]["field"], "apiVersion", "{body}");
    }
    let (status, body) = send(patch(json!({})));
    assert_error(status, &body, 400, "invalid_request");
    let (_, version, _) = versioned(subscriber.auth(server.get("/subscriber")));
    assert_eq!(version, NEWEST);

    // Back: a request naming a version is answered in it, whatever the new pin.
    let (status, version, moved) = versioned(patch(json!({ "apiVersion": FIRST })).header(HEADER, NEWEST));
    assert_eq!((status, version.as_str()), (200, NEWEST));
    assert_eq!(moved["apiVersion"], FIRST);
    let (_, version, profile) = versioned(subscriber.auth(server.get("/subscriber")));
    assert_eq!(version, FIRST);
    assert!(profile.get("client_id").is_some(), "{profile}");
}

#[test]
fn each_version_has_its_document() {
    let server = TestServer::spawn();
    let document = |request: RequestBuilder| {
        let (status, version, body) = versioned(request);
        assert_eq!(status, 200);
        assert_eq!(body["info"]["version"], version.as_str(), "the document of the answer's version");
        body
    };
    let first = document(server.get("/openapi.json"));
    let newest = document(server.get(&format!("/openapi.json?version={NEWEST}")));
    assert_eq!(document(server.get("/openapi.json").header(HEADER, NEWEST)), newest);
    assert_eq!(document(server.get(&format!("/openapi.json?version={FIRST}")).header(HEADER, NEWEST)), first);
    let property = |document: &Value, schema: &str, name: &str| {
        document["components"]["schemas"][schema]["properties"].get(name).is_some()
    };
    assert!(property(&first, "SignupResponse", "client_id") && !property(&first, "SignupResponse", "clientId"));
    assert!(property(&first, "EnrollMerchantResponse", "mechantId"));
    assert!(property(&first, "LoginRequest", "api_key"));
    assert!(property(&newest, "SignupResponse", "clientId") && !property(&newest, "SignupResponse", "client_id"));
    assert!(!property(&newest, "EnrollMerchantResponse", "mechantId"));
    assert_eq!(newest["components"]["schemas"]["RotateSecretRequest"]["required"], json!(["currentSecret"]));
    // Not one snake_case property in the newest document.
    fn snake(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    found.extend(properties.keys().filter(|name| name.contains('_')).cloned());
                }
                map.values().for_each(|value| snake(value, found));
            }
            Value::Array(items) => items.iter().for_each(|value| snake(value, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    snake(&newest, &mut found);
    assert!(found.is_empty(), "snake_case properties in {NEWEST}: {found:?}");
    assert!(newest["servers"][0]["url"].as_str().is_some_and(|url| url.starts_with("http://127.0.0.1:")));
}

/// The newest version names a request's fields its way only, and an older request's errors
/// name its own fields.
#[test]
fn requests_are_read_in_their_version() {
    let server = TestServer::spawn();
    let (subscriber, _) = subscriber_at(&server, NEWEST);
    let login = |body: Value, version: &str| versioned(server.post("/subscriber/login", &body).header(HEADER, version));
    let (status, _, body) = login(json!({ "email": subscriber.email, "api_key": subscriber.secret }), NEWEST);
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(body["details"][0]["field"], "apiKey", "{body}");
    let (status, _, body) = login(json!({ "email": subscriber.email }), FIRST);
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(body["details"][0]["field"], "api_key", "{body}");
    assert!(body["error"].as_str().is_some_and(|message| message.starts_with("api_key")), "{body}");
    for key in ["api_key", "key"] {
        let (status, version, body) = login(json!({ "email": subscriber.email, key: subscriber.secret }), FIRST);
        assert_eq!((status, version.as_str()), (200, FIRST), "{body}");
        assert!(body.get("validity_seconds").is_some(), "{body}");
    }

    // Rotation: the current secret is required from 2026-12-01 (400), where earlier it was read as
    // empty (401).
    let rotate = |body: Option<Value>, version: &str| {
        let request = server.post("/subscriber/secret/rotate", &json!({}));
        let request = match body {
            Some(body) => request.json(&body),
            None => server.http.post(server.url("/subscriber/secret/rotate")),
        };
        versioned(subscriber.auth(request).header(HEADER, version))
    };
    let (status, _, body) = rotate(Some(json!({})), NEWEST);
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(body["details"][0]["field"], "currentSecret");
    let (status, _, body) = rotate(None, NEWEST);
    assert_error(status, &body, 400, "invalid_request");
    for body in [None, Some(json!({}))] {
        let (status, _, answer) = rotate(body, FIRST);
        assert_error(status, &answer, 401, "invalid_credentials");
    }
    let (status, version, rotated) = rotate(Some(json!({ "current_secret": subscriber.secret })), FIRST);
    assert_eq!((status, version.as_str()), (200, FIRST), "{rotated}");
    assert_eq!(keys(&rotated), ["client_id", "error", "rotatedAt", "secret"]);
}

/// The spec's flows at the newest version: the same calls, camelCase answers.
#[test]
fn the_spec_flows_at_the_newest_version() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let (subscriber, signup) = subscriber_at(&server, NEWEST);
    assert!(signup["clientId"].as_str().is_some_and(|id| id.starts_with("cli_")));
    let get = |path: &str| {
        let (status, version, body) = versioned(subscriber.auth(server.get(path)));
        assert_eq!((status, version.as_str()), (200, NEWEST), "GET {path}: {body}");
        body
    };
    let post = |path: &str, body: &Value| {
        let (status, version, answer) = versioned(subscriber.auth(server.post(path, body)));
        assert!(status == 200 || status == 201, "POST {path}: {status} {answer}");
        assert_eq!(version, NEWEST);
        answer
    };

    // Cards and their transactions.
    let card_id = post("/card", &card_json(TEST_PAN))["cardId"].as_i64().expect("cardId");
    let page = get(&format!("/card/{card_id}/transactions?limit=5"));
    assert_eq!(keys(&page), ["error", "nextCursor", "transactions"]);
    let cursor = page["nextCursor"].as_str().expect("a long history has a next page").to_owned();
    let next = get(&format!("/card/{card_id}/transactions?limit=5&cursor={cursor}"));
    assert_eq!(next["transactions"].as_array().map(Vec::len), Some(5));
    let sync = get(&format!("/card/{card_id}/transactions/sync?count=50"));
    assert_eq!(keys(&sync), ["added", "error", "hasMore", "modified", "nextCursor", "removed"]);

    // A merchant, a location, a sale there, the merchant's sales, discovery.
    let merchant =
        post("/merchant", &json!({ "name": "Blue Bottle Coffee", "category": "5814", "countryCode": "USA" }));
    assert_eq!(keys(&merchant), ["error", "merchantId", "message"]);
    let merchant_id = merchant["merchantId"].as_i64().expect("merchantId");
    let location = post(
        "/merchant/location",
        &json!({ "location": { "countryCode": "USA", "street": "Mint Plaza", "streetNo": "66",
            "city": "San Francisco", "zip": "94103" } }),
    );
    let location_id = location["locationId"].as_i64().expect("locationId");
    post("/sandbox/transactions", &json!({ "cardId": card_id, "locationId": location_id, "amount": 4.5 }));
    let sales = get(&format!("/merchant/{merchant_id}/transactions"));
    assert_eq!(keys(&sales), ["error", "nextCursor", "transactions"]);
    assert_eq!(sales["transactions"][0]["locationId"], location_id);
    let found = get("/merchant/discover?merchid=SQ%20*BLUE%20HERON%20COFFEE&matchType=exact");
    let merchants = found["result"]["merchants"].as_array().expect("merchants");
    assert_eq!(merchants.len(), 1, "{found}");
    assert_eq!(merchants[0]["descriptor"], "SQ *BLUE HERON COFFEE");
    assert!(merchants[0].get("ID").is_none(), "{found}");

    // Events and a webhook endpoint of this version, which delivers in it.
    let events = get("/events?type=card.enrolled");
    assert_eq!(keys(&events), ["error", "events", "nextCursor"]);
    let receiver = WebhookReceiver::start();
    let created = post("/webhooks", &json!({ "url": receiver.url(), "events": ["*"] }));
    assert_eq!(created["apiVersion"], NEWEST, "an endpoint keeps the version it was added in: {created}");
    let webhook_id = created["webhookId"].as_i64().expect("webhookId");
    let queued = post(&format!("/webhooks/{webhook_id}/test"), &json!({}));
    let delivery = receiver.next_accepted(Duration::from_secs(20)).expect("a delivery in time");
    let event = delivery.json();
    assert_eq!(event["id"], queued["eventId"]);
    assert_eq!(keys(&event), ["createdAt", "data", "id", "type"]);
    let deliveries = get(&format!("/webhooks/{webhook_id}/deliveries"));
    assert_eq!(keys(&deliveries), ["deliveries", "error", "nextCursor"]);
    let (status, version, moved) =
        versioned(subscriber.auth(
            server.http.patch(server.url(&format!("/webhooks/{webhook_id}"))).json(&json!({ "apiVersion": FIRST })),
        ));
    assert_eq!((status, version.as_str()), (200, NEWEST), "{moved}");
    assert_eq!(moved["apiVersion"], FIRST);
    let (status, body) =
        send(subscriber.auth(
            server.http.patch(server.url(&format!("/webhooks/{webhook_id}"))).json(&json!({ "apiVersion": "x" })),
        ));
    assert_error(status, &body, 400, "unknown_version");
    // In the first version an endpoint has no `apiVersion`: that version's shape, exactly.
    let (_, _, listed) = versioned(subscriber.auth(server.get("/webhooks")).header(HEADER, FIRST));
    assert!(listed["webhooks"][0].get("apiVersion").is_none(), "{listed}");
    assert!(listed["webhooks"][0].get("webhookId").is_some(), "{listed}");

    // Bank accounts and persons.
    let banks = get("/banks");
    assert!(banks["banks"].as_array().is_some_and(|banks| !banks.is_empty()));
    let account = post("/account", &json!({ "bank": "northwind" }));
    assert_eq!(account["status"], "pending");
    let person = post("/persons", &json!({ "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com" }));
    assert_eq!(person["status"], "onboarded");
}

/// Behind a load balancer: a pin moved through one instance is the pin of the next request
/// through the other (which had it in memory). On SQLite, which one instance serves, it says so.
#[test]
fn a_pin_moved_through_one_instance_holds_on_the_other() {
    if crate::helpers::postgres_admin().is_none() {
        eprintln!("two instances need PostgreSQL: run under tests/support/with-postgres.sh");
        return;
    }
    let first = TestServer::spawn();
    let second = first.another_instance(&[]);
    let subscriber = first.subscriber();
    let (_, version, _) = versioned(subscriber.auth(second.get("/subscriber")));
    assert_eq!(version, FIRST, "the second instance knows the pin now");
    let (status, _, _) =
        versioned(subscriber.auth(first.http.patch(first.url("/subscriber")).json(&json!({ "apiVersion": NEWEST }))));
    assert_eq!(status, 200);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, version, _) = versioned(subscriber.auth(second.get("/subscriber")));
        if version == NEWEST {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the other instance still answers in {version}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
