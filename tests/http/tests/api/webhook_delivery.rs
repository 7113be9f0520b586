//! Webhook delivery as a queue, from outside: a slow receiver holds only its own endpoint, each
//! endpoint gets its events one at a time in order, the receiver's `410`, `429` and
//! `Retry-After` are honoured, Standard Webhooks headers sign every delivery, and two instances
//! on one database share the queue without sending anything twice at once.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::json;
use subscriber_testkit::receiver::Answers;
use subscriber_testkit::{Delivery, WebhookReceiver};

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TestServer, postgres_admin, send};
use crate::webhooks::{add_receiver, next_accepted, signed_with, standard_signed_with};

const WAIT: Duration = Duration::from_secs(20);

fn send_test(server: &TestServer, subscriber: &Subscriber, webhook_id: i64) -> String {
    let (status, body) = send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/test"), &json!({}))));
    assert_eq!(status, 200, "{body}");
    body["eventId"].as_str().expect("eventId").to_owned()
}

fn event_number(delivery: &Delivery) -> i64 {
    delivery.header("webhook-id").trim_start_matches("evt_").parse().expect("evt_<n>")
}

/// One receiver answers after 8 s: the other subscribers' events all arrive while its first
/// attempt is still open, each endpoint's in event order, and the slow endpoint's second event
/// waits behind its first (one attempt at a time per endpoint).
#[test]
fn a_slow_receiver_holds_only_its_own_endpoint() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let slow_subscriber = server.subscriber();
    let slow = WebhookReceiver::slow(Duration::from_secs(8));
    let (slow_id, _) = add_receiver(&server, &slow_subscriber, &slow, &["webhook.test"]);
    let fast: Vec<(Subscriber, WebhookReceiver, i64)> = (0..5)
        .map(|_| {
            let subscriber = server.subscriber();
            let receiver = WebhookReceiver::start();
            let (id, _) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
            (subscriber, receiver, id)
        })
        .collect();
    send_test(&server, &slow_subscriber, slow_id);
    send_test(&server, &slow_subscriber, slow_id);
    assert!(slow.next(WAIT).is_some(), "the slow receiver's first attempt starts");
    for (subscriber, _, id) in &fast {
        for _ in 0..3 {
            send_test(&server, subscriber, *id);
        }
    }
    for (_, receiver, _) in &fast {
        let numbers: Vec<i64> = (0..3).map(|_| event_number(&next_accepted(receiver))).collect();
        assert!(numbers.windows(2).all(|pair| pair[0] < pair[1]), "in event order: {numbers:?}");
    }
    assert!(
        slow.next(Duration::ZERO).is_none(),
        "every fast event arrived while the slow endpoint's first attempt was still open"
    );
    let second = slow.next(WAIT).expect("the slow endpoint's second event, after its first");
    assert_eq!(second.answered, 200);
}

/// Every delivery carries Standard Webhooks headers beside ours: the event id (the same on a
/// retry), the time, and a signature under the secret's bytes; the secret is `whsec_` +
/// standard base64 of 32 bytes.
#[test]
fn deliveries_carry_standard_webhooks_headers() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--webhook-retry-unit-ms", "20"]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::failing_first(1);
    let (webhook_id, secret) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
    let encoded = secret.strip_prefix("whsec_").expect("whsec_");
    assert_eq!(encoded.len(), 44, "standard base64 of 32 bytes: {secret}");
    let event_id = send_test(&server, &subscriber, webhook_id);
    let failed = receiver.next(WAIT).expect("the first attempt");
    let delivered = next_accepted(&receiver);
    for delivery in [&failed, &delivered] {
        assert_eq!(delivery.header("webhook-id"), event_id, "the event id, on every attempt");
        let timestamp: i64 = delivery.header("webhook-timestamp").parse().expect("unix seconds");
        assert!((chrono::Utc::now().timestamp() - timestamp).abs() < 60);
        assert!(standard_signed_with(delivery, &secret), "{}", delivery.header("webhook-signature"));
        assert!(signed_with(delivery, &secret));
        assert!(!standard_signed_with(delivery, "whsec_wrong"));
    }
    let mut tampered = delivered.clone();
    tampered.body = delivered.body.iter().copied().map(|byte| if byte == b't' { b'T' } else { byte }).collect();
    assert!(!standard_signed_with(&tampered, &secret), "a changed body does not verify");
}

