//! Real-time streams: reconnection with `Last-Event-ID` after a dropped or silent connection
//! (stub servers), and the real service restarted under a listening client.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::time::Duration;
use subscriber_protocol::CardId;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::{StreamExt, stream};
use serde_json::json;
use subscriber_client::Client;
use subscriber_client::protocol::{CardTransaction, SandboxTransactionRequest};

use crate::faults::{Seen, quick_retries, stub};
use subscriber_testkit::{TestService, test_card};

fn transaction(id: i64) -> String {
    json!({"transactionId": id, "createdAt": "2026-01-01T12:00:00Z", "pending": true, "amount": 1.5,
        "currency": "USD", "merchantName": "Blue Bottle Coffee", "street": "Mint Plaza", "streetNo": "66",
        "city": "San Francisco", "country": "USA", "zip": "94103", "category": "5814 Fast Food Restaurants",
        "descriptor": "BLUE BOTTLE COFFEE SAN", "cardId": 1})
    .to_string()
}

fn event(id: i64) -> String {
    format!("event: transaction\nid: {id}\ndata: {}\n\n", transaction(id))
}

/// An event stream made of `chunks`, then kept open (`hang`) or closed.
fn event_stream(chunks: Vec<String>, hang: bool) -> Response {
    let chunks = stream::iter(chunks.into_iter().map(|chunk| Ok::<_, Infallible>(Bytes::from(chunk))));
    let body = if hang { Body::from_stream(chunks.chain(stream::pending())) } else { Body::from_stream(chunks) };
    ([("content-type", "text/event-stream")], body).into_response()
}

/// A stub whose n-th connection gets `connections[n]`.
async fn sse_stub(connections: Vec<(Vec<String>, bool)>) -> (String, Seen) {
    let seen = Seen::default();
    let recorder = seen.clone();
    let router = Router::new().route(
        "/card/1/transactions/stream",
        get(move |headers: HeaderMap| {
            let index = recorder.record(&headers);
            let answer = connections.get(index).cloned();
            async move {
                match answer {
                    Some((chunks, hang)) => event_stream(chunks, hang),
                    None => event_stream(Vec::new(), true),
                }
            }
        }),
    );
    (stub(router).await, seen)
}

fn stream_client(base_url: &str) -> Client {
    Client::builder()
        .base_url(base_url)
        .token("stub-token")
        .retry_policy(quick_retries())
        .stream_idle_timeout(Duration::from_millis(400))
        .build()
        .expect("builds")
}

async fn take(stream: &mut subscriber_client::TransactionStream<CardTransaction>, count: usize) -> Vec<i64> {
    let mut ids = Vec::new();
    while ids.len() < count {
        let item = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("an event in time")
            .expect("the stream goes on")
            .expect("a transaction");
        ids.push(item.transaction_id.get());
    }
    ids
}

#[tokio::test]
async fn a_dropped_stream_resumes_after_the_last_event_delivered() {
    let (base_url, seen) = sse_stub(vec![
        (
            vec![
                ": keep-alive\n\n".to_owned(),
                event(1),
                format!("event: transaction\nid: 2\ndata: {}\n", transaction(2)),
                "\n".to_owned(),
                // Cut in the middle of event 3: it must not be delivered half, nor skipped.
                "event: transaction\nid: 3\ndata: {\"transactionId\": 3, \"createdAt\"".to_owned(),
            ],
            false,
        ),
        (vec![event(3), "event: ping\ndata: {}\n\n".to_owned(), event(4)], true),
    ])
    .await;
    let client = stream_client(&base_url);
    let mut stream = client.card_transaction_stream(CardId(1));
    assert_eq!(take(&mut stream, 4).await, [1, 2, 3, 4]);
    assert_eq!(seen.count(), 2);
    assert_eq!(seen.header(0, "last-event-id"), None);
    assert_eq!(seen.header(1, "last-event-id").as_deref(), Some("2"));
    assert_eq!(seen.header(1, "accept").as_deref(), Some("text/event-stream"));
    assert_eq!(seen.header(1, "authorization").as_deref(), Some("Bearer stub-token"));
    assert_eq!(client.metrics().stream_reconnects, 1);
}

