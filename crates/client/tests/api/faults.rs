//! Faults the real service does not produce on demand (500, malformed bodies, slowness, 429,
//! 503, dropped connections, a repeated cursor), from small local stub servers.

use std::sync::Arc;
use std::time::{Duration, Instant};
use subscriber_protocol::{CardId, ChoiceId, PersonId, QuestionId};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use futures::TryStreamExt;
use parking_lot::Mutex;
use serde_json::{Value, json};
use subscriber_client::protocol::VerifyPersonRequest;
use subscriber_client::{Client, Error, RetryPolicy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use subscriber_testkit::test_card;

/// Serves `router` on a free loopback port.
pub async fn stub(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let address = listener.local_addr().expect("bound");
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}")
}

/// Quick retries, so the tests stay short.
pub fn quick_retries() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        max_elapsed: Duration::from_secs(10),
        initial_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(40),
    }
}

pub fn client(base_url: &str) -> Client {
    Client::builder().base_url(base_url).token("stub-token").retry_policy(quick_retries()).build().expect("builds")
}

/// The request headers a stub saw, in order.
#[derive(Clone, Default)]
pub struct Seen(Arc<Mutex<Vec<HeaderMap>>>);

impl Seen {
    /// Records a request; returns how many came before it.
    pub fn record(&self, headers: &HeaderMap) -> usize {
        let mut seen = self.0.lock();
        seen.push(headers.clone());
        seen.len() - 1
    }

    pub fn count(&self) -> usize {
        self.0.lock().len()
    }

    pub fn header(&self, index: usize, name: &str) -> Option<String> {
        self.0.lock().get(index)?.get(name)?.to_str().ok().map(str::to_owned)
    }
}

pub fn card_json() -> Value {
    json!({"error": null, "cardId": 1, "lastFour": 4242, "firstName": "Ada", "lastName": "Lovelace",
        "expMonth": 12, "expYear": 2030, "enrolledAt": "20260101-1200", "brand": "Visa", "countryCode": "USA"})
}

fn error_json(code: &str, message: &str) -> Value {
    json!({"error": message, "code": code, "requestId": "req_stub"})
}

/// A canned answer: status, extra headers, body.
type Canned = (StatusCode, Vec<(&'static str, &'static str)>, String);

/// `GET /card/1` answering `answers[n]` to the n-th request (the last one from then on).
async fn card_stub(answers: Vec<Canned>) -> (String, Seen) {
    let seen = Seen::default();
    let recorder = seen.clone();
    let router = Router::new().route(
        "/card/1",
        get(move |headers: HeaderMap| {
            let index = recorder.record(&headers).min(answers.len() - 1);
            let (status, extra, body) = answers[index].clone();
            async move {
                let mut response = (status, [("content-type", "application/json")], body).into_response();
                for (name, value) in extra {
                    response.headers_mut().insert(name, value.parse().expect("header value"));
                }
                response
            }
        }),
    );
    (stub(router).await, seen)
}

#[tokio::test]
async fn a_server_error_is_returned_at_once_with_its_request_id() {
    let (base_url, seen) = card_stub(vec![(
        StatusCode::INTERNAL_SERVER_ERROR,
        vec![],
        error_json("internal", "internal error").to_string(),
    )])
    .await;
    let error = client(&base_url).card(CardId(1)).await.expect_err("500");
    let api = error.api().expect("the service's error");
    assert_eq!((api.status.as_u16(), api.code.as_str(), api.message.as_str()), (500, "internal", "internal error"));
    assert_eq!(api.request_id.as_deref(), Some("req_stub"));
    assert_eq!(seen.count(), 1, "a 500 is not a passing failure: not repeated");
}

#[tokio::test]
async fn a_body_of_the_wrong_shape_names_the_json_path() {
    let mut wrong = card_json();
    wrong["lastFour"] = json!("4242");
    let (base_url, _) = card_stub(vec![(StatusCode::OK, vec![("x-request-id", "req_shape")], wrong.to_string())]).await;
    match client(&base_url).card(CardId(1)).await {
        Err(Error::Decode { path, endpoint, request_id, .. }) => {
            assert_eq!(path, "lastFour");
            assert_eq!(endpoint, "GET /card/{card_id}");
            assert_eq!(request_id.as_deref(), Some("req_shape"));
        }
        other => panic!("expected a decode error, got {other:?}"),
    }

    let (base_url, _) = card_stub(vec![(StatusCode::OK, vec![], "{\"cardId\": 1, \"lastFour\":".to_owned())]).await;
    let error = client(&base_url).card(CardId(1)).await.expect_err("truncated JSON");
    assert!(matches!(error, Error::Decode { .. }), "{error:?}");
    assert!(error.to_string().contains("GET /card/{card_id}"), "{error}");
}

