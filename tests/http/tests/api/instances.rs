//! Two instances of the service on one PostgreSQL database, as behind a load balancer: what one
//! instance commits, the other streams, finds, replays and enforces. These need PostgreSQL
//! (`make test` runs the suite on it too); on SQLite, which one instance serves, they say so
//! and pass.

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::{Value, json};

use crate::discovery::discover;
use crate::helpers::{TEST_PANS, TestServer, assert_error, card_json, fresh_database, postgres_admin, send};
use crate::realtime::{EventStream, buy, shop};
use crate::sandbox::eventually;

/// Two instances on one fresh database, or `None` when the suite runs on SQLite.
pub(crate) fn two_instances() -> Option<(TestServer, TestServer)> {
    if postgres_admin().is_none() {
        eprintln!("two instances need PostgreSQL: run under tests/support/with-postgres.sh");
        return None;
    }
    let first = TestServer::spawn();
    let second = first.another_instance(&[]);
    Some((first, second))
}

#[test]
fn a_stream_on_one_instance_sees_sales_made_through_the_other_in_order() {
    let Some((first, second)) = two_instances() else { return };
    let shop = shop(&first);
    let card_stream =
        EventStream::open(&second, &shop.subscriber, &format!("/card/{}/transactions/stream", shop.card_id), None);
    let merchant_stream = EventStream::open(
        &second,
        &shop.subscriber,
        &format!("/merchant/{}/transactions/stream", shop.merchant_id),
        None,
    );
    // Sales through both instances, alternately: each stream sees every one, in event order.
    let sold: Vec<i64> = (0..6).map(|index| buy(if index % 2 == 0 { &first } else { &second }, &shop, 3.5)).collect();
    for stream in [&card_stream, &merchant_stream] {
        let mut seen = Vec::new();
        let mut last_event = 0;
        while seen.len() < sold.len() {
            let (event_id, data) = stream.next_transaction();
            assert!(event_id > last_event, "events in order: {event_id} after {last_event}");
            last_event = event_id;
            let id = data["transactionId"].as_i64().expect("a transaction id");
            if !seen.contains(&id) {
                seen.push(id);
            }
        }
        assert_eq!(seen, sold, "every sale, in the order made");
    }
    // A page the other instance has read (and keeps) shows the next sale at once, on both sides.
    let pages = [
        format!("/card/{}/transactions?limit=1", shop.card_id),
        format!("/merchant/{}/transactions?limit=1", shop.merchant_id),
    ];
    for page in &pages {
        assert_eq!(send(shop.subscriber.auth(second.get(page))).0, 200);
    }
    let newest = buy(&first, &shop, 9.25);
    for page in &pages {
        let (status, body) = send(shop.subscriber.auth(second.get(page)));
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["transactions"][0]["transactionId"].as_i64(), Some(newest), "{page}: {body}");
    }
}

