//! Security, third and fourth rounds: what one tenant's reset, retries, floods and probes must
//! never do to another tenant or to the database (contract: "Security, third round"; issue 37;
//! SECURITY.md lists each rule).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{
    LOCAL_RECEIVERS, TEST_PANS, TestServer, assert_error, fresh_database, postgres_admin, psql, read, send,
};
use crate::realtime::{EventStream, Shop, buy, shop};

/// After a reset, a deleted card's id is never given to anyone's next card, and the caller's
/// open streams end: an old stream can never carry another tenant's purchase.
#[test]
fn a_reset_ends_the_callers_streams_and_its_ids_are_never_reused() {
    let server = TestServer::spawn();
    let mine = shop(&server);
    let stream =
        EventStream::open(&server, &mine.subscriber, &format!("/card/{}/transactions/stream", mine.card_id), None);
    let (status, body) = send(mine.subscriber.auth(server.post("/sandbox/reset", &json!({}))));
    assert_eq!(status, 200, "{body}");
    assert!(stream.ended_within(Duration::from_secs(10)), "the reset ends the caller's stream");

    // Another tenant's next card, and the caller's own, get new ids.
    let theirs = shop(&server);
    assert!(theirs.card_id > mine.card_id, "card id {} reused after the reset of {}", theirs.card_id, mine.card_id);
    assert!(theirs.merchant_id > mine.merchant_id, "merchant id reused");
    assert!(theirs.location_id > mine.location_id, "location id reused");
    let again = server.enroll_card(&mine.subscriber, TEST_PANS[1]);
    assert!(again > theirs.card_id, "the caller's new card has a new id");
    buy(&server, &theirs, 3.5);
    // The caller's old card id names nothing of anyone's for the caller.
    let (status, _) = send(mine.subscriber.auth(server.get(&format!("/card/{}", mine.card_id))));
    assert_eq!(status, 404);
}

/// `POST /webhooks` honours `Idempotency-Key` as every creating route does: a retry gets the
/// first answer and makes no second endpoint.
#[test]
fn a_retried_webhook_creation_makes_one_endpoint() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let body = json!({ "url": "http://127.0.0.1:9/hooks", "events": ["*"] });
    let create = || send(subscriber.auth(server.post("/webhooks", &body)).header("Idempotency-Key", "hook-once"));
    let (first_status, first) = create();
    assert_eq!(first_status, 201, "{first}");
    let (again_status, again) = create();
    assert_eq!(again_status, 201, "{again}");
    assert_eq!(again["webhookId"], first["webhookId"], "the retry replays the first answer");
    let (_, list) = send(subscriber.auth(server.get("/webhooks")));
    let endpoints = list["webhooks"].as_array().or_else(|| list.as_array()).map_or(0, Vec::len);
    assert_eq!(endpoints, 1, "{list}");
}

/// Unauthenticated readiness probes never open database sessions: the answer comes from a kept
/// connection, at most a second old.
#[test]
fn readiness_probes_open_no_database_sessions() {
    let Some(admin) = postgres_admin() else {
        eprintln!("database sessions are PostgreSQL's: run under tests/support/with-postgres.sh");
        return;
    };
    let server = TestServer::spawn();
    let name = server.database.to_string_lossy().rsplit('/').next().unwrap_or_default().to_owned();
    let sessions = || -> i64 {
        psql(&admin, &format!("SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}'"))
            .trim()
            .parse()
            .unwrap_or(-1)
    };
    assert_eq!(server.get("/readyz").send().expect("sent").status(), 200);
    let before = sessions();
    for _ in 0..200 {
        assert_eq!(server.get("/readyz").send().expect("sent").status(), 200);
    }
    let after = sessions();
    assert!(after <= before + 2, "200 probes opened {} sessions ({before} → {after})", after - before);
}

