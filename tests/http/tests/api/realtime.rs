//! The transaction streams, read as a plain HTTP client reads Server-Sent Events.

use std::io::{BufRead, BufReader};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{Subscriber, TEST_PAN, TestServer, assert_error, send};
use crate::merchants::{create_location, enroll_merchant};
use crate::sandbox::purchase;

const WAIT: Duration = Duration::from_secs(20);

/// One event as the wire carries it; comments come as `event == ":"`.
#[derive(Debug, Clone)]
struct SseEvent {
    event: String,
    id: Option<String>,
    data: String,
}

/// An open stream, read on its own thread.
pub(crate) struct EventStream {
    events: mpsc::Receiver<SseEvent>,
}

impl EventStream {
    pub(crate) fn open(server: &TestServer, subscriber: &Subscriber, path: &str, last_event_id: Option<&str>) -> Self {
        Self::open_at(server, subscriber, path, last_event_id, None)
    }

    /// As [`EventStream::open`], naming the API version (`Subscriber-Version`) when `version`.
    pub(crate) fn open_at(
        server: &TestServer,
        subscriber: &Subscriber,
        path: &str,
        last_event_id: Option<&str>,
        version: Option<&str>,
    ) -> Self {
        let client = reqwest::blocking::Client::builder().timeout(None).build().expect("client");
        let mut request = client.get(server.url(path)).bearer_auth(&subscriber.token);
        if let Some(version) = version {
            request = request.header("Subscriber-Version", version);
        }
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.send().expect("stream opens");
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
        assert!(content_type.starts_with("text/event-stream"), "{content_type}");
        let (sender, events) = mpsc::channel();
        std::thread::spawn(move || {
            let mut event = SseEvent { event: String::new(), id: None, data: String::new() };
            for line in BufReader::new(response).lines() {
                let Ok(line) = line else { return };
                if line.is_empty() {
                    if !event.data.is_empty() {
                        let complete = std::mem::replace(
                            &mut event,
                            SseEvent { event: String::new(), id: None, data: String::new() },
                        );
                        if sender.send(complete).is_err() {
                            return;
                        }
                    }
                    continue;
                }
                if let Some(comment) = line.strip_prefix(':') {
                    let comment = SseEvent { event: ":".to_owned(), id: None, data: comment.trim().to_owned() };
                    if sender.send(comment).is_err() {
                        return;
                    }
                    continue;
                }
                let (field, value) = line.split_once(':').unwrap_or((&line, ""));
                let value = value.strip_prefix(' ').unwrap_or(value);
                match field {
                    "event" => event.event = value.to_owned(),
                    "id" => event.id = Some(value.to_owned()),
                    "data" => {
                        if !event.data.is_empty() {
                            event.data.push('\n');
                        }
                        event.data.push_str(value);
                    }
                    _ => {}
                }
            }
        });
        Self { events }
    }

    /// The next `transaction` event as (id, data); comments are skipped.
    pub(crate) fn next_transaction(&self) -> (i64, Value) {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self.events.recv_timeout(left).unwrap_or_else(|error| panic!("no transaction event: {error}"));
            if event.event == ":" {
                continue;
            }
            assert_eq!(event.event, "transaction", "{event:?}");
            // The id is the event's, as GET /events lists it: "evt_" and a number that grows.
            let id = event
                .id
                .as_deref()
                .and_then(|id| id.strip_prefix("evt_"))
                .and_then(|id| id.parse().ok())
                .unwrap_or_else(|| panic!("id: {event:?}"));
            let data = serde_json::from_str(&event.data).unwrap_or_else(|_| panic!("data is JSON: {event:?}"));
            return (id, data);
        }
    }

    /// No transaction event arrives within `quiet`.
    fn assert_quiet(&self, quiet: Duration) {
        let deadline = Instant::now() + quiet;
        loop {
            match self.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(event) if event.event == ":" => continue,
                Ok(event) => panic!("unexpected event {event:?}"),
                Err(_) => return,
            }
        }
    }

    /// The server closed the stream.
    pub(crate) fn ended_within(&self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            match self.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(_) => continue,
                Err(RecvTimeoutError::Disconnected) => return true,
                Err(RecvTimeoutError::Timeout) => return false,
            }
        }
    }
}

