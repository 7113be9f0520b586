//! The service behind a real PgBouncer (Debian's package; `make test-postgres` installs it).
//! In transaction or statement mode a pooler hands one client's statements to other clients'
//! server sessions, which the service's prepared statements, `LISTEN` and advisory locks cannot
//! survive: the service refuses to start there, naming the setting. In session mode it serves
//! everything, on two instances. PostgreSQL only; on SQLite these say so and pass.
//!
//! `SUBSCRIBER_TEST_PGBOUNCER=session` runs any part of the suite through one
//! (`helpers::fresh_database`); `make test-postgres` runs the two-instance tests that way.

use std::path::PathBuf;

use subscriber_testkit::{PgBouncer, PoolMode, WebhookReceiver};

use crate::helpers::{
    LOCAL_RECEIVERS, TEST_PANS, TestServer, fresh_database, postgres_admin, psql, refused_start, send,
};
use crate::realtime::{EventStream, buy, shop};
use crate::webhooks::{add_receiver, next_accepted};

/// The suite's PostgreSQL address, with PgBouncer installed; `None` on SQLite.
fn admin() -> Option<String> {
    let Some(admin) = postgres_admin() else {
        eprintln!("PgBouncer tests need PostgreSQL: run under tests/support/with-postgres.sh");
        return None;
    };
    assert!(
        PgBouncer::available(),
        "{} is missing: `make test-postgres` installs Debian's pgbouncer",
        subscriber_testkit::pgbouncer::BINARY
    );
    Some(admin)
}

#[test]
fn behind_transaction_or_statement_pooling_the_service_refuses_to_start_and_names_pool_mode() {
    let Some(admin) = admin() else { return };
    for mode in [PoolMode::Transaction, PoolMode::Statement] {
        let bouncer = PgBouncer::start(&admin, mode).expect("pgbouncer starts");
        let name = format!("t_{}", uuid::Uuid::new_v4().simple());
        psql(&admin, &format!("CREATE DATABASE {name}"));
        let (server, _) = admin.rsplit_once('/').expect("an address with a database");
        let database = format!("{server}/{name}");
        let said = refused_start(&PathBuf::from(bouncer.url(&database)), &[]);
        assert!(said.contains("pool_mode = session"), "{mode:?}: the refusal names the setting: {said}");
        assert!(said.contains("connect to PostgreSQL directly"), "{mode:?}: and the other way: {said}");
        let tables = psql(&database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'");
        assert_eq!(tables.trim(), "0", "{mode:?}: nothing was made in the database before refusing");
    }
}

#[test]
fn through_pgbouncer_in_session_mode_two_instances_serve_the_main_flows() {
    let Some(admin) = admin() else { return };
    let bouncer = PgBouncer::start(&admin, PoolMode::Session).expect("pgbouncer starts");
    let dir = tempfile::tempdir().expect("temporary directory");
    let database = fresh_database(dir.path());
    let (_, name) = database.to_str().expect("an address").rsplit_once('/').expect("a database name");
    let (server, _) = admin.rsplit_once('/').expect("an address with a database");
    let through = PathBuf::from(bouncer.url(&format!("{server}/{name}")));
    let first = TestServer::spawn_on(dir, through, "127.0.0.1:0", &[LOCAL_RECEIVERS]);
    let second = first.another_instance(&[LOCAL_RECEIVERS]);

    // Signup and login on one instance; a card, a merchant and its location on the other.
    let shop = shop(&second);
    let receiver = WebhookReceiver::start();
    let (_, _) = add_receiver(&first, &shop.subscriber, &receiver, &["transaction.created"]);
    let (status, history) =
        send(shop.subscriber.auth(first.get(&format!("/card/{}/transactions?limit=5", shop.card_id))));
    assert_eq!(status, 200, "{history}");
    assert!(!history["transactions"].as_array().expect("transactions").is_empty(), "the card's history: {history}");

    // A stream on one instance (LISTEN) sees the sales made through the other.
    let stream =
        EventStream::open(&first, &shop.subscriber, &format!("/card/{}/transactions/stream", shop.card_id), None);
    let sold: Vec<i64> = (0..4).map(|index| buy(if index % 2 == 0 { &first } else { &second }, &shop, 4.5)).collect();
    let mut seen = Vec::new();
    while seen.len() < sold.len() {
        let id = stream.next_transaction().1["transactionId"].as_i64().expect("a transaction id");
        if !seen.contains(&id) {
            seen.push(id);
        }
    }
    assert_eq!(seen, sold, "every sale, in order, through both instances");

    // Each sale reaches the webhook receiver, and the event log lists them.
    let mut delivered: Vec<i64> = sold
        .iter()
        .map(|_| next_accepted(&receiver).json()["data"]["transactionId"].as_i64().expect("a transaction id"))
        .collect();
    delivered.sort_unstable();
    let mut expected = sold.clone();
    expected.sort_unstable();
    assert_eq!(delivered, expected, "each sale delivered once");
    let (status, log) = send(shop.subscriber.auth(second.get("/events?type=transaction.created&limit=50")));
    assert_eq!(status, 200, "{log}");
    assert_eq!(log["events"].as_array().map(Vec::len), Some(sold.len()), "{log}");

    // An idempotency key sent to both instances at once (an advisory lock on each instance's
    // own session) makes one card.
    let answers: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = [&first, &second]
            .into_iter()
            .map(|server| {
                let subscriber = &shop.subscriber;
                scope.spawn(move || {
                    send(
                        subscriber
                            .auth(server.post("/card", &crate::helpers::card_json(TEST_PANS[3])))
                            .header("Idempotency-Key", "bouncer-1"),
                    )
                    .0
                })
            })
            .collect();
        handles.into_iter().map(|handle| handle.join().expect("request")).collect()
    });
    assert!(answers.iter().all(|status| [201, 409].contains(status)), "{answers:?}");
    let (_, cards) = send(shop.subscriber.auth(first.get("/card")));
    assert_eq!(cards["cards"].as_array().map(Vec::len), Some(2), "one card per key: {cards}");
    assert!(!first.log().contains("prepared statement"), "no statement mix-up:\n{}", first.log());
}