/// Two instances started at once on a fresh database, each with a new key file of its own: one
/// starts, the other refuses (its keys are not the database's) and says so.
#[test]
fn two_instances_started_together_with_different_keys_do_not_both_start() {
    if postgres_admin().is_none() {
        eprintln!("two instances need PostgreSQL: run under tests/support/with-postgres.sh");
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let database = fresh_database(dir.path());
    let start = |keys: &str| {
        Command::new(env!("CARGO_BIN_EXE_subscriber-server-under-test"))
            .args(["--listen", "127.0.0.1:0", "--directory-size", "2000", "--database"])
            .arg(&database)
            .arg("--keys")
            .arg(dir.path().join(keys))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts")
    };
    let mut children = [start("first.keys"), start("second.keys")];
    // Both stay up (started) or one exits (refused): wait for an exit, then a little longer.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut exited: Vec<usize> = Vec::new();
    while Instant::now() < deadline && exited.is_empty() {
        std::thread::sleep(Duration::from_millis(100));
        exited = (0..2).filter(|index| children[*index].try_wait().ok().flatten().is_some()).collect();
    }
    std::thread::sleep(Duration::from_secs(3));
    exited = (0..2).filter(|index| children[*index].try_wait().ok().flatten().is_some()).collect();
    for child in &mut children {
        let _ = child.kill();
    }
    let outputs: Vec<_> = children.into_iter().map(|child| child.wait_with_output().expect("output")).collect();
    assert_eq!(exited.len(), 1, "exactly one of the two refuses to start");
    let refused = &outputs[exited[0]];
    assert!(!refused.status.success());
    let said = format!("{}{}", String::from_utf8_lossy(&refused.stdout), String::from_utf8_lossy(&refused.stderr));
    assert!(said.contains("does not belong to this database"), "{said}");
}

/// Issue 37, L4: a request naming an unknown `Subscriber-Version` is no way past the rate
/// limiter: once the bucket is empty a flood of them gets 429 like any other request, with a
/// token or without, and the 429 still says its version.
#[test]
fn an_unknown_version_is_rate_limited_like_any_other_request() {
    let server = TestServer::spawn_with(&["--rate-limit", "1", "--rate-limit-burst", "5"]);
    let subscriber = server.subscriber();
    for with_token in [true, false] {
        let statuses: Vec<(u16, Option<String>, Value)> = (0..30)
            .map(|_| {
                let request = server.get("/card").header("subscriber-version", "1999-01-01");
                let request = if with_token { subscriber.auth(request) } else { request };
                let response = request.send().expect("sent");
                let version = response
                    .headers()
                    .get("subscriber-version")
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned);
                let (status, body) = read(response);
                (status, version, body)
            })
            .collect();
        let answered = statuses.iter().filter(|(status, _, _)| *status == 400).count();
        assert!(answered <= 7, "at most the burst (and a refill) is answered 400 (token: {with_token}): {answered}");
        for (status, version, body) in &statuses {
            if *status == 400 {
                assert_error(*status, body, 400, "unknown_version");
            } else {
                assert_error(*status, body, 429, "rate_limited");
            }
            assert!(version.is_some(), "every answer says its version");
        }
    }
}