pub(crate) struct Shop {
    pub(crate) subscriber: Subscriber,
    pub(crate) card_id: i64,
    pub(crate) merchant_id: i64,
    pub(crate) location_id: i64,
}

pub(crate) fn shop(server: &TestServer) -> Shop {
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let merchant_id = enroll_merchant(server, &subscriber, "Stream Cafe");
    let location_id = create_location(server, &subscriber, "Stream St");
    Shop { subscriber, card_id, merchant_id, location_id }
}

pub(crate) fn buy(server: &TestServer, shop: &Shop, amount: f64) -> i64 {
    let body = json!({"cardId": shop.card_id, "locationId": shop.location_id, "amount": amount});
    purchase(server, &shop.subscriber, &body)["transactionId"].as_i64().expect("transactionId")
}

/// A stream is one more way a transaction leaves the service: at each API version it writes a
/// transaction exactly as the list does at that version (the first version change that touches
/// a transaction fails this if the streams skip it).
#[test]
fn a_stream_writes_each_transaction_as_the_list_does_at_its_version() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "3600"]);
    let shop = shop(&server);
    for version in ["2026-11-21", "2026-12-01"] {
        let card_path = format!("/card/{}/transactions/stream", shop.card_id);
        let merchant_path = format!("/merchant/{}/transactions/stream", shop.merchant_id);
        let card_stream = EventStream::open_at(&server, &shop.subscriber, &card_path, None, Some(version));
        let merchant_stream = EventStream::open_at(&server, &shop.subscriber, &merchant_path, None, Some(version));
        let transaction_id = buy(&server, &shop, 12.5);
        for (stream, list) in [
            (&card_stream, format!("/card/{}/transactions", shop.card_id)),
            (&merchant_stream, format!("/merchant/{}/transactions", shop.merchant_id)),
        ] {
            let (_, streamed) = stream.next_transaction();
            let (status, page) = send(shop.subscriber.auth(server.get(&list)).header("Subscriber-Version", version));
            assert_eq!(status, 200, "{page}");
            let listed = page["transactions"]
                .as_array()
                .and_then(|items| items.iter().find(|item| item["transactionId"].as_i64() == Some(transaction_id)))
                .unwrap_or_else(|| panic!("{transaction_id} listed: {page}"));
            assert_eq!(&streamed, listed, "{list} at {version}");
        }
    }
}

/// A page is answered from memory while nothing changed: a sale and its settlement each show
/// on the very next read (the card's and the merchant's), as they do on the stream.
#[test]
fn a_page_read_again_shows_a_new_sale_and_then_its_settlement_at_once() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "1"]);
    let shop = shop(&server);
    let path = format!("/card/{}/transactions?limit=5", shop.card_id);
    let read = || {
        let (status, body) = send(shop.subscriber.auth(server.get(&path)));
        assert_eq!(status, 200, "{body}");
        body["transactions"].as_array().expect("transactions").clone()
    };
    let sales_path = format!("/merchant/{}/transactions?limit=5", shop.merchant_id);
    let sales = || send(shop.subscriber.auth(server.get(&sales_path))).1["transactions"].clone();
    let before = read();
    assert_eq!(read(), before, "nothing changed, the same page");
    assert_eq!(sales(), json!([]), "no sale at the merchant yet");
    let transaction_id = buy(&server, &shop, 7.25);
    assert_eq!(sales()[0]["transactionId"].as_i64(), Some(transaction_id), "the merchant's page too");
    let after = read();
    assert_eq!(after[0]["transactionId"].as_i64(), Some(transaction_id), "the sale is on top at once");
    assert_eq!(after[0]["pending"], true);
    assert_eq!(after[1..], before[..4], "the rest moved down by one");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let now = read();
        if now[0]["pending"] == false {
            assert_eq!(now[0]["transactionId"].as_i64(), Some(transaction_id));
            break;
        }
        assert!(std::time::Instant::now() < deadline, "settled within 15 s: {}", now[0]);
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn a_card_stream_sends_a_new_transaction_and_again_when_it_settles() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "1"]);
    let shop = shop(&server);
    let stream =
        EventStream::open(&server, &shop.subscriber, &format!("/card/{}/transactions/stream", shop.card_id), None);
    let transaction_id = buy(&server, &shop, 4.5);

    let (created_id, created) = stream.next_transaction();
    assert_eq!(created["transactionId"].as_i64(), Some(transaction_id));
    assert_eq!(created["pending"], true);
    assert_eq!(created["amount"], 4.5);
    assert_eq!(created["currency"], "USD");
    assert_eq!(created["cardId"].as_i64(), Some(shop.card_id));
    assert_eq!(created["merchantName"], "Stream Cafe");
    assert_eq!(created["street"], "Stream St");

    let (settled_id, settled) = stream.next_transaction();
    assert!(settled_id > created_id, "event ids grow: {created_id} then {settled_id}");
    assert_eq!(settled["transactionId"].as_i64(), Some(transaction_id));
    assert_eq!(settled["pending"], false);
    assert_eq!(settled["amount"], 4.5);
}

