//! Operating the service: the health and readiness probes a load balancer asks, the
//! Prometheus metrics on their own listener, and JSON log lines.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{TEST_PAN, TestServer, postgres_admin, psql, read, send};

fn metrics_address(server: &TestServer) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let log = server.log();
        if let Some(rest) = log.split("metrics on http://").nth(1) {
            return rest.split(['"', ' ', '/']).next().unwrap_or_default().to_owned();
        }
        assert!(Instant::now() < deadline, "no metrics address in the log:\n{log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn health_and_readiness_answer_without_credentials_and_outside_the_rate_limit() {
    // One request a second for everybody: the API is limited at once, the probes never.
    let server = TestServer::spawn_with(&["--rate-limit", "1", "--rate-limit-burst", "1"]);
    for _ in 0..20 {
        let (status, body) = send(server.get("/healthz"));
        assert_eq!((status, body), (200, json!({ "status": "ok" })));
        let (status, body) = send(server.get("/readyz"));
        assert_eq!((status, body.clone()), (200, json!({ "status": "ready" })), "{body}");
    }
    let limited = (0..5).map(|_| send(server.get("/openapi.json")).0).filter(|status| *status == 429).count();
    assert!(limited > 0, "the API itself is rate-limited");
}

#[test]
fn readiness_is_503_with_the_reason_when_the_database_file_is_gone_and_200_when_it_is_back() {
    let server = TestServer::spawn();
    let (status, _) = send(server.get("/readyz"));
    assert_eq!(status, 200);
    if server.on_postgres() {
        return readiness_follows_a_postgres_database_that_refuses_connections(&server);
    }
    // The pool's connections keep the renamed file open; readiness asks the path itself.
    let moved = server.database.with_extension("moved");
    std::fs::rename(&server.database, &moved).expect("database renamed");
    let (status, body) = send(server.get("/readyz"));
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "not_ready");
    let missing = body["missing"].as_array().expect("missing is a list");
    assert!(missing.iter().any(|reason| reason["check"] == "database"), "{body}");
    let directory = server.database.parent().expect("folder").display().to_string();
    assert!(!body.to_string().contains(&directory), "the body names no file: {body}");
    assert!(body["requestId"].is_string());
    // The process is still alive: liveness stays 200, and the file never came back by itself.
    assert_eq!(send(server.get("/healthz")).0, 200);
    assert!(!server.database.exists(), "readiness must not create the database file");
    std::fs::rename(&moved, &server.database).expect("database restored");
    let (status, body) = send(server.get("/readyz"));
    assert_eq!(status, 200, "{body}");
}