/// Two subscribers that bought from each other (the sandbox's simulated shoppers): one resets
/// its sandbox through one instance, and nothing of the other's changes, on either instance:
/// its cards' and merchant's pages, its sync and its events read as before (the purchase at
/// the reset merchant included), and the pages it had read stay kept on both instances (a
/// change made to its rows behind the service's back, which a re-read would show, does not
/// show). Two instances on PostgreSQL; one on SQLite.
#[test]
fn a_reset_changes_nothing_of_another_subscriber_and_keeps_their_pages_on_every_instance() {
    // Phase 1: the simulator makes purchases until each card has bought at the other's shop.
    // (Settling a day later: no settlement changes anything while the test reads.)
    let simulating = TestServer::spawn_with(&["--simulate-rate", "1200", "--settle-after-seconds", "86400"]);
    let (mine, theirs) = (shop(&simulating), shop(&simulating));
    let bought_at = |buyer: &Shop, seller: &Shop| {
        let path = format!("/card/{}/transactions?limit=100", buyer.card_id);
        let (_, page) = send(buyer.subscriber.auth(simulating.get(&path)));
        page["transactions"]
            .as_array()
            .is_some_and(|rows| rows.iter().any(|row| row["merchantId"].as_i64() == Some(seller.merchant_id)))
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    while !(bought_at(&mine, &theirs) && bought_at(&theirs, &mine)) {
        assert!(Instant::now() < deadline, "the simulator never made purchases across the two shops");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Phase 2: the same database served without the simulator, by one or two instances.
    let (dir, database) = simulating.stop();
    let first = TestServer::spawn_on(dir, database, "127.0.0.1:0", &[]);
    let second = first.on_postgres().then(|| first.another_instance(&[]));
    let instances: Vec<&TestServer> = std::iter::once(&first).chain(second.as_ref()).collect();
    let theirs_pages = [
        format!("/card/{}/transactions?limit=100", theirs.card_id),
        format!("/card/{}/transactions/sync?count=500", theirs.card_id),
        format!("/merchant/{}/transactions?limit=100", theirs.merchant_id),
        "/events?limit=100".to_owned(),
        "/card".to_owned(),
        "/merchant".to_owned(),
    ];
    let read_all = || -> Vec<Value> {
        instances
            .iter()
            .flat_map(|server| {
                theirs_pages.iter().map(|path| {
                    let (status, body) = send(theirs.subscriber.auth(server.get(path)));
                    assert_eq!(status, 200, "{path}: {body}");
                    body
                })
            })
            .collect()
    };
    let before = read_all();
    let reset_and_wait = |card_id: i64| {
        let (status, body) = send(mine.subscriber.auth(first.post("/sandbox/reset", &json!({}))));
        assert_eq!(status, 200, "{body}");
        // Every instance has heard of the reset once the caller's card is gone there.
        for server in &instances {
            let heard = (0..200).any(|_| {
                let (status, _) = send(mine.subscriber.auth(server.get(&format!("/card/{card_id}"))));
                if status != 404 {
                    std::thread::sleep(Duration::from_millis(50));
                }
                status == 404
            });
            assert!(heard, "the instance never heard of the reset");
        }
    };
    reset_and_wait(mine.card_id);
    let after = read_all();
    for (index, (after, before)) in after.iter().zip(&before).enumerate() {
        assert_eq!(
            after,
            before,
            "nothing of the other subscriber changed ({})",
            theirs_pages[index % theirs_pages.len()]
        );
    }
    let (_, page) = send(theirs.subscriber.auth(first.get(&theirs_pages[0])));
    assert!(
        page["transactions"]
            .as_array()
            .is_some_and(|rows| rows.iter().any(|row| row["merchantId"].as_i64() == Some(mine.merchant_id))),
        "their purchase at the reset merchant stays as it was: {page}"
    );

    // The pages they read are kept: their rows changed behind the service's back (no event)
    // do not show after another reset of the caller, on any instance.
    let marker = first.enroll_card(&mine.subscriber, TEST_PANS[1]);
    for server in &instances {
        assert_eq!(send(mine.subscriber.auth(server.get(&format!("/card/{marker}")))).0, 200);
    }
    let kept_pages = [&theirs_pages[0], &theirs_pages[2]];
    let kept_before: Vec<Value> = instances
        .iter()
        .flat_map(|server| kept_pages.iter().map(|path| send(theirs.subscriber.auth(server.get(path))).1))
        .collect();
    change_streets_underneath(&first, theirs.card_id, theirs.merchant_id, " [underneath]");
    reset_and_wait(marker);
    let kept_after: Vec<Value> = instances
        .iter()
        .flat_map(|server| kept_pages.iter().map(|path| send(theirs.subscriber.auth(server.get(path))).1))
        .collect();
    change_streets_underneath(&first, theirs.card_id, theirs.merchant_id, "");
    assert_eq!(kept_after, kept_before, "another subscriber's reset dropped their kept pages");
}

/// Appends `suffix` to the street of the card's and the merchant's transactions directly in
/// the database (no event); an empty suffix takes any appended one off again.
fn change_streets_underneath(server: &TestServer, card_id: i64, merchant_id: i64, suffix: &str) {
    const MARK: &str = " [underneath]";
    let sql = if suffix.is_empty() {
        format!(
            "UPDATE transactions SET street = replace(street, '{MARK}', '') \
             WHERE card_id = {card_id} OR merchant_id = {merchant_id}"
        )
    } else {
        format!(
            "UPDATE transactions SET street = street || '{suffix}' WHERE card_id = {card_id} OR merchant_id = {merchant_id}"
        )
    };
    if server.on_postgres() {
        psql(&server.database.to_string_lossy(), &sql);
    } else {
        let connection = rusqlite::Connection::open(&server.database).expect("the database file");
        connection.busy_timeout(Duration::from_secs(10)).expect("a busy timeout");
        connection.execute(&sql, []).expect("the rows change");
    }
}