#[test]
fn a_merchant_stream_sends_purchases_at_every_location_with_the_cards_last_four() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "1"]);
    let shop = shop(&server);
    let path = format!("/merchant/{}/transactions/stream/", shop.merchant_id);
    let stream = EventStream::open(&server, &shop.subscriber, &path, None);
    let transaction_id = buy(&server, &shop, 19.99);

    let (created_id, created) = stream.next_transaction();
    assert_eq!(created["transactionId"].as_i64(), Some(transaction_id));
    assert_eq!(created["pending"], true);
    assert_eq!(created["lastFour"], 4242);
    assert_eq!(created["locationId"].as_i64(), Some(shop.location_id));
    assert_eq!(created["amount"], 19.99);
    assert_eq!(created["zip"], "94110");

    let (settled_id, settled) = stream.next_transaction();
    assert!(settled_id > created_id);
    assert_eq!(settled["transactionId"].as_i64(), Some(transaction_id));
    assert_eq!(settled["pending"], false);
    assert_eq!(settled["lastFour"], 4242);
}

#[test]
fn a_stream_sends_only_its_own_cards_transactions() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "3600"]);
    let shop = shop(&server);
    let other_card = server.enroll_card(&shop.subscriber, "6011111111111117");
    let stranger = server.subscriber();
    let stranger_card = server.enroll_card(&stranger, TEST_PAN);
    let stream =
        EventStream::open(&server, &shop.subscriber, &format!("/card/{}/transactions/stream", shop.card_id), None);

    purchase(&server, &shop.subscriber, &json!({"cardId": other_card, "locationId": shop.location_id}));
    purchase(&server, &stranger, &json!({"cardId": stranger_card}));
    let mine = buy(&server, &shop, 1.25);
    let (_, event) = stream.next_transaction();
    assert_eq!(event["transactionId"].as_i64(), Some(mine), "the other cards' purchases were not sent");
    stream.assert_quiet(Duration::from_millis(500));
}

