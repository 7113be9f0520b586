//! Events for server integrations, from outside: the event log, incremental sync, webhook
//! endpoints and their deliveries to a real receiver (signatures checked here with HMAC, not
//! with the service's code), retries, a crash mid-retry, and the SSRF rules.

use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use subscriber_testkit::{Delivery, WebhookReceiver};

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TEST_PAN, TEST_PANS, TestServer, assert_error, send};
use crate::merchants::{create_location, enroll_merchant};
use crate::persons;
use crate::sandbox::purchase;

const WAIT: Duration = Duration::from_secs(20);

pub fn create_webhook(server: &TestServer, subscriber: &Subscriber, body: &Value) -> (u16, Value) {
    send(subscriber.auth(server.post("/webhooks", body)))
}

pub fn add_receiver(
    server: &TestServer,
    subscriber: &Subscriber,
    receiver: &WebhookReceiver,
    events: &[&str],
) -> (i64, String) {
    let (status, body) = create_webhook(server, subscriber, &json!({ "url": receiver.url(), "events": events }));
    assert_eq!(status, 201, "{body}");
    let secret = body["secret"].as_str().expect("the secret, shown once").to_owned();
    (body["webhookId"].as_i64().expect("webhookId"), secret)
}

/// The `v1` signatures of the header that are HMAC-SHA256(secret, "<t>.<body>"), checked here
/// from the contract's words, and the header's `t`.
pub fn signed_with(delivery: &Delivery, secret: &str) -> bool {
    let header = delivery.header("subscriber-signature");
    let timestamp = header.split(',').find_map(|part| part.strip_prefix("t=")).expect("t=");
    let seconds: i64 = timestamp.parse().expect("t is Unix seconds");
    assert!((chrono::Utc::now().timestamp() - seconds).abs() < 60, "signed now: {header}");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key_of(secret)).expect("any key");
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(&delivery.body);
    let expected = hex::encode(mac.finalize().into_bytes());
    header.split(',').filter_map(|part| part.strip_prefix("v1=")).any(|signature| signature == expected)
}

/// The HMAC key of a secret, as the contract says: `whsec_` + standard base64 of 32 bytes is
/// keyed with the bytes (any other text, such as a wrong secret, with itself).
pub fn key_of(secret: &str) -> Vec<u8> {
    use base64::Engine;
    secret
        .strip_prefix("whsec_")
        .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded).ok())
        .filter(|key| key.len() == 32)
        .unwrap_or_else(|| secret.as_bytes().to_vec())
}

/// The Standard Webhooks signature: some `v1,<base64>` of `webhook-signature` is
/// HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>").
pub fn standard_signed_with(delivery: &Delivery, secret: &str) -> bool {
    use base64::Engine;
    let (id, timestamp) = (delivery.header("webhook-id"), delivery.header("webhook-timestamp"));
    let mut mac = Hmac::<Sha256>::new_from_slice(&key_of(secret)).expect("any key");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(&delivery.body);
    let expected = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    delivery.header("webhook-signature").split(' ').filter_map(|part| part.strip_prefix("v1,")).any(|s| s == expected)
}

pub fn next_accepted(receiver: &WebhookReceiver) -> Delivery {
    receiver.next_accepted(WAIT).expect("a delivery in time")
}

fn sale(server: &TestServer, subscriber: &Subscriber, card_id: i64, amount: f64) -> i64 {
    let body = purchase(server, subscriber, &json!({ "cardId": card_id, "amount": amount }));
    body["transactionId"].as_i64().expect("transactionId")
}

fn settle(server: &TestServer, subscriber: &Subscriber, transaction_id: i64) {
    let path = format!("/sandbox/transactions/{transaction_id}/settle");
    let (status, body) = send(subscriber.auth(server.post(&path, &json!({}))));
    assert_eq!(status, 200, "{body}");
}

fn sync(server: &TestServer, subscriber: &Subscriber, card_id: i64, cursor: Option<&str>) -> Value {
    let mut path = format!("/card/{card_id}/transactions/sync?count=500");
    if let Some(cursor) = cursor {
        path.push_str(&format!("&cursor={cursor}"));
    }
    let (status, body) = send(subscriber.auth(server.get(&path)));
    assert_eq!(status, 200, "{body}");
    body
}