fn attempts(server: &TestServer, subscriber: &Subscriber, webhook_id: i64, count: usize) -> Vec<serde_json::Value> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let (status, body) = send(subscriber.auth(server.get(&format!("/webhooks/{webhook_id}/deliveries"))));
        assert_eq!(status, 200, "{body}");
        let attempts = body["deliveries"].as_array().expect("deliveries").clone();
        if attempts.len() >= count || std::time::Instant::now() > deadline {
            return attempts;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn time_ms(value: &serde_json::Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(value.as_str().expect("a time")).expect("RFC 3339").timestamp_millis()
}

/// `410 Gone` disables the endpoint, and the log says why.
#[test]
fn a_receiver_answering_410_disables_its_endpoint() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::answering(Answers { status: Some(410), ..Answers::default() });
    let (webhook_id, _) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
    send_test(&server, &subscriber, webhook_id);
    let logged = attempts(&server, &subscriber, webhook_id, 1);
    assert_eq!(logged[0]["responseStatus"], 410, "{logged:?}");
    assert!(logged[0]["error"].as_str().is_some_and(|error| error.contains("disabled")), "{logged:?}");
    let (_, endpoint) = send(subscriber.auth(server.get(&format!("/webhooks/{webhook_id}"))));
    assert_eq!(endpoint["status"], "disabled", "{endpoint}");
    assert!(endpoint["disabledReason"].as_str().is_some_and(|reason| reason.contains("410")), "{endpoint}");
}

/// `429` and `503` with `Retry-After` (seconds or an HTTP date) set the next attempt.
#[test]
fn retry_after_sets_the_next_attempt() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let in_90_s = (chrono::Utc::now() + chrono::Duration::seconds(90)).to_rfc2822().replace("+0000", "GMT");
    for (status, after, seconds) in [(429, "2".to_owned(), 2), (503, in_90_s, 90)] {
        let answers = Answers { status: Some(status), retry_after: Some(after), ..Answers::default() };
        let receiver = WebhookReceiver::answering(answers);
        let (webhook_id, _) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
        send_test(&server, &subscriber, webhook_id);
        let logged = attempts(&server, &subscriber, webhook_id, 1);
        let delay = time_ms(&logged[0]["nextAttemptAt"]) - time_ms(&logged[0]["at"]);
        assert!((delay - seconds * 1000).abs() <= 2000, "{status}: {delay} ms, {logged:?}");
    }
}

/// Two instances on one PostgreSQL database share the queue: while both run, each endpoint gets
/// its events in order and none twice; an event made on one instance whose first attempt failed
/// is retried by the other once the first has stopped.
#[test]
fn two_instances_share_the_queue_and_send_nothing_twice() {
    if postgres_admin().is_none() {
        eprintln!("two instances need PostgreSQL: run under tests/support/with-postgres.sh");
        return;
    }
    // Retries 10 units of 100 ms after a failure: the handover below takes about a second.
    let flags = [LOCAL_RECEIVERS, "--webhook-retry-unit-ms", "100"];
    let first = TestServer::spawn_with(&flags);
    let second = first.another_instance(&flags);
    let endpoints: Vec<(Subscriber, WebhookReceiver, i64)> = (0..8)
        .map(|_| {
            let subscriber = first.subscriber();
            let receiver = WebhookReceiver::slow(Duration::from_millis(100));
            let (id, _) = add_receiver(&first, &subscriber, &receiver, &["webhook.test"]);
            (subscriber, receiver, id)
        })
        .collect();
    for round in 0..4 {
        for (subscriber, _, id) in &endpoints {
            let server = if round % 2 == 0 { &first } else { &second };
            send_test(server, subscriber, *id);
        }
    }
    for (_, receiver, _) in &endpoints {
        let numbers: Vec<i64> = (0..4).map(|_| event_number(&next_accepted(receiver))).collect();
        assert!(numbers.windows(2).all(|pair| pair[0] < pair[1]), "in order, each once: {numbers:?}");
        assert_eq!(numbers.iter().collect::<BTreeSet<_>>().len(), 4);
    }
    std::thread::sleep(Duration::from_secs(1));
    for (_, receiver, _) in &endpoints {
        assert!(receiver.next(Duration::ZERO).is_none(), "nothing sent twice");
    }

    // Which instance claims a delivery is a race; that the queue is shared is not.
    let (subscriber, _, _) = &endpoints[0];
    let failing_once = WebhookReceiver::failing_first(1);
    let (webhook_id, _) = add_receiver(&first, subscriber, &failing_once, &["webhook.test"]);
    let event = send_test(&first, subscriber, webhook_id);
    assert_eq!(failing_once.next(WAIT).expect("a first attempt").answered, 500);
    attempts(&first, subscriber, webhook_id, 1);
    let _database = first.stop();
    let retried = next_accepted(&failing_once);
    assert_eq!(retried.header("webhook-id"), event, "the instance left retries the other's event");
    assert_eq!(attempts(&second, subscriber, webhook_id, 2).len(), 2);
}

