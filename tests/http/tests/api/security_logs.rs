//! What a client can make the service write down, tried from outside: forged log lines
//! (finding 10), card numbers split by any separator (11), the request log's bounds per
//! subscriber (7; its days: `request_history`), and the request id on every JSON line of a
//! request, its error line included.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{TEST_PAN, TestServer, card_json, send};

/// The server's log once a line containing `needle` has appeared.
fn log_with(server: &TestServer, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let log = server.log();
        if log.contains(needle) {
            return log;
        }
        assert!(Instant::now() < deadline, "no log line with {needle:?}:\n{log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `%0D%0A` in an unrouted path once started a forged line in the text log; an escape sequence
/// coloured the terminal. In both formats they are written escaped.
#[test]
fn a_path_cannot_forge_a_log_line() {
    let forged = "/x%0D%0AWARN%20forged%20line%1B[31m%0A";
    for format in ["text", "json"] {
        let server = TestServer::spawn_with(&["--log-format", format]);
        let (status, _) = send(server.get(forged));
        assert_eq!(status, 404);
        let log = log_with(&server, "forged line");
        for line in log.lines() {
            assert!(!line.starts_with("WARN"), "{format}: a forged line: {line:?}");
            assert!(!line.contains('\u{1b}'), "{format}: a raw escape sequence: {line:?}");
            if format == "json" {
                let parsed: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line:?}"));
                if let Some(route) = parsed["route"].as_str().filter(|route| route.contains("forged")) {
                    assert!(!route.contains('\n') && !route.contains('\r'), "{route:?}");
                    assert!(route.contains("\\r\\n"), "{route:?}");
                }
            }
        }
        let line = log.lines().find(|line| line.contains("forged line")).expect("the request's line");
        let route = match format {
            "json" => serde_json::from_str::<Value>(line).expect("JSON")["route"].as_str().expect("route").to_owned(),
            _ => line.to_owned(),
        };
        assert!(route.contains("/x\\r\\nWARN forged line\\u{1b}[31m\\n"), "{format}: written escaped: {line}");
    }
}

/// Separators a card number was once logged through in full: tabs, newlines, commas, colons,
/// semicolons, Unicode spaces, double percent-encoding.
const SPLIT_CARD_NUMBERS: [&str; 8] = [
    "/nowhere/4242%094242%094242%094242",
    "/nowhere/4242%0A4242%0A4242%0A4242",
    "/nowhere/4242,4242,4242,4242",
    "/nowhere/4242:4242:4242:4242",
    "/nowhere/4242;4242;4242;4242",
    "/nowhere/4242%E2%80%834242%C2%A04242%E2%80%AF4242",
    "/nowhere/4242%252D4242%252D4242%252D4242",
    "/card/4242%20/%204242%20/%204242%20/%204242",
];

fn holds_card_number(text: &str) -> bool {
    text.lines().any(|line| line.chars().filter(char::is_ascii_digit).collect::<String>().contains(TEST_PAN))
}

/// A card number typed into a path never reaches the log, nor the request log, whatever
/// separates its digits.
#[test]
fn a_card_number_is_masked_whatever_separates_its_digits() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    for path in SPLIT_CARD_NUMBERS {
        let (status, body) = send(subscriber.auth(server.get(path)));
        assert_eq!(status, 404, "{path}: {body}");
        assert!(!holds_card_number(&body.to_string()), "{path} echoed: {body}");
        let (status, _) = send(server.get(path));
        assert_eq!(status, 404, "{path}");
    }
    let log = log_with(&server, "/card/");
    assert!(!holds_card_number(&log), "a card number reached the log:\n{log}");
    let (status, requests) = send(subscriber.auth(server.get("/subscriber/requests")));
    assert_eq!(status, 200);
    for request in requests["requests"].as_array().expect("requests") {
        let path = request["path"].as_str().expect("path");
        assert!(!holds_card_number(path), "a card number in the request log: {path:?}");
    }
}

/// The request log once kept 60 KB paths: now 1 KiB of a path, a page of at most 100, and one
/// subscriber's flood leaves another's history as it was.
#[test]
fn the_request_log_is_bounded_per_subscriber() {
    let server = TestServer::spawn();
    let quiet = server.subscriber();
    let (status, _) = send(quiet.auth(server.get("/card")));
    assert_eq!(status, 200);
    let flooder = server.subscriber();
    let long = format!("/x/{}", "a".repeat(60_000));
    for _ in 0..150 {
        let (status, _) = send(flooder.auth(server.get(&long)));
        assert_eq!(status, 404);
    }
    let (status, log) = send(flooder.auth(server.get("/subscriber/requests")));
    assert_eq!(status, 200);
    let kept = log["requests"].as_array().expect("requests");
    assert_eq!(kept.len(), 100, "a page of 100 unless asked");
    assert!(kept.iter().all(|request| request["path"].as_str().is_some_and(|path| path.len() <= 1024)));

    let (_, theirs) = send(quiet.auth(server.get("/subscriber/requests")));
    let paths: Vec<&str> = theirs["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter_map(|request| request["path"].as_str())
        .collect();
    assert_eq!(paths, ["/card"], "another subscriber's log is untouched");
}

/// A request that fails inside (its database table gone): the JSON log's error line of that
/// request carries its request id, as every line logged while serving it does.
#[test]
fn the_error_line_of_a_failed_request_carries_its_request_id() {
    let server = TestServer::spawn_with(&["--log-format", "json"]);
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/card", &card_json(TEST_PAN))));
    assert_eq!(status, 201, "{body}");
    break_the_cards_table(&server);

    let request_id = format!("fail-{}", uuid::Uuid::new_v4().simple());
    let (status, body) = send(subscriber.auth(server.get("/card")).header("x-request-id", &request_id));
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["requestId"], request_id.as_str());
    log_with(&server, "\"status\":500");
    let log = server.log();
    let lines: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .filter(|line: &Value| line["request_id"] == request_id.as_str())
        .collect();
    let error = lines.iter().find(|line| line["level"] == "ERROR").unwrap_or_else(|| panic!("no error line:\n{log}"));
    assert_eq!(error["route"], "/card", "{error}");
    assert_eq!(error["method"], "GET", "{error}");
    assert!(error["error"].as_str().is_some_and(|cause| !cause.is_empty()), "the cause is logged: {error}");
    assert!(lines.iter().any(|line| line["status"] == 500), "the access line: {lines:?}");
}

/// Renames the cards table under the running service, as a failing database would appear.
fn break_the_cards_table(server: &TestServer) {
    const RENAME: &str = "ALTER TABLE cards RENAME TO cards_gone";
    if server.on_postgres() {
        crate::helpers::psql(&server.database.display().to_string(), RENAME);
    } else {
        let connection = rusqlite::Connection::open(&server.database).expect("the database");
        connection.busy_timeout(Duration::from_secs(10)).expect("busy timeout");
        connection.execute_batch(RENAME).expect("renamed");
    }
}