fn ids(list: &Value) -> Vec<i64> {
    let mut ids: Vec<i64> =
        list.as_array().expect("a list").iter().map(|item| item["transactionId"].as_i64().expect("an id")).collect();
    ids.sort_unstable();
    ids
}

/// Every kind of change reaches the receiver as its event, signed, with the log's id.
#[test]
fn a_receiver_gets_each_event_type_signed_and_the_log_lists_the_same_events() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    let (webhook_id, secret) = add_receiver(&server, &subscriber, &receiver, &["*"]);

    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    enroll_merchant(&server, &subscriber, "Hook Cafe");
    let location_id = create_location(&server, &subscriber, "Hook Street");
    let transaction_id = sale(&server, &subscriber, card_id, 9.5);
    settle(&server, &subscriber, transaction_id);
    let person_id = persons::onboard(&server, &subscriber);
    let questions = persons::authenticate(&server, &subscriber, person_id);
    let right = persons::right_answers(&server, &subscriber, person_id);
    let (status, body) =
        persons::verify(&server, &subscriber, person_id, &persons::answers_with(&questions, &right, 4));
    assert_eq!(status, 200, "{body}");
    let (status, test) = send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/test"), &json!({}))));
    assert_eq!(status, 200, "{test}");

    // One transaction at the subscriber's own merchant by its own card: one event each time.
    let expected = [
        "card.enrolled",
        "merchant.location.created",
        "transaction.created",
        "transaction.updated",
        "person.verified",
        "webhook.test",
    ];
    let mut received = Vec::new();
    for _ in expected {
        let delivery = next_accepted(&receiver);
        assert!(signed_with(&delivery, &secret), "signature: {}", delivery.header("subscriber-signature"));
        assert_eq!(delivery.header("content-type"), "application/json");
        let event = delivery.json();
        assert_eq!(delivery.header("subscriber-event-id"), event["id"].as_str().expect("id"));
        assert_eq!(delivery.header("subscriber-event-type"), event["type"].as_str().expect("type"));
        received.push(event);
    }
    let types: Vec<&str> = received.iter().map(|event| event["type"].as_str().expect("type")).collect();
    assert_eq!(types, expected, "in order, for one endpoint");
    assert_eq!(received[0]["data"]["cardId"], card_id);
    assert_eq!(received[1]["data"]["locationId"], location_id);
    assert_eq!(received[2]["data"]["transaction"]["pending"], true);
    assert_eq!(received[3]["data"]["transactionId"], transaction_id);
    assert_eq!(received[3]["data"]["transaction"]["pending"], false);
    assert_eq!(received[4]["data"]["personId"], person_id);
    assert_eq!(received[5]["id"], test["eventId"]);

    // The log lists the same events, newest first, with the same ids and bodies.
    let (status, log) = send(subscriber.auth(server.get("/events?limit=50")));
    assert_eq!(status, 200, "{log}");
    assert_eq!(log["error"], Value::Null);
    let mut listed = log["events"].as_array().expect("events").clone();
    listed.reverse();
    assert_eq!(listed, received);
    let (status, one) =
        send(subscriber.auth(server.get(&format!("/events/{}", received[2]["id"].as_str().expect("id")))));
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["data"], received[2]["data"]);

    // Paging and filters.
    let (status, first) = send(subscriber.auth(server.get("/events?limit=2")));
    assert_eq!(status, 200, "{first}");
    let cursor = first["next_cursor"].as_str().expect("a next page");
    let (_, second) = send(subscriber.auth(server.get(&format!("/events?limit=2&cursor={cursor}"))));
    assert_eq!(second["events"][0], listed[listed.len() - 3]);
    let (_, only) = send(subscriber.auth(server.get("/events?type=transaction.updated")));
    assert_eq!(only["events"].as_array().map(Vec::len), Some(1));
    let (_, since) = send(subscriber.auth(server.get("/events?since=2999-01-01")));
    assert_eq!(since["events"], json!([]));
    for bad in ["/events?type=card.deleted", "/events?since=yesterday", "/events?cursor=abc", "/events?limit=0"] {
        let (status, body) = send(subscriber.auth(server.get(bad)));
        assert_error(status, &body, 400, "invalid_request");
    }

    // Another subscriber sees none of it.
    let stranger = server.subscriber();
    let (_, theirs) = send(stranger.auth(server.get("/events")));
    assert_eq!(theirs["events"], json!([]));
    let (status, body) =
        send(stranger.auth(server.get(&format!("/events/{}", received[0]["id"].as_str().expect("id")))));
    assert_error(status, &body, 404, "not_found");
}

