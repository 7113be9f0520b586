//! The request history (contract: "Request history"): every API request of a subscriber in
//! the database, from every instance and across restarts, with its bodies masked, filtered,
//! one by id, exported as NDJSON, kept for its days, and erased with the object it named.

use std::time::Duration;

use serde_json::{Value, json};
use subscriber_testkit::WebhookReceiver;

use crate::helpers::{
    LOCAL_RECEIVERS, Subscriber, TEST_PANS, TestServer, assert_error, assert_nowhere_stored, delete, send,
};
use crate::instances::two_instances;
use crate::webhooks::add_receiver;

fn history(server: &TestServer, subscriber: &Subscriber, query: &str) -> Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/subscriber/requests{query}"))));
    assert_eq!(status, 200, "{body}");
    body
}

fn listed(body: &Value) -> Vec<(String, String, u64)> {
    body["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .map(|request| {
            (
                request["method"].as_str().expect("method").to_owned(),
                request["path"].as_str().expect("path").to_owned(),
                request["status"].as_u64().expect("status"),
            )
        })
        .collect()
}

fn one(server: &TestServer, subscriber: &Subscriber, request_id: &str) -> Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/subscriber/requests/{request_id}"))));
    assert_eq!(status, 200, "{body}");
    body
}

/// The request id of the newest request of `path`.
fn request_id_of(server: &TestServer, subscriber: &Subscriber, method: &str, path: &str) -> String {
    let body = history(server, subscriber, "?limit=1000");
    body["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .find(|request| request["method"] == method && request["path"] == path)
        .and_then(|request| request["requestId"].as_str())
        .unwrap_or_else(|| panic!("{method} {path} in the history: {body}"))
        .to_owned()
}

#[test]
fn requests_are_kept_with_their_bodies_masked_and_nothing_secret_reaches_a_stored_byte() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let pan = TEST_PANS[0];
    let card_id = server.enroll_card(&subscriber, pan);
    let receiver = WebhookReceiver::start();
    let (_, webhook_secret) = add_receiver(&server, &subscriber, &receiver, &["*"]);

    let enrolled = one(&server, &subscriber, &request_id_of(&server, &subscriber, "POST", "/card"));
    let sent = enrolled["requestBody"].as_str().expect("the body sent");
    assert!(sent.contains("\"firstName\"") && !sent.contains(&pan[4..]), "{sent}");
    let got = enrolled["responseBody"].as_str().expect("the answer");
    assert!(got.contains(&format!("\"cardId\":{card_id}")), "{got}");
    assert_eq!(enrolled["route"], "/card");
    assert!(enrolled["objectIds"].as_array().expect("objectIds").contains(&json!(format!("cardId:{card_id}"))));

    // A card number in a refused body, split as people type it.
    let split = format!("{} {} {} {}", &pan[..4], &pan[4..8], &pan[8..12], &pan[12..]);
    let (status, _) =
        send(subscriber.auth(server.post("/card", &json!({ "pan": split, "note": format!("pan {split}") }))));
    assert_eq!(status, 400);
    let refused = one(&server, &subscriber, &request_id_of(&server, &subscriber, "POST", "/card"));
    assert_eq!(refused["status"], 400);
    let sent = refused["requestBody"].as_str().expect("the body sent");
    assert!(sent.contains("\"pan\":\"[masked]\"") && !sent.contains(&pan[12..]), "{sent}");

    let added = one(&server, &subscriber, &request_id_of(&server, &subscriber, "POST", "/webhooks"));
    let answer = added["responseBody"].as_str().expect("the answer");
    assert!(answer.contains("[masked]") && !answer.contains(&webhook_secret), "{answer}");

    // The export, and every byte the database holds, keep none of it.
    let everything = server.get("/subscriber/requests").header("accept", "application/x-ndjson");
    let export = subscriber.auth(everything).send().expect("export").text().expect("export body");
    assert!(export.lines().count() >= 4, "{export}");
    for line in export.lines() {
        let request: Value = serde_json::from_str(line).expect("one JSON object a line");
        assert!(request["requestId"].is_string() && request.get("requestBody").is_some(), "{line}");
    }
    for secret in [pan, &pan[4..], webhook_secret.as_str(), subscriber.token.as_str()] {
        assert!(!export.contains(secret), "{secret} in the export");
        assert_nowhere_stored(&server, secret);
    }
}