#[tokio::test]
async fn a_silent_stream_reconnects_after_the_idle_timeout() {
    let (base_url, seen) = sse_stub(vec![(vec![event(10)], true), (vec![event(11)], true)]).await;
    let client = stream_client(&base_url);
    let mut stream = client.card_transaction_stream_after(CardId(1), Some("9".to_owned()));
    assert_eq!(take(&mut stream, 2).await, [10, 11]);
    assert_eq!(seen.header(0, "last-event-id").as_deref(), Some("9"), "resumes where the caller says");
    assert_eq!(seen.header(1, "last-event-id").as_deref(), Some("10"));
}

#[tokio::test]
async fn the_stream_says_when_it_is_connected() {
    let (base_url, _) = sse_stub(vec![(vec![event(1)], false), (vec![event(2)], true)]).await;
    let client = stream_client(&base_url);
    let mut stream = client.card_transaction_stream(CardId(1));
    let mut connected = stream.connected();
    assert!(!*connected.borrow_and_update(), "nothing is open before the first poll");
    assert_eq!(take(&mut stream, 1).await, [1]);
    assert!(*connected.borrow_and_update(), "open once the service answered");
    // The first connection closes after event 1: the stream reconnects and delivers event 2.
    assert_eq!(take(&mut stream, 1).await, [2]);
    assert!(*connected.borrow_and_update(), "open again after reconnecting");
    drop(stream);
    assert!(connected.changed().await.is_err(), "a dropped stream ends the signal");
}

#[tokio::test]
async fn a_stream_the_service_refuses_ends_with_the_error() {
    let router = Router::new().route(
        "/card/1/transactions/stream",
        get(|| async {
            let body = json!({"error": "no card 1", "code": "not_found", "requestId": "req_sse"});
            (StatusCode::NOT_FOUND, axum::Json(body))
        }),
    );
    let base_url = stub(router).await;
    let mut stream = stream_client(&base_url).card_transaction_stream(CardId(1));
    let error = stream.next().await.expect("one item").expect_err("refused");
    assert_eq!((error.status().map(|status| status.as_u16()), error.code()), (Some(404), Some("not_found")));
    assert!(!*stream.connected().borrow(), "a refused stream is not connected");
    assert!(stream.next().await.is_none(), "and then ends");
}

#[tokio::test]
async fn a_stream_gives_up_after_too_many_failed_reconnections() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = listener.local_addr().expect("bound");
    drop(listener);
    let client = Client::builder()
        .base_url(format!("http://{address}"))
        .token("stub-token")
        .retry_policy(quick_retries())
        .stream_reconnect_attempts(3)
        .build()
        .expect("builds");
    let mut stream = client.card_transaction_stream(CardId(1));
    let item = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.expect("gives up in time");
    assert!(matches!(item, Some(Err(subscriber_client::Error::Transport { .. }))), "{item:?}");
    assert!(stream.next().await.is_none());
}

/// The real service stopped and started again on the same database and port under a listening
/// client: every transaction still arrives, those made while it was away included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_survives_a_service_restart() {
    let mut service = TestService::start().await;
    let (client, _) = service.subscriber("restart@example.com").await;
    let card_id = client.enroll_card(&test_card("4242424242424242")).await.expect("enrolled").card_id;
    let mut stream = client.card_transaction_stream(card_id);
    let (sender, mut received) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(item) = stream.next().await {
            if sender.send(item).is_err() {
                break;
            }
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;

    let sale = |amount: f64| {
        let client = client.clone();
        async move {
            let request =
                SandboxTransactionRequest { card_id: Some(card_id), amount: Some(amount), ..Default::default() };
            client.create_sandbox_transaction(&request).await.expect("a sale").transaction_id
        }
    };
    let mut expected = BTreeSet::new();
    for amount in [1.0, 2.0, 3.0] {
        expected.insert(sale(amount).await);
    }
    let mut seen = BTreeSet::new();
    while !expected.is_subset(&seen) {
        let item = tokio::time::timeout(Duration::from_secs(10), received.recv()).await.expect("in time");
        seen.insert(item.expect("stream open").expect("a transaction").transaction_id);
    }

    service.restart().await;
    for amount in [4.0, 5.0, 6.0] {
        expected.insert(sale(amount).await);
    }
    while !expected.is_subset(&seen) {
        let item = tokio::time::timeout(Duration::from_secs(20), received.recv()).await.unwrap_or_else(|_| {
            panic!("missing after the restart: {:?}", expected.difference(&seen).collect::<Vec<_>>())
        });
        seen.insert(item.expect("stream open").expect("a transaction").transaction_id);
    }
    assert!(client.metrics().stream_reconnects >= 1);
}