/// The outcomes of bank links and identity checks reach the receiver too, each as its type.
#[test]
fn bank_link_and_identity_outcomes_are_delivered() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    let (_, secret) =
        add_receiver(&server, &subscriber, &receiver, &["account.linked", "account.failed", "person.locked"]);

    let (linked_id, url) = crate::accounts::start_link(&server, &subscriber, "first-meridian");
    let page = crate::accounts::link_with(&server, &url, &["balances"]);
    assert!(page.status.as_u16() < 400, "{}", page.body);
    let (failed_id, url) = crate::accounts::start_link(&server, &subscriber, "first-meridian");
    crate::accounts::sign_in(&mut crate::helpers::BlockingBrowser::new(), &url, "user_locked", "pass_good");
    let person_id = persons::onboard(&server, &subscriber);
    for _ in 0..3 {
        persons::fail_once(&server, &subscriber, person_id);
    }

    let events: Vec<Value> = (0..3)
        .map(|_| {
            let delivery = next_accepted(&receiver);
            assert!(signed_with(&delivery, &secret));
            delivery.json()
        })
        .collect();
    let types: Vec<&str> = events.iter().map(|event| event["type"].as_str().expect("type")).collect();
    assert_eq!(types, ["account.linked", "account.failed", "person.locked"]);
    assert_eq!(events[0]["data"]["accountId"], linked_id);
    assert_eq!(events[1]["data"]["accountId"], failed_id);
    assert!(events[1]["data"]["reason"].as_str().is_some_and(|reason| reason.contains("locked")), "{}", events[1]);
    assert_eq!(events[2]["data"]["personId"], person_id);
    assert!(events[2]["data"]["lockedUntil"].is_string(), "{}", events[2]);
    assert!(receiver.next(Duration::from_millis(500)).is_none(), "only the types it asked for");
}

/// A receiver that fails gets the event on a later attempt; the log shows every attempt.
#[test]
fn a_failing_receiver_gets_the_event_on_a_later_attempt() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--webhook-retry-unit-ms", "20"]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::failing_first(2);
    let (webhook_id, secret) = add_receiver(&server, &subscriber, &receiver, &["card.enrolled"]);
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    for attempt in 0..2 {
        let failed = receiver.next(WAIT).expect("an attempt");
        assert_eq!(failed.answered, 500, "attempt {attempt}");
    }
    let delivered = next_accepted(&receiver);
    assert!(signed_with(&delivered, &secret));
    assert_eq!(delivered.json()["data"]["cardId"], card_id);

    let path = format!("/webhooks/{webhook_id}/deliveries");
    let attempts = wait_for_attempts(&server, &subscriber, &path, 3);
    let summary: Vec<(i64, &str, i64)> = attempts
        .iter()
        .map(|attempt| {
            (
                attempt["attempt"].as_i64().expect("attempt"),
                attempt["status"].as_str().expect("status"),
                attempt["responseStatus"].as_i64().expect("responseStatus"),
            )
        })
        .collect();
    assert_eq!(summary, [(3, "delivered", 200), (2, "failed", 500), (1, "failed", 500)]);
    assert!(attempts[1]["error"].as_str().is_some_and(|error| error.contains("500")), "{}", attempts[1]);
    assert!(attempts[1]["nextAttemptAt"].is_string(), "a failed attempt says when the next one is");
}

