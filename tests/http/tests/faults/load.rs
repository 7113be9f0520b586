//! Clients that keep writing and reading while a fault is injected, and what they got.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{Subscriber, TEST_PAN, TestServer};

/// One answer a client got.
#[derive(Debug, Clone)]
pub struct Answer {
    pub at: Instant,
    pub took: Duration,
    /// 0: no HTTP answer at all (a transport error).
    pub status: u16,
    pub code: String,
    pub retry_after: bool,
    pub write: bool,
}

/// A client of the load: a subscriber with a card, on the instances' base URLs.
pub struct Tenant {
    pub subscriber: Subscriber,
    pub card_id: i64,
}

impl Tenant {
    pub fn new(server: &TestServer) -> Self {
        let subscriber = server.subscriber();
        let card_id = server.enroll_card(&subscriber, TEST_PAN);
        Self { subscriber, card_id }
    }
}

/// Load running on threads until [`Load::finish`].
pub struct Load {
    stop: Arc<AtomicBool>,
    answers: Arc<Mutex<Vec<Answer>>>,
    /// Transactions whose sale was acknowledged (201): (card id, transaction id).
    acknowledged: Arc<Mutex<Vec<(i64, i64)>>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    /// A thread per tenant, each alternating a sandbox sale (a write, with an Idempotency-Key)
    /// and a read of its card, on the instances in turn. `timeout` is the client's own.
    pub fn start(base_urls: &[String], tenants: Vec<Tenant>, timeout: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let answers: Arc<Mutex<Vec<Answer>>> = Arc::default();
        let acknowledged: Arc<Mutex<Vec<(i64, i64)>>> = Arc::default();
        let threads = tenants
            .into_iter()
            .enumerate()
            .map(|(index, tenant)| {
                let (stop, answers, acknowledged) =
                    (Arc::clone(&stop), Arc::clone(&answers), Arc::clone(&acknowledged));
                let base_urls = base_urls.to_vec();
                std::thread::spawn(move || {
                    let http = reqwest::blocking::Client::builder().timeout(timeout).build().expect("client");
                    let mut turn = index;
                    while !stop.load(Ordering::Relaxed) {
                        turn += 1;
                        let base = &base_urls[turn % base_urls.len()];
                        let write = turn % 2 == 0;
                        let request = if write {
                            http.post(format!("{base}/sandbox/transactions"))
                                .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
                                .json(&json!({ "cardId": tenant.card_id, "amount": 3.25 }))
                        } else {
                            http.get(format!("{base}/card/{}", tenant.card_id))
                        };
                        let started = Instant::now();
                        let answer = match tenant.subscriber.auth(request).send() {
                            Ok(response) => {
                                let status = response.status().as_u16();
                                let retry_after = response.headers().contains_key("retry-after");
                                let body: Value = response.json().unwrap_or_default();
                                if write && status == 201 {
                                    let id = body["transactionId"].as_i64().expect("a sale has its id");
                                    acknowledged.lock().expect("acknowledged").push((tenant.card_id, id));
                                }
                                Answer {
                                    at: started,
                                    took: started.elapsed(),
                                    status,
                                    code: body["code"].as_str().unwrap_or_default().to_owned(),
                                    retry_after,
                                    write,
                                }
                            }
                            Err(_) => Answer {
                                at: started,
                                took: started.elapsed(),
                                status: 0,
                                code: String::new(),
                                retry_after: false,
                                write,
                            },
                        };
                        let failed = answer.status >= 500 || answer.status == 0;
                        answers.lock().expect("answers").push(answer);
                        if failed {
                            // As a client honouring Retry-After would, briefly.
                            std::thread::sleep(Duration::from_millis(200));
                        }
                    }
                })
            })
            .collect();
        Self { stop, answers, acknowledged, threads }
    }

    /// Waits until every client's latest answer since `since` is a success, or `limit` passed;
    /// how long after `since` that was.
    pub fn recovered_after(&self, since: Instant, limit: Duration) -> Option<Duration> {
        loop {
            let answers = self.answers.lock().expect("answers");
            let after: Vec<&Answer> = answers.iter().filter(|answer| answer.at >= since).collect();
            // Recovery: a run of successes of every kind of request (a write and a read).
            let recent: Vec<&&Answer> = after.iter().rev().take(8).collect();
            if recent.len() == 8 && recent.iter().all(|answer| (200..300).contains(&answer.status)) {
                let first = after
                    .iter()
                    .rposition(|answer| !(200..300).contains(&answer.status))
                    .map_or(since, |last_failure| after.get(last_failure + 1).map_or(since, |answer| answer.at));
                return Some(first.saturating_duration_since(since));
            }
            drop(answers);
            if since.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the clients; every answer, and the acknowledged sales.
    pub fn finish(self) -> (Vec<Answer>, Vec<(i64, i64)>) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads {
            thread.join().expect("client thread");
        }
        let answers = self.answers.lock().expect("answers").clone();
        let acknowledged = self.acknowledged.lock().expect("acknowledged").clone();
        (answers, acknowledged)
    }
}

/// What the clients got, counted.
#[derive(Debug, Default)]
pub struct Tally {
    pub total: usize,
    pub ok: usize,
    pub unavailable_with_retry_after: usize,
    pub other_503: usize,
    pub internal: usize,
    pub timeouts_408: usize,
    pub transport: usize,
    pub other: usize,
    pub slowest_failure: Duration,
}

impl Tally {
    pub fn of<'a>(answers: impl IntoIterator<Item = &'a Answer>) -> Self {
        let mut tally = Self::default();
        for answer in answers {
            tally.total += 1;
            match answer.status {
                200..=299 => tally.ok += 1,
                503 if answer.retry_after && answer.code == "unavailable" => tally.unavailable_with_retry_after += 1,
                503 => tally.other_503 += 1,
                500 => tally.internal += 1,
                408 => tally.timeouts_408 += 1,
                0 => tally.transport += 1,
                _ => tally.other += 1,
            }
            if !(200..300).contains(&answer.status) {
                tally.slowest_failure = tally.slowest_failure.max(answer.took);
            }
        }
        tally
    }

    pub fn failed(&self) -> usize {
        self.total - self.ok
    }

    /// Asserts the contract of an outage: no 500, and at least 99% of the failures 503
    /// `unavailable` with `Retry-After`.
    /// The counts as the tests print them: how many requests, how many failed and how.
    pub fn summary(&self) -> String {
        format!(
            "{} requests, {} failed: {} 503 with Retry-After, {} other 503, {} 500, {} 408, {} without an answer; \
             slowest failure {:?}",
            self.total,
            self.failed(),
            self.unavailable_with_retry_after,
            self.other_503,
            self.internal,
            self.timeouts_408,
            self.transport,
            self.slowest_failure
        )
    }

    pub fn assert_outage_answers(&self, fault: &str) {
        assert_eq!(self.internal, 0, "{fault}: no 500 ever: {self:?}");
        assert!(self.failed() > 0, "{fault}: the fault was felt: {self:?}");
        let share = self.unavailable_with_retry_after as f64 / self.failed() as f64;
        assert!(share >= 0.99, "{fault}: {:.1}% of the failures were 503 with Retry-After: {self:?}", share * 100.0);
    }
}

/// The service recovered by itself within 10 s of the fault's end.
pub fn assert_recovered(fault: &str, recovered: Option<Duration>) {
    let recovered = recovered.unwrap_or_else(|| panic!("{fault}: the service did not recover by itself within 30 s"));
    assert!(recovered < Duration::from_secs(10), "{fault}: recovered within 10 s: {recovered:?}");
}
