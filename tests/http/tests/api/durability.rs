use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::helpers::{TestServer, card_json, send};

/// The eight sandbox test cards: every subscriber enrolls each once.
const ALL_TEST_PANS: [&str; 8] = [
    "4242424242424242",
    "4000056655665556",
    "5555555555554444",
    "2223003122003222",
    "6011111111111117",
    "4000002760003184",
    "4000002500003155",
    "5200828282828210",
];

struct Enrollment {
    token: String,
    subscriber: usize,
    pan: &'static str,
    key: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Acknowledged(i64),
    Unanswered,
}

#[test]
fn a_crash_loses_no_acknowledged_enrollment_and_retries_create_no_duplicates() {
    // 125 sign-ups and logins in a row: the per-address credential limit would refuse them.
    let flags = ["--rate-limit", "0", "--credential-rate-limit", "0"];
    let server = TestServer::spawn_with(&flags);
    let subscribers: Vec<_> = (0..125).map(|_| server.subscriber()).collect();
    let enrollments: Vec<Enrollment> = subscribers
        .iter()
        .enumerate()
        .flat_map(|(index, subscriber)| {
            ALL_TEST_PANS.iter().map(move |pan| Enrollment {
                token: subscriber.token.clone(),
                subscriber: index,
                pan,
                key: uuid::Uuid::new_v4().to_string(),
            })
        })
        .collect();
    assert_eq!(enrollments.len(), 1000);
    let enrollments = Arc::new(enrollments);
    let outcomes: Arc<Mutex<HashMap<usize, Outcome>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let base_url = server.base_url.clone();

    let clients: Vec<_> = (0..32)
        .map(|_| {
            let (enrollments, outcomes, next, acknowledged, base_url) = (
                Arc::clone(&enrollments),
                Arc::clone(&outcomes),
                Arc::clone(&next),
                Arc::clone(&acknowledged),
                base_url.clone(),
            );
            std::thread::spawn(move || {
                let http =
                    reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().expect("client");
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(enrollment) = enrollments.get(index) else { break };
                    let response = http
                        .post(format!("{base_url}/card"))
                        .bearer_auth(&enrollment.token)
                        .header("Idempotency-Key", &enrollment.key)
                        .json(&card_json(enrollment.pan))
                        .send();
                    let outcome = match response {
                        Ok(response) if response.status() == 201 => {
                            let body: serde_json::Value = response.json().unwrap_or_default();
                            match body["cardId"].as_i64() {
                                Some(card_id) => {
                                    acknowledged.fetch_add(1, Ordering::SeqCst);
                                    Outcome::Acknowledged(card_id)
                                }
                                None => Outcome::Unanswered,
                            }
                        }
                        Ok(response) => panic!("enrollment refused before the crash: {}", response.status()),
                        Err(_) => Outcome::Unanswered,
                    };
                    outcomes.lock().expect("outcomes").insert(index, outcome);
                }
            })
        })
        .collect();

    while acknowledged.load(Ordering::SeqCst) < 300 {
        std::thread::sleep(Duration::from_millis(2));
    }
    let (dir, database) = server.kill_hard();
    for client in clients {
        client.join().expect("client thread");
    }
    let outcomes = outcomes.lock().expect("outcomes").clone();
    let acknowledged_count = outcomes.values().filter(|outcome| matches!(outcome, Outcome::Acknowledged(_))).count();
    let unanswered_count = 1000 - acknowledged_count;
    println!("before the crash: {acknowledged_count} acknowledged, {unanswered_count} unanswered or not sent");
    assert!(unanswered_count > 0, "the crash happened during the enrollments");

    let server = TestServer::spawn_on(dir, database, "127.0.0.1:0", &flags);
    for (index, outcome) in &outcomes {
        if let Outcome::Acknowledged(card_id) = outcome {
            let enrollment = &enrollments[*index];
            let (status, body) = send(server.get(&format!("/card/{card_id}")).bearer_auth(&enrollment.token));
            assert_eq!(status, 200, "acknowledged card {card_id} survived the crash: {body}");
            assert_eq!(body["lastFour"], enrollment.pan[12..].parse::<i64>().expect("digits"));
        }
    }
    for (index, enrollment) in enrollments.iter().enumerate() {
        let (status, body) = send(
            server
                .post("/card", &card_json(enrollment.pan))
                .bearer_auth(&enrollment.token)
                .header("Idempotency-Key", &enrollment.key),
        );
        assert_eq!(status, 201, "retry of enrollment {index} with its key: {body}");
        if let Some(Outcome::Acknowledged(card_id)) = outcomes.get(&index) {
            assert_eq!(body["cardId"], *card_id, "a retry of an acknowledged enrollment replays it");
        }
    }
    let mut tokens: Vec<(usize, &str)> = enrollments.iter().map(|e| (e.subscriber, e.token.as_str())).collect();
    tokens.dedup();
    for (subscriber, token) in tokens {
        let (status, body) = send(server.get("/card").bearer_auth(token));
        assert_eq!(status, 200);
        let cards = body["cards"].as_array().expect("cards");
        let last_fours: HashSet<i64> = cards.iter().filter_map(|card| card["lastFour"].as_i64()).collect();
        assert_eq!(cards.len(), ALL_TEST_PANS.len(), "subscriber {subscriber}: one card per test PAN, no duplicates");
        assert_eq!(last_fours.len(), ALL_TEST_PANS.len());
    }
}