fn wait_for_attempts(server: &TestServer, subscriber: &Subscriber, path: &str, count: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let (status, body) = send(subscriber.auth(server.get(path)));
        assert_eq!(status, 200, "{body}");
        let attempts = body["deliveries"].as_array().expect("deliveries").clone();
        if attempts.len() >= count || std::time::Instant::now() > deadline {
            return attempts;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The queue is in the database: killed between attempts, the service delivers after a restart.
#[test]
fn a_delivery_survives_a_crash_between_attempts() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--webhook-retry-unit-ms", "200"]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::failing_first(1);
    let (_, secret) = add_receiver(&server, &subscriber, &receiver, &["card.enrolled"]);
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    assert_eq!(receiver.next(WAIT).expect("the first attempt").answered, 500);
    // The retry is due 2 s later: the service dies first.
    let (dir, database) = server.kill_hard();
    let restarted =
        TestServer::spawn_on(dir, database, "127.0.0.1:0", &[LOCAL_RECEIVERS, "--webhook-retry-unit-ms", "200"]);
    let delivered = receiver.next_accepted(Duration::from_secs(40)).expect("delivered after the restart");
    assert!(signed_with(&delivered, &secret));
    assert_eq!(delivered.json()["data"]["cardId"], card_id);
    drop(restarted);
}

/// A rotated secret signs beside the new one for the overlap.
#[test]
fn after_a_rotation_both_secrets_sign() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    let (webhook_id, old) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
    let (status, rotated) =
        send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/secret/rotate"), &json!({}))));
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["secret"].as_str().expect("the new secret");
    assert_ne!(new, old);
    assert!(rotated["previousSecretExpiresAt"].is_string());
    let (status, _) = send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/test"), &json!({}))));
    assert_eq!(status, 200);
    let delivery = next_accepted(&receiver);
    assert!(signed_with(&delivery, &old) && signed_with(&delivery, new), "{}", delivery.header("subscriber-signature"));
    assert!(standard_signed_with(&delivery, &old) && standard_signed_with(&delivery, new));
    assert_eq!(delivery.header("webhook-signature").split(' ').count(), 2);
    assert!(!standard_signed_with(&delivery, "whsec_wrong"));
    assert!(!signed_with(&delivery, "whsec_wrong"));
    // The secret is shown once: neither the list nor the endpoint shows it again, nor does the
    // database hold it.
    let (_, listed) = send(subscriber.auth(server.get("/webhooks")));
    assert!(listed["webhooks"][0].get("secret").is_none(), "{listed}");
    crate::helpers::assert_nowhere_stored(&server, new);
}

/// Outside the sandbox an endpoint must be https to a public address; a sandbox started with
/// `--webhooks-allow-private` also takes http to loopback. A refused URL stores nothing.
#[test]
fn webhook_urls_must_be_public_https_outside_the_sandbox() {
    let live = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = live.subscriber();
    for url in [
        "http://93.184.216.34/hooks",
        "https://127.0.0.1/hooks",
        "https://localhost:8443/hooks",
        "https://10.0.0.7/hooks",
        "https://192.168.1.20/hooks",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hooks",
        "https://[fd00:ec2::254]/hooks",
        "https://[::ffff:127.0.0.1]/hooks",
        "https://0.0.0.0/hooks",
        "ftp://93.184.216.34/hooks",
        "https://user:pass@93.184.216.34/hooks",
        "not a url",
    ] {
        let (status, body) = create_webhook(&live, &subscriber, &json!({ "url": url, "events": ["*"] }));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(body["details"][0]["field"], "url", "{url}: {body}");
    }
    let (_, listed) = send(subscriber.auth(live.get("/webhooks")));
    assert_eq!(listed["webhooks"], json!([]), "nothing stored");
    let (status, body) =
        create_webhook(&live, &subscriber, &json!({ "url": "https://93.184.216.34/hooks", "events": ["*"] }));
    assert_eq!(status, 201, "a public https address: {body}");
    let webhook_id = body["webhookId"].as_i64().expect("webhookId");
    let change = json!({ "url": "https://10.1.2.3/hooks" });
    let (status, body) =
        send(subscriber.auth(live.http.patch(live.url(&format!("/webhooks/{webhook_id}"))).json(&change)));
    assert_error(status, &body, 400, "invalid_request");
    let (_, kept) = send(subscriber.auth(live.get(&format!("/webhooks/{webhook_id}"))));
    assert_eq!(kept["url"], "https://93.184.216.34/hooks", "a refused change changes nothing");

    let sandbox = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let developer = sandbox.subscriber();
    let receiver = WebhookReceiver::start();
    let (status, body) = create_webhook(&sandbox, &developer, &json!({ "url": receiver.url(), "events": ["*"] }));
    assert_eq!(status, 201, "the sandbox takes http to loopback when allowed: {body}");
    let (status, body) =
        create_webhook(&sandbox, &developer, &json!({ "url": "http://169.254.169.254/hooks", "events": ["*"] }));
    assert_error(status, &body, 400, "invalid_request");
}