#[test]
fn an_idempotent_retry_through_the_other_instance_creates_nothing() {
    let Some((first, second)) = two_instances() else { return };
    let subscriber = first.subscriber();
    let enroll = |server: &TestServer, key: &str| {
        send(subscriber.auth(server.post("/card", &card_json(TEST_PANS[1]))).header("Idempotency-Key", key))
    };
    let (status, created) = enroll(&first, "retry-1");
    assert_eq!(status, 201, "{created}");
    let (status, replayed) = enroll(&second, "retry-1");
    assert_eq!((status, &replayed), (201, &created), "the other instance replays the first answer");

    // The same key sent to both at once: one card, whichever instance served it.
    let barrier = Arc::new(Barrier::new(2));
    let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = [&first, &second]
            .into_iter()
            .map(|server| {
                let barrier = Arc::clone(&barrier);
                let subscriber = &subscriber;
                scope.spawn(move || {
                    barrier.wait();
                    send(
                        subscriber
                            .auth(server.post("/card", &card_json(TEST_PANS[2])))
                            .header("Idempotency-Key", "together-1"),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|handle| handle.join().expect("request")).collect()
    });
    for (status, body) in &answers {
        match status {
            201 => assert!(body["cardId"].is_i64(), "{body}"),
            409 => assert_eq!(body["code"], "conflict", "{body}"),
            other => panic!("{other}: {body}"),
        }
    }
    assert!(answers.iter().any(|(status, _)| *status == 201), "{answers:?}");
    let (_, cards) = send(subscriber.auth(second.get("/card")));
    let ids: BTreeSet<i64> =
        cards["cards"].as_array().expect("cards").iter().filter_map(|card| card["cardId"].as_i64()).collect();
    assert_eq!(ids.len(), 2, "one card per key: {cards}");
}

#[test]
fn a_location_enrolled_through_one_instance_is_found_through_the_other() {
    let Some((first, second)) = two_instances() else { return };
    // The second instance has loaded its directory before the location exists.
    let searcher = second.subscriber();
    let (status, _) = send(searcher.auth(second.get("/merchant/discover?merchid=SQ%20*BLUE%20HERON%20COFFEE")));
    assert_eq!(status, 200);
    let shop = shop(&first);
    let (_, merchant) = send(shop.subscriber.auth(first.get("/merchant")));
    let descriptor = merchant["locations"][0]["descriptor"].as_str().expect("a descriptor").to_owned();
    let finds_it = || {
        let (_, body) =
            discover(&second, &searcher, "/merchant/discover", &[("merchid", &descriptor), ("matchType", "exact")]);
        body["result"]["merchants"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|item| item["locationId"].as_i64() == Some(shop.location_id))
    };
    let found = eventually(Duration::from_secs(20), finds_it);
    assert!(found, "the other instance finds the new location ({descriptor})");

    // Removed through the first: the second no longer finds it.
    let request = first.http.delete(first.url(&format!("/merchant/location/{}", shop.location_id)));
    let (status, body) = send(shop.subscriber.auth(request));
    assert_eq!(status, 200, "{body}");
    let gone = eventually(Duration::from_secs(20), || !finds_it());
    assert!(gone, "the other instance no longer finds the removed location ({descriptor})");
}

#[test]
fn a_secret_rotated_through_one_instance_revokes_tokens_on_the_other() {
    let Some((first, second)) = two_instances() else { return };
    let subscriber = first.subscriber();
    let (status, _) = send(subscriber.auth(second.get("/card")));
    assert_eq!(status, 200, "the token works on both");
    let (status, body) =
        send(subscriber.auth(first.post("/subscriber/secret/rotate", &json!({ "currentSecret": subscriber.secret }))));
    assert_eq!(status, 200, "{body}");
    let revoked = (0..100).any(|_| {
        let (status, _) = send(subscriber.auth(second.get("/card")));
        if status != 401 {
            std::thread::sleep(Duration::from_millis(100));
        }
        status == 401
    });
    assert!(revoked, "the old token is refused by the other instance too");
    let (status, body) = send(subscriber.auth(second.get("/card")));
    assert_error(status, &body, 401, "token_expired");
}

#[test]
fn a_killed_instance_loses_no_acknowledged_write_and_the_other_serves_on() {
    let Some((first, second)) = two_instances() else { return };
    let subscriber = first.subscriber();
    let mut acknowledged = Vec::new();
    for pan in &TEST_PANS[..4] {
        acknowledged.push(first.enroll_card(&subscriber, pan));
    }
    let (_dir, _database) = first.kill_hard();
    let (status, cards) = send(subscriber.auth(second.get("/card")));
    assert_eq!(status, 200, "{cards}");
    let listed: BTreeSet<i64> =
        cards["cards"].as_array().expect("cards").iter().filter_map(|card| card["cardId"].as_i64()).collect();
    assert_eq!(listed, acknowledged.iter().copied().collect(), "every acknowledged card, through the survivor");
    // The survivor takes over the work one instance does (the lease lapses) and keeps writing.
    let shop = shop(&second);
    let sale = buy(&second, &shop, 1.0);
    assert!(sale > 0);
}

#[test]
fn a_sandbox_reset_through_one_instance_is_seen_by_the_other() {
    let Some((first, second)) = two_instances() else { return };
    let subscriber = first.subscriber();
    let card_id = first.enroll_card(&subscriber, TEST_PANS[0]);
    // The second instance has rendered the card and a page of it, and keeps them.
    let card = format!("/card/{card_id}");
    let page = format!("/card/{card_id}/transactions?limit=5");
    assert_eq!(send(subscriber.auth(second.get(&card))).0, 200);
    assert_eq!(send(subscriber.auth(second.get(&page))).0, 200);
    let (status, body) = send(subscriber.auth(first.post("/sandbox/reset", &json!({}))));
    assert_eq!(status, 200, "{body}");
    let gone = (0..100).any(|_| {
        let (status, _) = send(subscriber.auth(second.get(&card)));
        if status != 404 {
            std::thread::sleep(Duration::from_millis(100));
        }
        status == 404
    });
    assert!(gone, "the other instance no longer shows the deleted card");
    let (status, body) = send(subscriber.auth(second.get(&page)));
    assert_error(status, &body, 404, "not_found");
}

#[test]
fn without_keys_a_postgres_database_gets_a_key_file_named_after_it_in_the_users_data_folder() {
    if postgres_admin().is_none() {
        return;
    }
    let folder = tempfile::tempdir().expect("a working folder");
    let home = tempfile::tempdir().expect("a home");
    let database = fresh_database(folder.path());
    let name = database.display().to_string().rsplit('/').next().expect("a name").to_owned();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_subscriber-server-under-test"))
        .current_dir(folder.path())
        .env_remove("SUBSCRIBER_KEYS")
        .env_remove("STATE_DIRECTORY")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("share"))
        .args(["--listen", "127.0.0.1:0", "--directory-size", "2000", "--database"])
        .arg(&database)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starts");
    let stdout = child.stdout.take().expect("output");
    let started = std::io::BufRead::lines(std::io::BufReader::new(stdout))
        .map_while(Result::ok)
        .any(|line| line.contains("listening on http://"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(started, "the service starts without --keys");
    assert_eq!(
        std::fs::read_dir(folder.path()).expect("the working folder").count(),
        0,
        "nothing in the working folder"
    );
    let key_file = home.path().join(format!("share/subscriber-data/{name}.keys"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).expect("the key file is in the data folder").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn sslmode_require_never_falls_back_to_plain_tcp() {
    if postgres_admin().is_none() {
        return;
    }
    // The test cluster speaks no TLS: a service told to require it must refuse to start.
    let folder = tempfile::tempdir().expect("a working folder");
    let database = format!("{}?sslmode=require", fresh_database(folder.path()).display());
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_subscriber-server-under-test"))
        .current_dir(folder.path())
        .args(["--listen", "127.0.0.1:0", "--directory-size", "2000", "--database", &database])
        .output()
        .expect("runs");
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!output.status.success(), "started over plain TCP: {said}");
    assert!(said.to_lowercase().contains("tls"), "says why: {said}");
}

#[test]
fn the_database_password_never_reaches_the_log_or_an_answer() {
    if postgres_admin().is_none() {
        return;
    }
    let folder = tempfile::tempdir().expect("a working folder");
    // The test cluster trusts local connections, so any password is accepted and carried.
    let database =
        fresh_database(folder.path()).display().to_string().replacen("postgres@", "postgres:Pw-s3cret-9@", 1);
    let server = TestServer::spawn_on(folder, database.clone().into(), "127.0.0.1:0", &["--log", "debug"]);
    let subscriber = server.subscriber();
    server.enroll_card(&subscriber, TEST_PANS[0]);
    let (_, ready) = send(server.get("/readyz"));
    assert!(!ready.to_string().contains("Pw-s3cret-9"), "{ready}");
    assert!(server.log().contains("listening on"), "the log is read");
    assert!(!server.log().contains("Pw-s3cret-9"), "the password is in the log");
}

/// Sync positions hold while many writers on both instances commit at once: a syncer that reads
/// changes all the while, and once more at the end, has every transaction of the card exactly
/// once as added, each as the list shows it now (settled ones settled), and never one twice.
#[test]
fn a_sync_cursor_skips_and_repeats_nothing_while_both_instances_write() {
    let Some((first, second)) = two_instances() else { return };
    let shops: Vec<_> = (0..2).map(|_| shop(&first)).collect();
    let writing = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let (first, second) = (&first, &second);
    std::thread::scope(|scope| {
        let mut writers = Vec::new();
        for (index, shop) in shops.iter().enumerate() {
            for writer in 0..3 {
                let server = if (index + writer) % 2 == 0 { first } else { second };
                writers.push(scope.spawn(move || {
                    for sale in 0..15 {
                        let id = buy(server, shop, 2.0 + f64::from(sale));
                        if sale % 3 == 0 {
                            // A change after the sale: its settlement, through the other instance.
                            let other = if std::ptr::eq(server, first) { second } else { first };
                            let path = format!("/sandbox/transactions/{id}/settle");
                            let (status, body) = send(shop.subscriber.auth(other.post(&path, &json!({}))));
                            assert_eq!(status, 200, "{body}");
                        }
                    }
                }));
            }
        }
        for shop in &shops {
            let writing = Arc::clone(&writing);
            scope.spawn(move || {
                let mut cursor = String::new();
                let mut added = Vec::new();
                let mut latest = std::collections::HashMap::new();
                let mut sync_once = |server: &TestServer| loop {
                    let path = format!("/card/{}/transactions/sync?count=200&cursor={cursor}", shop.card_id);
                    let (status, body) = send(shop.subscriber.auth(server.get(&path)));
                    assert_eq!(status, 200, "{body}");
                    for item in body["added"].as_array().expect("added") {
                        added.push(item["transactionId"].as_i64().expect("id"));
                        latest.insert(item["transactionId"].as_i64().expect("id"), item["pending"].clone());
                    }
                    for item in body["modified"].as_array().expect("modified") {
                        latest.insert(item["transactionId"].as_i64().expect("id"), item["pending"].clone());
                    }
                    cursor = body["next_cursor"].as_str().expect("a cursor").to_owned();
                    if body["has_more"] != json!(true) {
                        break;
                    }
                };
                let mut turn = 0;
                while writing.load(std::sync::atomic::Ordering::Relaxed) {
                    sync_once(if turn % 2 == 0 { first } else { second });
                    turn += 1;
                }
                sync_once(first);
                let mut unique = added.clone();
                unique.sort_unstable();
                unique.dedup();
                assert_eq!(unique.len(), added.len(), "no transaction added twice");
                let mut listed = std::collections::HashMap::new();
                let mut page = format!("/card/{}/transactions?limit=5000", shop.card_id);
                loop {
                    let (status, body) = send(shop.subscriber.auth(first.get(&page)));
                    assert_eq!(status, 200, "{body}");
                    for item in body["transactions"].as_array().expect("transactions") {
                        listed.insert(item["transactionId"].as_i64().expect("id"), item["pending"].clone());
                    }
                    match body["next_cursor"].as_str() {
                        Some(next) => page = format!("/card/{}/transactions?limit=5000&cursor={next}", shop.card_id),
                        None => break,
                    }
                }
                assert_eq!(latest, listed, "the synced copy is the list: every row once, as it is now");
            });
        }
        // The writers end first; then the syncers take their last look.
        for writer in writers {
            writer.join().expect("a writer finished");
        }
        writing.store(false, std::sync::atomic::Ordering::Relaxed);
    });
}

/// A subscriber's ten streams are counted across the instances: with five open on each, an
/// eleventh on either is refused, and a stream closed on one frees a place on the other.
#[test]
fn the_eleventh_stream_is_refused_on_whichever_instance_it_asks() {
    let Some((first, second)) = two_instances() else { return };
    let shop = shop(&first);
    let path = format!("/merchant/{}/transactions/stream", shop.merchant_id);
    let mut on_first: Vec<EventStream> =
        (0..5).map(|_| EventStream::open(&first, &shop.subscriber, &path, None)).collect();
    let _on_second: Vec<EventStream> =
        (0..5).map(|_| EventStream::open(&second, &shop.subscriber, &path, None)).collect();
    for server in [&first, &second] {
        let (status, body) = send(server.get(&path).bearer_auth(&shop.subscriber.token));
        assert_error(status, &body, 429, "rate_limited");
    }
    // Another subscriber is not held back by this one's streams.
    let other = crate::realtime::shop(&second);
    let _theirs = EventStream::open(
        &second,
        &other.subscriber,
        &format!("/merchant/{}/transactions/stream", other.merchant_id),
        None,
    );

    on_first.pop();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let response = second.get(&path).bearer_auth(&shop.subscriber.token).send().expect("sent");
        if response.status() == 200 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "a stream closed on one instance never frees its place");
        std::thread::sleep(Duration::from_millis(100));
    }
}