#[test]
fn last_event_id_replays_what_the_client_missed() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "3600"]);
    let shop = shop(&server);
    let path = format!("/card/{}/transactions/stream", shop.card_id);
    let first_stream = EventStream::open(&server, &shop.subscriber, &path, None);
    let first = buy(&server, &shop, 1.0);
    let (seen_id, event) = first_stream.next_transaction();
    assert_eq!(event["transactionId"].as_i64(), Some(first));
    drop(first_stream);

    // Made while the client was away.
    let missed = [buy(&server, &shop, 2.0), buy(&server, &shop, 3.0)];

    let resumed = EventStream::open(&server, &shop.subscriber, &path, Some(&format!("evt_{seen_id}")));
    let mut last_id = seen_id;
    for expected in missed {
        let (id, event) = resumed.next_transaction();
        assert!(id > last_id, "ids grow");
        last_id = id;
        assert_eq!(event["transactionId"].as_i64(), Some(expected));
        assert_eq!(event["pending"], true);
    }
    // Then it follows live.
    let live = buy(&server, &shop, 4.0);
    let (id, event) = resumed.next_transaction();
    assert!(id > last_id);
    assert_eq!(event["transactionId"].as_i64(), Some(live), "nothing twice, nothing lost");

    // The query parameter, for clients that cannot set the header; the merchant stream too.
    let by_query = EventStream::open(&server, &shop.subscriber, &format!("{path}?lastEventId=evt_{seen_id}"), None);
    assert_eq!(by_query.next_transaction().1["transactionId"].as_i64(), Some(missed[0]));
    let merchant_path = format!("/merchant/{}/transactions/stream", shop.merchant_id);
    let merchant = EventStream::open(&server, &shop.subscriber, &merchant_path, Some(&format!("evt_{seen_id}")));
    let (_, event) = merchant.next_transaction();
    assert_eq!(event["transactionId"].as_i64(), Some(missed[0]));
    assert_eq!(event["lastFour"], 4242);
}

#[test]
fn a_stream_resumes_across_a_restart_of_the_service() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "3600"]);
    let shop = shop(&server);
    let path = format!("/card/{}/transactions/stream", shop.card_id);
    let stream = EventStream::open(&server, &shop.subscriber, &path, None);
    buy(&server, &shop, 1.0);
    let (seen_id, _) = stream.next_transaction();
    let missed = buy(&server, &shop, 2.0);

    let stopping = Instant::now();
    let (dir, database) = server.stop();
    assert!(
        stopping.elapsed() < Duration::from_secs(8),
        "SIGTERM ends open streams and the service (the helper kills it only after 10 s)"
    );
    assert!(stream.ended_within(Duration::from_secs(5)), "the open stream was closed at shutdown");

    let server = TestServer::spawn_on(dir, database, "127.0.0.1:0", &["--settle-after-seconds", "3600"]);
    let resumed = EventStream::open(&server, &shop.subscriber, &path, Some(&format!("evt_{seen_id}")));
    let (missed_id, event) = resumed.next_transaction();
    assert!(missed_id > seen_id);
    assert_eq!(event["transactionId"].as_i64(), Some(missed));
    let after_restart = buy(&server, &shop, 3.0);
    let (id, event) = resumed.next_transaction();
    assert!(id > missed_id, "ids keep growing after a restart");
    assert_eq!(event["transactionId"].as_i64(), Some(after_restart));
}

#[test]
fn streams_are_scoped_like_the_lists() {
    let server = TestServer::spawn();
    let shop = shop(&server);
    let stranger = server.subscriber();
    for path in [
        format!("/card/{}/transactions/stream", shop.card_id),
        format!("/merchant/{}/transactions/stream", shop.merchant_id),
        "/card/999999/transactions/stream".to_owned(),
        "/merchant/999999/transactions/stream".to_owned(),
        "/card/abc/transactions/stream".to_owned(),
    ] {
        let (status, body) = send(stranger.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
        let (status, body) = send(server.get(&path));
        assert_error(status, &body, 401, "unauthorized");
    }
    let path = format!("/card/{}/transactions/stream", shop.card_id);
    let (status, body) = send(shop.subscriber.auth(server.get(&path)).header("Last-Event-ID", "yesterday"));
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(body["details"][0]["field"], "Last-Event-ID");
    let (status, body) = send(shop.subscriber.auth(server.get(&format!("{path}?lastEventId=-3"))));
    assert_error(status, &body, 400, "invalid_request");
}

#[test]
fn a_stream_opens_with_a_comment_before_any_transaction() {
    let server = TestServer::spawn();
    let shop = shop(&server);
    let stream =
        EventStream::open(&server, &shop.subscriber, &format!("/card/{}/transactions/stream", shop.card_id), None);
    let first = stream.events.recv_timeout(WAIT).expect("something arrives at once");
    assert_eq!(first.event, ":", "a comment, which every SSE client ignores: {first:?}");
}