/// Bad input is refused with the field named, and another subscriber's endpoint is not there.
#[test]
fn webhook_requests_are_checked_and_scoped_to_their_subscriber() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    let url = receiver.url();
    for (body, field) in [
        (json!({ "url": url, "events": [] }), "events"),
        (json!({ "url": url, "events": ["card.deleted"] }), "events[0]"),
        (json!({ "url": url, "events": ["*"], "description": "x".repeat(201) }), "description"),
        (json!({ "url": "", "events": ["*"] }), "url"),
        (json!({ "events": ["*"] }), "url"),
        (json!({ "url": url }), "events"),
    ] {
        let (status, answer) = create_webhook(&server, &subscriber, &body);
        assert_error(status, &answer, 400, "invalid_request");
        assert_eq!(answer["details"][0]["field"], field, "{body}: {answer}");
    }
    let (_, listed) = send(subscriber.auth(server.get("/webhooks")));
    assert_eq!(listed["webhooks"], json!([]), "nothing stored");

    let (webhook_id, _) = add_receiver(&server, &subscriber, &receiver, &["*"]);
    let (status, event) = send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/test"), &json!({}))));
    assert_eq!(status, 200);
    let event_id = event["eventId"].as_str().expect("eventId");
    let stranger = server.subscriber();
    let (theirs, _) = add_receiver(&server, &stranger, &receiver, &["*"]);
    let paths = [format!("/webhooks/{webhook_id}"), format!("/webhooks/{webhook_id}/deliveries")];
    for path in &paths {
        let (status, body) = send(stranger.auth(server.get(path)));
        assert_error(status, &body, 404, "not_found");
    }
    for path in [
        format!("/webhooks/{webhook_id}/secret/rotate"),
        format!("/webhooks/{webhook_id}/test"),
        format!("/webhooks/{webhook_id}/deliveries/{event_id}/resend"),
        // Their own endpoint, someone else's event.
        format!("/webhooks/{theirs}/deliveries/{event_id}/resend"),
    ] {
        let (status, body) = send(stranger.auth(server.post(&path, &json!({}))));
        assert_error(status, &body, 404, "not_found");
    }
    let patch = server.http.patch(server.url(&format!("/webhooks/{webhook_id}"))).json(&json!({ "enabled": false }));
    let (status, body) = send(stranger.auth(patch));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = send(stranger.auth(server.http.delete(server.url(&format!("/webhooks/{webhook_id}")))));
    assert_error(status, &body, 404, "not_found");
    let (_, mine) = send(subscriber.auth(server.get(&format!("/webhooks/{webhook_id}"))));
    assert_eq!(mine["status"], "enabled", "untouched by the stranger");
    let patch = server.http.patch(server.url(&format!("/webhooks/{webhook_id}"))).json(&json!({ "events": [] }));
    let (status, body) = send(subscriber.auth(patch));
    assert_error(status, &body, 400, "invalid_request");
    let (_, mine) = send(subscriber.auth(server.get(&format!("/webhooks/{webhook_id}"))));
    assert_eq!(mine["events"], json!(["*"]), "a refused change changes nothing");
}