/// PostgreSQL's counterpart of a file gone: the database ends the service's sessions and
/// refuses new ones. (Readiness asks on a connection the service keeps, never a new session
/// per probe, and reuses an answer for a second.)
fn readiness_follows_a_postgres_database_that_refuses_connections(server: &TestServer) {
    let url = server.database.display().to_string();
    let name = url.rsplit('/').next().expect("a database name").to_owned();
    let admin = postgres_admin().expect("on PostgreSQL");
    psql(&admin, &format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false"));
    psql(&admin, &format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (status, body) = send(server.get("/readyz"));
    psql(&admin, &format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS true"));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(status, 503, "{body}");
    let missing = body["missing"].as_array().expect("missing is a list");
    assert!(missing.iter().any(|reason| reason["check"] == "database"), "{body}");
    assert!(
        !body.to_string().contains(&name) && !body.to_string().contains("127.0.0.1"),
        "the body names no database: {body}"
    );
    assert_eq!(send(server.get("/healthz")).0, 200);
    let (status, body) = send(server.get("/readyz"));
    assert_eq!(status, 200, "{body}");
}

#[test]
fn readiness_is_503_while_the_service_loads_and_requests_wait_until_it_is_ready() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let database = dir.path().join("service.sqlite3");
    // Another process holds the database's write lock: the migrations wait for it.
    let holder = rusqlite::Connection::open(&database).expect("database");
    holder.execute_batch("PRAGMA journal_mode = WAL; BEGIN IMMEDIATE;").expect("write lock held");
    let server = TestServer::spawn_until(dir, database.clone(), "127.0.0.1:0", &[], "accepting connections on http://");

    let (status, body) = send(server.get("/healthz"));
    assert_eq!((status, body), (200, json!({ "status": "ok" })));
    let (status, body) = send(server.get("/readyz"));
    assert_eq!(status, 503, "{body}");
    let checks: Vec<&str> =
        body["missing"].as_array().expect("missing").iter().filter_map(|reason| reason["check"].as_str()).collect();
    assert!(checks.contains(&"migrations") && checks.contains(&"directory"), "{body}");

    // An API request made now waits for the service rather than failing.
    let early = {
        let url = server.url("/openapi.json");
        std::thread::spawn(move || {
            let response = reqwest::blocking::Client::new().get(url).send().expect("answered");
            response.status().as_u16()
        })
    };
    holder.execute_batch("COMMIT").expect("write lock released");
    drop(holder);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !server.log().contains("listening on http://") {
        assert!(Instant::now() < deadline, "the service never became ready:\n{}", server.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    let (status, body) = send(server.get("/readyz"));
    assert_eq!((status, body.clone()), (200, json!({ "status": "ready" })), "{body}");
    assert_eq!(early.join().expect("early request"), 200);
}

#[test]
fn metrics_have_the_series_and_no_label_holds_a_pan_email_token_or_id() {
    let server = TestServer::spawn_with(&["--metrics-listen", "127.0.0.1:0"]);
    let metrics_url = format!("http://{}/metrics", metrics_address(&server));
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let (status, _) = send(subscriber.auth(server.get(&format!("/card/{card_id}"))));
    assert_eq!(status, 200);
    // Things a careless label would keep: a PAN and an e-mail in paths nobody routes.
    let _ = send(subscriber.auth(server.get(&format!("/card/{TEST_PAN}"))));
    let _ = send(server.get(&format!("/nothing/{TEST_PAN}/{}", subscriber.email)));
    let _ = send(server.get(&format!("/nothing/{}", subscriber.token)));
    let _ = read(
        server
            .http
            .request(reqwest::Method::from_bytes(b"X4242424242424242").expect("method"), server.url("/card"))
            .send()
            .expect("sent"),
    );
    let _ = send(server.get("/readyz"));
    // The main listener does not serve the metrics; the probes are not part of the API's document.
    assert_eq!(send(server.get("/metrics")).0, 404);
    let (_, document) = send(server.get("/openapi.json"));
    let paths = document["paths"].as_object().expect("paths");
    assert!(!paths.contains_key("/healthz") && !paths.contains_key("/readyz") && !paths.contains_key("/metrics"));

    let response = server.http.get(&metrics_url).send().expect("metrics answered");
    assert_eq!(response.status().as_u16(), 200);
    assert!(response.headers()["content-type"].to_str().expect("text").starts_with("text/plain"));
    let text = response.text().expect("metrics text");
    let scrape =
        prometheus_parse::Scrape::parse(text.lines().map(|line| Ok(line.to_owned()))).expect("Prometheus text");

    for series in [
        "subscriber_http_requests_total",
        "subscriber_http_request_duration_seconds",
        "subscriber_open_streams",
        "subscriber_db_query_duration_seconds",
        "subscriber_db_pool_connections",
        "subscriber_argon2_queue_depth",
        "subscriber_webhook_queue_depth",
        "subscriber_webhook_deliveries_total",
        "subscriber_ready",
    ] {
        assert!(scrape.samples.iter().any(|sample| sample.metric.starts_with(series)), "no {series} in:\n{text}");
    }
    let requests = |route: &str, method: &str, status: &str| {
        scrape.samples.iter().any(|sample| {
            sample.metric == "subscriber_http_requests_total"
                && sample.labels.get("route") == Some(route)
                && sample.labels.get("method") == Some(method)
                && sample.labels.get("status") == Some(status)
        })
    };
    // prometheus-parse 0.2 cuts a label value at its first `}`: the templated route is checked
    // in the text itself.
    assert!(
        text.contains(r#"subscriber_http_requests_total{method="GET",route="/card/{card_id}",status="200"}"#),
        "{text}"
    );
    assert!(requests("/card", "POST", "201"), "{text}");
    assert!(requests("unmatched", "GET", "404"), "{text}");
    assert!(requests("/readyz", "GET", "200"), "{text}");
    assert!(
        scrape.samples.iter().any(|sample| sample.metric.starts_with("subscriber_http_request_duration_seconds")
            && matches!(sample.value, prometheus_parse::Value::Histogram(_))),
        "latency is a histogram: {text}"
    );

    let card_id = card_id.to_string();
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        let labels = line.split_once('{').and_then(|(_, rest)| rest.rsplit_once('}')).map_or("", |(labels, _)| labels);
        assert!(
            !labels.contains('@') && !labels.contains("eyJ") && !labels.contains(TEST_PAN),
            "a label holds what a client sent: {line}"
        );
    }
    for sample in &scrape.samples {
        for (name, value) in sample.labels.iter() {
            let longest_digit_run =
                value.split(|character: char| !character.is_ascii_digit()).map(str::len).max().unwrap_or(0);
            assert!(
                !value.contains('@') && !value.contains("eyJ") && longest_digit_run < 12,
                "{} has the label {name}={value:?}",
                sample.metric
            );
            if name != "status" && name != "le" && name != "quantile" {
                assert!(
                    value.split('/').all(|segment| segment != card_id),
                    "{} has the card id in {name}={value:?}",
                    sample.metric
                );
            }
        }
    }
}

#[test]
fn json_logs_are_one_object_per_line_with_the_request_fields() {
    let server = TestServer::spawn_with(&["--log-format", "json"]);
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let request_id = format!("ops-{}", uuid::Uuid::new_v4().simple());
    let (status, _) =
        send(subscriber.auth(server.get(&format!("/card/{card_id}"))).header("x-request-id", &request_id));
    assert_eq!(status, 200);

    let deadline = Instant::now() + Duration::from_secs(30);
    let line = loop {
        let log = server.log();
        let found = log.lines().find(|line| line.contains(&request_id)).map(str::to_owned);
        if let Some(line) = found {
            for other in log.lines().filter(|line| !line.trim().is_empty()) {
                let parsed: Value =
                    serde_json::from_str(other).unwrap_or_else(|error| panic!("not JSON ({error}): {other}"));
                assert!(
                    parsed.is_object() && parsed["timestamp"].is_string() && parsed["level"].is_string(),
                    "{other}"
                );
            }
            break line;
        }
        assert!(Instant::now() < deadline, "no log line for {request_id}:\n{log}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let entry: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(entry["request_id"], request_id.as_str(), "{entry}");
    assert_eq!(entry["route"], "/card/{card_id}", "the template, not the id: {entry}");
    assert_eq!(entry["status"], 200, "{entry}");
    assert_eq!(entry["method"], "GET", "{entry}");
    assert_eq!(entry["level"], "INFO", "{entry}");
    assert!(entry["latency_ms"].as_f64().is_some_and(|latency| latency >= 0.0), "{entry}");
    assert!(chrono::DateTime::parse_from_rfc3339(entry["timestamp"].as_str().unwrap_or_default()).is_ok(), "{entry}");
    assert!(!server.log().contains(&subscriber.token), "no token is logged");
}

/// Every line after start-up says which request or which task it belongs to, shutdown included.
#[test]
fn every_log_line_after_start_up_names_its_request_or_its_task() {
    let server = TestServer::spawn_with(&["--log-format", "json", "--settle-after-seconds", "1"]);
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let (status, _) =
        send(subscriber.auth(server.post("/sandbox/transactions", &json!({ "cardId": card_id, "amount": 2.5 }))));
    assert_eq!(status, 201);
    assert_eq!(send(server.get("/no/such/path")).0, 404);
    assert_eq!(send(subscriber.auth(server.post("/card", &json!({ "pan": "12" })))).0, 400);
    assert_eq!(send(server.get("/readyz")).0, 200);
    // Settlement runs meanwhile (a background task).
    std::thread::sleep(Duration::from_secs(2));
    let log = server.stop_and_log();
    assert!(log.contains("\"stopped\""), "the shutdown was logged:\n{log}");
    let unattributed = crate::helpers::unattributed_lines(&log);
    assert!(unattributed.is_empty(), "lines that name no request or task:\n{}", unattributed.join("\n"));
}

/// `/readyz` names the backend that serves (benchmarks refuse a row they cannot attribute).
#[test]
fn readiness_names_the_backend_that_serves() {
    let server = TestServer::spawn();
    let response = server.get("/readyz").send().expect("sent");
    let backend = response.headers().get("subscriber-backend").and_then(|value| value.to_str().ok()).map(str::to_owned);
    assert_eq!(backend.as_deref(), Some(if server.on_postgres() { "postgresql" } else { "sqlite" }));
}
