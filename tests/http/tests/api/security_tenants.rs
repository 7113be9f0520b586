//! Security, third round: what one tenant's reset, retries and probes must never do to another
//! tenant or to the database (contract: "Security, third round"; SECURITY.md lists each rule).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::helpers::{LOCAL_RECEIVERS, TEST_PANS, TestServer, fresh_database, postgres_admin, psql, send};
use crate::realtime::{EventStream, buy, shop};

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