/// Sync from no cursor is the whole list; after a sale and a settlement, exactly one added and
/// one modified; bad cursors are refused, and a stranger's card is not there.
#[test]
fn incremental_sync_returns_what_changed_since_the_cursor() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PANS[1]);
    let earlier = sale(&server, &subscriber, card_id, 3.0);
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = sync(&server, &subscriber, card_id, cursor.as_deref());
        assert_eq!((page["modified"].clone(), page["removed"].clone()), (json!([]), json!([])));
        all.extend(page["added"].as_array().expect("added").iter().cloned());
        cursor = page["next_cursor"].as_str().map(str::to_owned);
        if page["has_more"] == false {
            break;
        }
    }
    let (status, listed) = send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions?limit=5000"))));
    assert_eq!(status, 200);
    assert_eq!(ids(&Value::from(all)), ids(&listed["transactions"]), "the first sync is the whole list");
    let cursor = cursor.expect("a cursor");

    let later = sale(&server, &subscriber, card_id, 4.0);
    settle(&server, &subscriber, earlier);
    let changes = sync(&server, &subscriber, card_id, Some(&cursor));
    assert_eq!(ids(&changes["added"]), [later]);
    assert_eq!(ids(&changes["modified"]), [earlier]);
    assert_eq!(changes["modified"][0]["pending"], false);
    let next = changes["next_cursor"].as_str().expect("next_cursor");
    let quiet = sync(&server, &subscriber, card_id, Some(next));
    assert_eq!(
        (quiet["added"].clone(), quiet["modified"].clone(), quiet["has_more"].clone()),
        (json!([]), json!([]), json!(false))
    );

    for bad in ["cursor=abc", "cursor=1.2.3", "count=0", "count=501", "count=x"] {
        let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions/sync?{bad}"))));
        assert_error(status, &body, 400, "invalid_request");
    }
    let stranger = server.subscriber();
    let (status, body) = send(stranger.auth(server.get(&format!("/card/{card_id}/transactions/sync"))));
    assert_error(status, &body, 404, "not_found");
}

/// The request log lists the caller's requests, newest first, with a card number typed into a
/// path masked; no one else's.
#[test]
fn the_request_log_lists_the_callers_requests_and_masks_card_numbers() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let (status, _) = send(subscriber.auth(server.get("/card")));
    assert_eq!(status, 200);
    let (status, _) = send(subscriber.auth(server.get(&format!("/card/{TEST_PAN}"))));
    assert_eq!(status, 404);
    let (status, _) = send(subscriber.auth(server.get("/events?limit=0")));
    assert_eq!(status, 400);

    let (status, log) = send(subscriber.auth(server.get("/subscriber/requests")));
    assert_eq!(status, 200, "{log}");
    assert!(!log.to_string().contains(TEST_PAN), "no card number in the log: {log}");
    let requests = log["requests"].as_array().expect("requests");
    let summary: Vec<(&str, &str, i64, Option<&str>)> = requests
        .iter()
        .take(3)
        .map(|request| {
            (
                request["method"].as_str().expect("method"),
                request["path"].as_str().expect("path"),
                request["status"].as_i64().expect("status"),
                request["code"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("GET", "/events", 400, Some("invalid_request")),
            ("GET", "/card/****************", 404, Some("not_found")),
            ("GET", "/card", 200, None),
        ]
    );
    assert!(requests[0]["requestId"].as_str().is_some_and(|id| id.starts_with("req_")));
    assert!(requests[0]["latencyMs"].as_f64().is_some_and(|latency| latency >= 0.0));

    let stranger = server.subscriber();
    let (_, theirs) = send(stranger.auth(server.get("/subscriber/requests")));
    assert_eq!(theirs["requests"], json!([]), "{theirs}");
    let (status, body) = send(server.get("/subscriber/requests"));
    assert_error(status, &body, 401, "unauthorized");
}

/// A retry of a creation whose endpoint was deleted since makes a new endpoint: the kept answer
/// named one that is gone (schemathesis's stateful phase found the old replay).
#[test]
fn a_retry_after_the_endpoint_was_deleted_makes_a_new_one() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let body = json!({ "url": "http://127.0.0.1:9/hook", "events": ["*"] });
    let create = || subscriber.auth(server.post("/webhooks", &body)).header("Idempotency-Key", "one-endpoint");
    let (status, first) = send(create());
    assert_eq!(status, 201, "{first}");
    let (status, again) = send(create());
    assert_eq!((status, &again["webhookId"]), (201, &first["webhookId"]), "a retry replays: {again}");
    let id = first["webhookId"].as_i64().expect("id");
    let (status, deleted) = crate::helpers::delete(&server, &subscriber, &format!("/webhooks/{id}"));
    assert_eq!(status, 200, "{deleted}");
    let (status, made) = send(create());
    assert_eq!(status, 201, "{made}");
    let new_id = made["webhookId"].as_i64().expect("id");
    assert!(new_id > id, "a new endpoint, not the deleted one: {made}");
    let (status, read) = send(subscriber.auth(server.get(&format!("/webhooks/{new_id}"))));
    assert_eq!(status, 200, "{read}");
}