#[test]
fn the_history_is_filtered_paged_and_survives_a_restart() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let other = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PANS[1]);
    for _ in 0..3 {
        send(subscriber.auth(server.get(&format!("/card/{card_id}"))));
    }
    let (status, _) = send(subscriber.auth(server.get("/card/999999999")));
    assert_eq!(status, 404);
    send(other.auth(server.get("/card")));

    let all = history(&server, &subscriber, "");
    assert_eq!(all["requests"].as_array().expect("requests").len(), 5, "{all}");
    assert!(
        listed(&all).iter().all(|(_, path, _)| path != "/subscriber/requests"),
        "not the reads of the history itself"
    );
    let failed = history(&server, &subscriber, "?status=4xx");
    assert_eq!(listed(&failed), [("GET".to_owned(), "/card/999999999".to_owned(), 404)]);
    assert_eq!(failed["requests"][0]["code"], "not_found");
    assert_eq!(listed(&history(&server, &subscriber, "?status=404")).len(), 1);
    let of_route = history(&server, &subscriber, "?route=/card/{card_id}");
    assert_eq!(listed(&of_route).len(), 4, "{of_route}");
    let bare = history(&server, &subscriber, &format!("?objectId={card_id}"));
    assert_eq!(listed(&bare).len(), 4, "the enrolment and three reads: {bare}");
    assert_eq!(listed(&history(&server, &subscriber, &format!("?objectId=cardId:{card_id}"))), listed(&bare));
    let request_id = all["requests"][0]["requestId"].as_str().expect("requestId");
    assert_eq!(listed(&history(&server, &subscriber, &format!("?requestId={request_id}"))).len(), 1);
    assert_eq!(listed(&history(&server, &subscriber, "?to=2020-01-01")).len(), 0);
    assert_eq!(listed(&history(&server, &subscriber, "?from=2020-01-01&route=/card/{card_id}")).len(), 4);

    // Pages of two, newest first, to the end.
    let mut seen = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = history(&server, &subscriber, &format!("?limit=2&cursor={cursor}&route=/card/{{card_id}}"));
        seen.extend(page["requests"].as_array().expect("requests").iter().map(|request| request["requestId"].clone()));
        match page["nextCursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
    }
    let newest_first: Vec<Value> =
        of_route["requests"].as_array().expect("requests").iter().map(|request| request["requestId"].clone()).collect();
    assert_eq!(seen, newest_first);

    // Bad filters: a clear 400, nothing else.
    for query in ["?status=6xx", "?status=teapot", "?from=yesterday", "?cursor=abc", "?limit=0", "?objectId=a%20b"] {
        let (status, body) = send(subscriber.auth(server.get(&format!("/subscriber/requests{query}"))));
        assert_error(status, &body, 400, "invalid_request");
    }
    // Another subscriber's request is not found by its id.
    let (status, body) = send(other.auth(server.get(&format!("/subscriber/requests/{request_id}"))));
    assert_error(status, &body, 404, "not_found");
    assert_eq!(listed(&history(&server, &other, "?route=/card")).len(), 1, "only its own");

    let (dir, database) = server.stop();
    let server = TestServer::spawn_on(dir, database, "127.0.0.1:0", &[]);
    let subscriber = Subscriber { token: relogin(&server, &subscriber), ..subscriber };
    let again = history(&server, &subscriber, "");
    let before: Vec<(String, String, u64)> = listed(&all);
    let after = listed(&again);
    assert!(after.ends_with(&before), "the requests before the restart are still there:\n{after:?}\n{before:?}");
}

fn relogin(server: &TestServer, subscriber: &Subscriber) -> String {
    let (status, body) =
        send(server.post("/subscriber/login", &json!({ "email": subscriber.email, "api_key": subscriber.secret })));
    assert_eq!(status, 200, "{body}");
    body["token"].as_str().expect("token").to_owned()
}

#[test]
fn a_removed_card_leaves_no_body_in_the_history() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PANS[2]);
    // Polled: the same answer three times, which the history keeps once for all three.
    for _ in 0..3 {
        send(subscriber.auth(server.get(&format!("/card/{card_id}"))));
    }
    let reads: Vec<String> = history(&server, &subscriber, &format!("?route=/card/{card_id}"))["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .map(|request| request["requestId"].as_str().expect("requestId").to_owned())
        .collect();
    assert_eq!(reads.len(), 3);
    let answers: Vec<Value> =
        reads.iter().map(|read| one(&server, &subscriber, read)["responseBody"].clone()).collect();
    assert!(answers[0].as_str().is_some_and(|answer| answer.contains(&format!("\"cardId\":{card_id}"))), "{answers:?}");
    assert!(answers.iter().all(|answer| *answer == answers[0]), "each read shows the answer: {answers:?}");
    let (status, body) = delete(&server, &subscriber, &format!("/card/{card_id}"));
    assert_eq!(status, 200, "{body}");
    for read in &reads {
        let after = one(&server, &subscriber, read);
        assert!(after["responseBody"].is_null() && after["requestBody"].is_null(), "{after}");
    }
    let enrolled = one(&server, &subscriber, &request_id_of(&server, &subscriber, "POST", "/card"));
    assert!(enrolled["requestBody"].is_null(), "{enrolled}");
}

#[test]
fn requests_older_than_the_history_keeps_are_gone() {
    let server = TestServer::spawn_with(&["--request-log-seconds", "2"]);
    let subscriber = server.subscriber();
    send(subscriber.auth(server.get("/card")));
    assert_eq!(listed(&history(&server, &subscriber, "")).len(), 1);
    std::thread::sleep(Duration::from_millis(2_500));
    let body = history(&server, &subscriber, "");
    assert_eq!(listed(&body), [], "all older than two seconds: {body}");
}

#[test]
fn both_instances_show_the_same_history() {
    let Some((first, second)) = two_instances() else { return };
    let subscriber = first.subscriber();
    for index in 0..6 {
        let server = if index % 2 == 0 { &first } else { &second };
        send(subscriber.auth(server.get("/card")));
    }
    // What the first wrote lands within moments on the second.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (from_first, from_second) =
            (history(&first, &subscriber, "?route=/card"), history(&second, &subscriber, "?route=/card"));
        if from_first == from_second && listed(&from_first).len() == 6 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{from_first}\n{from_second}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
