//! A real webhook receiver: axum on `127.0.0.1:0`, on a thread of its own (so blocking and
//! async tests use it alike). It records every request it gets (as it arrives), and can fail
//! the first ones, answer slowly (all, or the first ones), or answer one status always.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub headers: HeaderMap,
    pub body: Bytes,
    /// What the receiver answered.
    pub answered: u16,
}

impl Delivery {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|value| value.to_str().ok()).unwrap_or_default()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a delivery's body is JSON")
    }
}

/// How a receiver answers.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// Answers 500 to this many requests first.
    pub fail_first: usize,
    /// Waits this long before each answer (before the first `slow_first` only, when set).
    pub delay: Duration,
    pub slow_first: Option<usize>,
    /// Answers this status (and `Retry-After`, if given) to every request after the failing ones.
    pub status: Option<u16>,
    pub retry_after: Option<String>,
}

struct Shared {
    answers: Answers,
    seen: AtomicUsize,
    sender: Mutex<mpsc::Sender<Delivery>>,
}

pub struct WebhookReceiver {
    address: SocketAddr,
    deliveries: Arc<Mutex<mpsc::Receiver<Delivery>>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl WebhookReceiver {
    /// A receiver that answers 200 to everything.
    pub fn start() -> Self {
        Self::failing_first(0)
    }

    /// A receiver that answers 500 to its first `count` requests, then 200.
    pub fn failing_first(count: usize) -> Self {
        Self::answering(Answers { fail_first: count, ..Answers::default() })
    }

    /// A receiver that answers 200 after `delay`.
    pub fn slow(delay: Duration) -> Self {
        Self::answering(Answers { delay, ..Answers::default() })
    }

    pub fn answering(answers: Answers) -> Self {
        let (sender, receiver) = mpsc::channel();
        let shared = Arc::new(Shared { answers, seen: AtomicUsize::new(0), sender: Mutex::new(sender) });
        let (address_tx, address_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
                address_tx.send(listener.local_addr().expect("bound")).expect("the test waits");
                let app = Router::new().route("/{*path}", post(receive)).route("/", post(receive)).with_state(shared);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stop_rx.await;
                    })
                    .await;
            });
        });
        let address = address_rx.recv_timeout(Duration::from_secs(10)).expect("the receiver starts");
        Self { address, deliveries: Arc::new(Mutex::new(receiver)), _stop: stop_tx }
    }

    /// The URL to register (`http://127.0.0.1:<port>/hooks`).
    pub fn url(&self) -> String {
        format!("http://{}/hooks", self.address)
    }

    /// The next request within `timeout`, blocking.
    pub fn next(&self, timeout: Duration) -> Option<Delivery> {
        self.deliveries.lock().expect("not poisoned").recv_timeout(timeout).ok()
    }

    /// The next request within `timeout`, for async tests.
    pub async fn next_async(&self, timeout: Duration) -> Option<Delivery> {
        let deliveries = Arc::clone(&self.deliveries);
        tokio::task::spawn_blocking(move || deliveries.lock().expect("not poisoned").recv_timeout(timeout).ok())
            .await
            .expect("the wait ends")
    }

    /// The next request this receiver accepted (answered 200), skipping failed ones.
    pub fn next_accepted(&self, timeout: Duration) -> Option<Delivery> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let delivery = self.next(deadline.saturating_duration_since(std::time::Instant::now()))?;
            if delivery.answered == 200 {
                return Some(delivery);
            }
        }
    }
}

async fn receive(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let seen = shared.seen.fetch_add(1, Ordering::SeqCst);
    let answers = &shared.answers;
    let status = if seen < answers.fail_first {
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        answers.status.and_then(|status| StatusCode::from_u16(status).ok()).unwrap_or(StatusCode::OK)
    };
    let delivery = Delivery { headers, body, answered: status.as_u16() };
    let _ = shared.sender.lock().expect("not poisoned").send(delivery);
    if answers.slow_first.is_none_or(|slow| seen < slow) {
        tokio::time::sleep(answers.delay).await;
    }
    match &answers.retry_after {
        Some(after) if status != StatusCode::OK => (status, [("retry-after", after.clone())]).into_response(),
        _ => status.into_response(),
    }
}
