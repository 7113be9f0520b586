use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use serde_json::json;

use crate::helpers::{TestServer, assert_error, assert_nowhere_stored, read, send};

/// The subscriber still logs in from 127.0.0.2: a guesser's wrong secrets are refused, never
/// the account.
fn assert_logs_in_from_another_address(server: &TestServer, right: &serde_json::Value) {
    let elsewhere = reqwest::blocking::Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)))
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client on 127.0.0.2");
    let (status, body) = send(elsewhere.post(server.url("/subscriber/login")).json(right));
    assert_eq!(status, 200, "the subscriber still logs in from another address: {body}");
}

#[test]
fn brute_force_logins_are_refused_after_the_threshold_but_not_from_elsewhere() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let wrong = json!({ "email": subscriber.email, "api_key": "sk_test_guess" });
    // Fewer than the 100 signup and login requests an address may make at once: every 429
    // here is the failed-login limit's.
    let mut statuses = Vec::with_capacity(60);
    let mut retry_after = None;
    for _ in 0..60 {
        let response = server.post("/subscriber/login", &wrong).send().expect("sent");
        if response.status() == 429 {
            retry_after =
                response.headers().get("retry-after").and_then(|value| value.to_str().ok()).map(str::to_owned);
        }
        let (status, body) = read(response);
        if status == 429 {
            assert_error(status, &body, 429, "rate_limited");
        }
        statuses.push(status);
    }
    let first_refusal = statuses.iter().position(|status| *status == 429).expect("refused at some point");
    assert_eq!(first_refusal, 10, "ten failures are allowed per 15 minutes");
    assert!(statuses[..first_refusal].iter().all(|status| *status == 401));
    assert!(statuses[first_refusal..].iter().all(|status| *status == 429), "every later guess is refused");
    let seconds: u64 = retry_after.expect("Retry-After").parse().expect("seconds");
    assert!((1..=900).contains(&seconds), "{seconds}");

    let right = json!({ "email": subscriber.email, "api_key": subscriber.secret });
    let (status, body) = send(server.post("/subscriber/login", &right));
    assert_eq!(status, 200, "the limits refuse wrong secrets, never the right one: {body}");
    assert_logs_in_from_another_address(&server, &right);
}

#[test]
fn a_crash_and_restart_do_not_forgive_a_guesser() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let wrong = json!({ "email": subscriber.email, "api_key": "sk_test_guess" });
    for attempt in 0..10 {
        let (status, body) = send(server.post("/subscriber/login", &wrong));
        assert_eq!(status, 401, "guess {attempt}: {body}");
    }
    let (status, body) = send(server.post("/subscriber/login", &wrong));
    assert_error(status, &body, 429, "rate_limited");
    // Guesses at an e-mail nobody has: counted as well, and kept without the address itself.
    let unknown = "nobody-guessed-7731@example.com";
    for _ in 0..3 {
        let (status, _) =
            send(server.post("/subscriber/login", &json!({ "email": unknown, "api_key": "sk_test_guess" })));
        assert!(status == 401 || status == 429, "{status}");
    }

    let (dir, database) = server.kill_hard();
    let server = TestServer::spawn_on(dir, database, "127.0.0.1:0", &[]);
    let (status, body) = send(server.post("/subscriber/login", &wrong));
    assert_error(status, &body, 429, "rate_limited");
    let right = json!({ "email": subscriber.email, "api_key": subscriber.secret });
    assert_nowhere_stored(&server, unknown);
    assert_logs_in_from_another_address(&server, &right);
}

#[test]
fn each_subscriber_has_its_own_request_budget() {
    let server = TestServer::spawn_with(&["--rate-limit", "2", "--rate-limit-burst", "5"]);
    let greedy = server.subscriber();
    let modest = server.subscriber();
    let mut limited = None;
    for _ in 0..30 {
        let response = greedy.auth(server.get("/card")).send().expect("sent");
        assert!(response.headers().contains_key("ratelimit-limit"));
        if response.status() == 429 {
            limited = Some(response);
            break;
        }
    }
    let response = limited.expect("the greedy subscriber is limited");
    let retry_after: u64 = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse().ok())
        .expect("Retry-After");
    assert!(retry_after >= 1);
    assert_eq!(response.headers().get("ratelimit-remaining").and_then(|value| value.to_str().ok()), Some("0"));
    let (status, body) = read(response);
    assert_error(status, &body, 429, "rate_limited");
    let (status, _) = send(modest.auth(server.get("/card")));
    assert_eq!(status, 200, "another subscriber is not affected");
    std::thread::sleep(Duration::from_secs(retry_after));
    let (status, _) = send(greedy.auth(server.get("/card")));
    assert_eq!(status, 200, "the budget refills");
}

#[test]
fn responses_carry_security_headers() {
    let server = TestServer::spawn();
    let response = server.get("/nowhere").send().expect("sent");
    let headers = response.headers();
    assert_eq!(headers.get("x-content-type-options").and_then(|value| value.to_str().ok()), Some("nosniff"));
    assert_eq!(headers.get("x-frame-options").and_then(|value| value.to_str().ok()), Some("DENY"));
    assert_eq!(headers.get("cache-control").and_then(|value| value.to_str().ok()), Some("no-store"));
    assert!(headers.get("content-security-policy").is_some());
}

#[test]
fn two_instances_on_one_database_count_the_same_failed_logins() {
    let first = TestServer::spawn();
    let second = first.another_instance(&[]);
    let subscriber = first.subscriber();
    let wrong = json!({ "email": subscriber.email, "api_key": "sk_test_guess" });
    for attempt in 0..10 {
        let server = if attempt % 2 == 0 { &first } else { &second };
        let (status, body) = send(server.post("/subscriber/login", &wrong));
        assert_eq!(status, 401, "guess {attempt}: {body}");
    }
    for server in [&first, &second] {
        let (status, body) = send(server.post("/subscriber/login", &wrong));
        assert_error(status, &body, 429, "rate_limited");
    }
}