#[tokio::test]
async fn an_error_without_the_json_body_still_says_what_came() {
    let (base_url, _) = card_stub(vec![(StatusCode::NOT_FOUND, vec![], "<html>Not Found</html>".to_owned())]).await;
    let error = client(&base_url).card(CardId(1)).await.expect_err("404");
    let api = error.api().expect("an error status");
    assert_eq!((api.status.as_u16(), api.code.as_str()), (404, "unexpected_response"));
    assert!(api.message.contains("<html>Not Found</html>"), "{}", api.message);
}

#[tokio::test]
async fn passing_failures_are_retried_a_bounded_number_of_times() {
    let unavailable = error_json("unavailable", "try later").to_string();
    let (base_url, seen) = card_stub(vec![(StatusCode::SERVICE_UNAVAILABLE, vec![], unavailable.clone())]).await;
    let client = client(&base_url);
    let started = Instant::now();
    let error = client.card(CardId(1)).await.expect_err("always 503");
    assert_eq!(error.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    assert_eq!(seen.count(), 4, "max_attempts");
    assert_eq!(client.metrics().retries, 3);
    assert!(started.elapsed() < Duration::from_secs(2));

    let (base_url, seen) = card_stub(vec![
        (StatusCode::BAD_GATEWAY, vec![], "bad gateway".to_owned()),
        (StatusCode::GATEWAY_TIMEOUT, vec![], "gateway timeout".to_owned()),
        (StatusCode::OK, vec![], card_json().to_string()),
    ])
    .await;
    let card = crate::faults::client(&base_url).card(CardId(1)).await.expect("the third attempt succeeds");
    assert_eq!((card.card_id, card.last_four), (CardId(1), 4242));
    assert_eq!(seen.count(), 3);

    // The time budget bounds the retries too.
    let (base_url, seen) = card_stub(vec![(StatusCode::SERVICE_UNAVAILABLE, vec![], unavailable)]).await;
    let patient = Client::builder()
        .base_url(&base_url)
        .token("stub-token")
        .retry_policy(RetryPolicy { max_attempts: 100, max_elapsed: Duration::from_millis(300), ..quick_retries() })
        .build()
        .expect("builds");
    let started = Instant::now();
    patient.card(CardId(1)).await.expect_err("always 503");
    assert!(started.elapsed() < Duration::from_millis(600), "{:?}", started.elapsed());
    assert!(seen.count() < 100);
}

#[tokio::test]
async fn rate_limits_are_retried_after_retry_after() {
    let limited = error_json("rate_limited", "slow down").to_string();
    let (base_url, seen) = card_stub(vec![
        (StatusCode::TOO_MANY_REQUESTS, vec![("retry-after", "1")], limited.clone()),
        (StatusCode::OK, vec![], card_json().to_string()),
    ])
    .await;
    let client = client(&base_url);
    let started = Instant::now();
    client.card(CardId(1)).await.expect("the retry succeeds");
    assert!(started.elapsed() >= Duration::from_secs(1), "waited as Retry-After said: {:?}", started.elapsed());
    assert_eq!((seen.count(), client.metrics().retries), (2, 1));

    // A wait past the budget is not waited for: the caller gets the 429 and when to come back.
    let (base_url, seen) =
        card_stub(vec![(StatusCode::TOO_MANY_REQUESTS, vec![("retry-after", "120")], limited)]).await;
    let started = Instant::now();
    let error = crate::faults::client(&base_url).card(CardId(1)).await.expect_err("429");
    assert!(started.elapsed() < Duration::from_secs(1));
    let api = error.api().expect("the service's error");
    assert_eq!((api.status.as_u16(), api.code.as_str()), (429, "rate_limited"));
    assert_eq!(api.retry_after, Some(Duration::from_secs(120)));
    assert_eq!(seen.count(), 1);
}

#[tokio::test]
async fn slow_answers_time_out() {
    let seen = Seen::default();
    let recorder = seen.clone();
    let router = Router::new().route(
        "/card/1",
        get(move |headers: HeaderMap| {
            recorder.record(&headers);
            async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                axum::Json(card_json())
            }
        }),
    );
    let base_url = stub(router).await;
    let client = Client::builder()
        .base_url(&base_url)
        .token("stub-token")
        .request_timeout(Duration::from_millis(200))
        .retry_policy(RetryPolicy { max_attempts: 2, ..quick_retries() })
        .build()
        .expect("builds");
    let started = Instant::now();
    match client.card(CardId(1)).await {
        Err(Error::Transport { timed_out, endpoint, .. }) => {
            assert!(timed_out);
            assert_eq!(endpoint, "GET /card/{card_id}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(seen.count(), 2, "a read that timed out is repeated");
}

#[tokio::test]
async fn creating_posts_repeat_with_their_idempotency_key_and_unsafe_posts_never_repeat() {
    let seen = Seen::default();
    let recorder = seen.clone();
    let rotations = Seen::default();
    let rotation_recorder = rotations.clone();
    let router = Router::new()
        .route(
            "/card",
            post(move |headers: HeaderMap| {
                let index = recorder.record(&headers);
                async move {
                    // Two failing attempts per call, then success.
                    if index % 3 < 2 {
                        (StatusCode::SERVICE_UNAVAILABLE, axum::Json(error_json("unavailable", "later")))
                            .into_response()
                    } else {
                        let body = json!({"error": null, "message": "Card linked", "cardId": 7});
                        (StatusCode::CREATED, axum::Json(body)).into_response()
                    }
                }
            }),
        )
        .route(
            "/subscriber/secret/rotate",
            post(move |headers: HeaderMap| {
                rotation_recorder.record(&headers);
                async { (StatusCode::SERVICE_UNAVAILABLE, axum::Json(error_json("unavailable", "later"))) }
            }),
        )
        .route("/persons/verify", post(|| async { (StatusCode::BAD_GATEWAY, "bad gateway") }));
    let base_url = stub(router).await;
    let client = client(&base_url);

    for _ in 0..2 {
        let enrolled = client.enroll_card(&test_card("4242424242424242")).await.expect("the third attempt succeeds");
        assert_eq!(enrolled.card_id, CardId(7));
    }
    let keys: Vec<String> =
        (0..6).map(|index| seen.header(index, "idempotency-key").expect("a key on every attempt")).collect();
    assert!(keys[..3].iter().all(|key| *key == keys[0]), "one key across the retries of a call: {keys:?}");
    assert!(keys[3..].iter().all(|key| *key == keys[3]));
    assert_ne!(keys[0], keys[3], "a new call, a new key");
    for key in [&keys[0], &keys[3]] {
        let parsed = uuid::Uuid::parse_str(key).expect("a UUID");
        assert_eq!(parsed.get_version_num(), 4);
    }
    assert_eq!(seen.header(0, "content-type").as_deref(), Some("application/json"));

    let error = client.rotate_secret("sk_test_current").await.expect_err("503");
    assert_eq!(error.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    assert_eq!(rotations.count(), 1, "a rotation is never repeated");
    assert_eq!(rotations.header(0, "idempotency-key"), None);
    let verify = VerifyPersonRequest {
        person_id: PersonId(1),
        answers: vec![subscriber_client::protocol::Answer { question_id: QuestionId(1), choice_id: ChoiceId(2) }],
    };
    let before = client.metrics().requests;
    client.verify_person(&verify).await.expect_err("502");
    assert_eq!(client.metrics().requests, before + 1, "a verification is never repeated");
}

/// A raw HTTP server that closes the first `drops` connections without answering.
async fn dropping_stub(drops: usize, body: String) -> (String, Arc<Mutex<usize>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let address = listener.local_addr().expect("bound");
    let connections = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let index = {
                let mut count = counter.lock();
                *count += 1;
                *count
            };
            let body = body.clone();
            tokio::spawn(async move {
                let mut request = vec![0_u8; 8192];
                let _ = socket.read(&mut request).await;
                if index <= drops {
                    return;
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    (format!("http://{address}"), connections)
}

#[tokio::test]
async fn dropped_connections_are_retried_for_reads_only() {
    let (base_url, connections) = dropping_stub(2, card_json().to_string()).await;
    let card = client(&base_url).card(CardId(1)).await.expect("the third connection answers");
    assert_eq!(card.card_id, CardId(1));
    assert_eq!(*connections.lock(), 3);

    let (base_url, connections) = dropping_stub(1, json!({"error": null}).to_string()).await;
    let error = client(&base_url).rotate_secret("sk_test_current").await.expect_err("the connection dropped");
    assert!(matches!(error, Error::Transport { timed_out: false, .. }), "{error:?}");
    assert_eq!(*connections.lock(), 1, "the rotation may have happened: not repeated");
}

#[tokio::test]
async fn an_unreachable_service_is_a_transport_error_after_bounded_retries() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = listener.local_addr().expect("bound");
    drop(listener);
    let client = client(&format!("http://{address}"));
    let started = Instant::now();
    let error = client.cards().await.expect_err("nothing listens");
    assert!(matches!(error, Error::Transport { timed_out: false, .. }), "{error:?}");
    assert!(error.to_string().contains("GET /card"), "{error}");
    assert_eq!(client.metrics().retries, 3);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn paging_stops_on_a_repeated_cursor() {
    let seen = Seen::default();
    let recorder = seen.clone();
    let router = Router::new().route(
        "/card/1/transactions",
        get(move |headers: HeaderMap| {
            recorder.record(&headers);
            // A faulty service: every page points at the same next page.
            async { axum::Json(json!({"error": null, "transactions": [], "nextCursor": "c1"})) }
        }),
    );
    let base_url = stub(router).await;
    let pages: Vec<_> =
        client(&base_url).card_transactions(CardId(1)).limit(2).pages().try_collect().await.expect("pages");
    assert_eq!(pages.len(), 2, "the first page and the one its cursor points to; then the repeat stops it");
    assert_eq!(seen.count(), 2);
}

#[tokio::test]
async fn callers_waiting_for_a_failed_login_share_its_answer() {
    let logins = Seen::default();
    let recorder = logins.clone();
    let router = Router::new().route(
        "/subscriber/login",
        post(move |headers: HeaderMap| {
            recorder.record(&headers);
            async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let body = error_json("invalid_credentials", "the e-mail address or the API key is wrong");
                (StatusCode::UNAUTHORIZED, axum::Json(body))
            }
        }),
    );
    let base_url = stub(router).await;
    let client = Client::builder()
        .base_url(&base_url)
        .credentials("dev@example.com", "sk_test_wrong")
        .retry_policy(quick_retries())
        .build()
        .expect("builds");
    let calls = (0..8).map(|_| {
        let client = client.clone();
        async move { client.cards().await }
    });
    for result in futures::future::join_all(calls).await {
        let error = result.expect_err("cannot log in");
        assert_eq!(error.code(), Some("invalid_credentials"));
    }
    assert_eq!(logins.count(), 1, "one login attempt for all the callers waiting on it");
    // A later call tries again.
    client.cards().await.expect_err("still wrong");
    assert_eq!(logins.count(), 2);
}

#[tokio::test]
async fn requests_name_the_client_and_reuse_their_connection() {
    let peers = Arc::new(Mutex::new(Vec::new()));
    let recorder = Arc::clone(&peers);
    let seen = Seen::default();
    let headers_recorder = seen.clone();
    let router = Router::new().route(
        "/card/1",
        get(
            move |axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
                  headers: HeaderMap| {
                recorder.lock().push(peer);
                headers_recorder.record(&headers);
                async { axum::Json(card_json()) }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let address = listener.local_addr().expect("bound");
    tokio::spawn(async move {
        axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>()).await
    });
    let client = Client::builder()
        .base_url(format!("http://{address}"))
        .token("stub-token")
        .user_agent("dashboard/2.0")
        .build()
        .expect("builds");
    for _ in 0..5 {
        client.card(CardId(1)).await.expect("a card");
    }
    let peers = peers.lock().clone();
    assert_eq!(peers.len(), 5);
    assert!(peers.iter().all(|peer| *peer == peers[0]), "one connection for all: {peers:?}");
    let agent = seen.header(0, "user-agent").expect("a user agent");
    assert_eq!(agent, format!("dashboard/2.0 subscriber-client/{}", env!("CARGO_PKG_VERSION")));
    assert_eq!(seen.header(0, "accept").as_deref(), Some("application/json"));
    assert_eq!(seen.header(0, "idempotency-key"), None, "reads carry no key");
}