fn endpoint(server: &TestServer, subscriber: &Subscriber, webhook_id: i64) -> serde_json::Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/webhooks/{webhook_id}"))));
    assert_eq!(status, 200, "{body}");
    body
}

/// `GET /webhooks/{id}` shows the endpoint's queue; `POST /webhooks/{id}/recover {since}`
/// queues its deliveries that failed for good again, checks `since`, and is the caller's only.
#[test]
fn an_endpoints_queue_is_shown_and_its_failed_deliveries_recovered() {
    // Retries run out after 3 days of 1 ms units (259 s): a `Retry-After` of an hour is past that,
    // so the first attempt fails for good.
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--webhook-retry-unit-ms", "1"]);
    let subscriber = server.subscriber();
    let answers = Answers { status: Some(429), retry_after: Some("3600".to_owned()), ..Answers::default() };
    let receiver = WebhookReceiver::answering(answers);
    let (webhook_id, _) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
    let fresh = endpoint(&server, &subscriber, webhook_id);
    assert_eq!(
        fresh["queue"],
        json!({ "queueLength": 0, "nextAttemptAt": null, "lastError": null, "queueLimit": 10000, "dropped": null }),
        "{fresh}"
    );
    let before = chrono::Utc::now() - chrono::Duration::minutes(1);
    send_test(&server, &subscriber, webhook_id);
    assert_eq!(receiver.next(WAIT).expect("an attempt").answered, 429);
    attempts(&server, &subscriber, webhook_id, 1);
    let failed = endpoint(&server, &subscriber, webhook_id);
    assert_eq!(failed["queue"]["queueLength"], 0, "failed for good: {failed}");
    assert!(failed["queue"]["lastError"].as_str().is_some_and(|error| error.contains("429")), "{failed}");

    let path = format!("/webhooks/{webhook_id}/recover");
    for since in [json!("yesterday"), json!(12), json!("")] {
        let (status, body) = send(subscriber.auth(server.post(&path, &json!({ "since": since }))));
        assert_eq!(status, 400, "{since}: {body}");
    }
    assert!(receiver.next(Duration::from_millis(300)).is_none(), "a refused request queues nothing");
    let since = json!({ "since": before.to_rfc3339() });
    let stranger = server.subscriber();
    let (status, _) = send(stranger.auth(server.post(&path, &since)));
    assert_eq!(status, 404, "another subscriber's endpoint");
    let later = json!({ "since": (chrono::Utc::now() + chrono::Duration::minutes(1)).to_rfc3339() });
    let (status, body) = send(subscriber.auth(server.post(&path, &later)));
    assert_eq!((status, body["queued"].as_i64()), (200, Some(0)), "{body}");
    let (status, body) = send(subscriber.auth(server.post(&path, &since)));
    assert_eq!((status, body["queued"].as_i64()), (200, Some(1)), "{body}");
    assert_eq!(receiver.next(WAIT).expect("the recovered delivery").answered, 429);
}

/// A delivery waiting for its retry shows in the queue with its next attempt.
#[test]
fn a_waiting_delivery_shows_in_its_endpoints_queue() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::failing_first(5);
    let (webhook_id, _) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
    send_test(&server, &subscriber, webhook_id);
    attempts(&server, &subscriber, webhook_id, 1);
    let waiting = endpoint(&server, &subscriber, webhook_id);
    assert_eq!(waiting["queue"]["queueLength"], 1, "{waiting}");
    assert!(waiting["queue"]["nextAttemptAt"].is_string(), "{waiting}");
    assert!(waiting["queue"]["lastError"].as_str().is_some_and(|error| error.contains("500")), "{waiting}");
    let (_, listed) = send(subscriber.auth(server.get("/webhooks")));
    assert!(listed["webhooks"][0].get("queue").is_none(), "the list leaves it out: {listed}");
}
