//! PostgreSQL stopped, hung and failed over, under load on the real service.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use subscriber_testkit::Cluster;

use crate::helpers::{TestServer, send};
use crate::load::{Load, Tally, Tenant, assert_recovered};

/// How many clients keep writing and reading.
const CLIENTS: usize = 12;

/// A started cluster, or why there is none (no PostgreSQL installed: `make test-faults` has it).
fn cluster() -> Cluster {
    assert!(Cluster::available(), "the fault tests need PostgreSQL's server binaries (Debian's postgresql)");
    Cluster::start().expect("a PostgreSQL cluster of the test's own")
}

/// Two instances on `database`, with `flags`.
fn two_instances(database: &str, flags: &[&str]) -> (TestServer, TestServer) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let first = TestServer::spawn_on(dir, PathBuf::from(database), "127.0.0.1:0", flags);
    let second = first.another_instance(flags);
    (first, second)
}

fn tenants(server: &TestServer) -> Vec<Tenant> {
    (0..CLIENTS).map(|_| Tenant::new(server)).collect()
}

/// Every acknowledged sale is in the database.
fn assert_none_lost(cluster: &Cluster, database: &str, acknowledged: &[(i64, i64)]) {
    let name = database.rsplit('/').next().expect("a database name").split('?').next().expect("a name");
    let ids: Vec<String> = acknowledged.iter().map(|(_, id)| id.to_string()).collect();
    let found = cluster
        .psql(name, &format!("SELECT count(*) FROM transactions WHERE id IN ({})", ids.join(",")))
        .expect("counted");
    assert_eq!(found, acknowledged.len().to_string(), "every acknowledged sale is kept");
}

fn readiness(server: &TestServer) -> (u16, serde_json::Value, Duration) {
    let started = Instant::now();
    let (status, body) = send(server.get("/readyz"));
    (status, body, started.elapsed())
}

#[test]
fn a_stopped_database_is_503_with_retry_after_and_the_service_recovers_by_itself() {
    if !crate::asked() {
        return;
    }
    let cluster = cluster();
    let database = cluster.create_database().expect("a database");
    let flags = ["--rate-limit", "0", "--credential-rate-limit", "0", "--log-format", "json"];
    let (first, second) = two_instances(&database, &flags);
    let load =
        Load::start(&[first.base_url.clone(), second.base_url.clone()], tenants(&first), Duration::from_secs(40));
    std::thread::sleep(Duration::from_secs(3));

    let stopped_at = Instant::now();
    cluster.stop().expect("pg_ctl stop");
    std::thread::sleep(Duration::from_secs(3));
    let (status, body, took) = readiness(&first);
    assert_eq!(status, 503, "not ready while the database is stopped: {body}");
    assert_eq!(body["missing"][0]["check"], "database", "{body}");
    assert!(took < Duration::from_secs(3), "readiness answers at once: {took:?}");
    std::thread::sleep(Duration::from_secs(7));
    cluster.start_again().expect("pg_ctl start");
    let back_at = Instant::now();
    let recovered = load.recovered_after(back_at, Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(2));
    let (answers, acknowledged) = load.finish();

    let during = Tally::of(answers.iter().filter(|answer| answer.at >= stopped_at));
    println!(
        "stopped database, two instances, {CLIENTS} clients: stopped {:?}; after the stop {}; recovered {:?} after \
         the database was back; {} sales acknowledged in all",
        back_at - stopped_at,
        during.summary(),
        recovered,
        acknowledged.len()
    );
    during.assert_outage_answers("stopped database");
    assert_eq!(during.transport, 0, "every request got an answer");
    assert_recovered("stopped database", recovered);
    assert_eq!(readiness(&second).0, 200, "ready again");
    assert_none_lost(&cluster, &database, &acknowledged);
    // Through the outage and the shutdown, every line says which request or task it is of.
    for server in [first, second] {
        let log = server.stop_and_log();
        let unattributed = crate::helpers::unattributed_lines(&log);
        assert!(unattributed.is_empty(), "lines that name no request or task:\n{}", unattributed.join("\n"));
    }
}

#[test]
fn a_hung_database_is_503_well_within_the_request_timeout() {
    if !crate::asked() {
        return;
    }
    let cluster = cluster();
    let database = cluster.create_database().expect("a database");
    // A 4 s database limit (2 s to wait for a connection) under a 15 s request timeout.
    let flags = [
        "--rate-limit",
        "0",
        "--credential-rate-limit",
        "0",
        "--database-timeout-seconds",
        "4",
        "--request-timeout-seconds",
        "15",
    ];
    let (first, second) = two_instances(&database, &flags);
    // Twice as many clients as the pool has connections: what waits for one must not pile up.
    let load =
        Load::start(&[first.base_url.clone(), second.base_url.clone()], tenants(&first), Duration::from_secs(40));
    std::thread::sleep(Duration::from_secs(3));

    let hung_at = Instant::now();
    cluster.pause();
    std::thread::sleep(Duration::from_secs(6));
    let (status, body, took) = readiness(&first);
    assert_eq!(status, 503, "not ready while the database hangs: {body}");
    assert!(took < Duration::from_secs(4), "readiness never waits for the hung database long: {took:?}");
    let (status, _) = send(first.get("/healthz"));
    assert_eq!(status, 200, "alive");
    std::thread::sleep(Duration::from_secs(6));
    cluster.resume();
    let back_at = Instant::now();
    let recovered = load.recovered_after(back_at, Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(2));
    let (answers, acknowledged) = load.finish();

    let during = Tally::of(answers.iter().filter(|answer| answer.at >= hung_at));
    println!(
        "hung database (SIGSTOP), two instances, {CLIENTS} clients, database limit 4 s, request timeout 15 s: \
         hung {:?}; after the hang began {}; recovered {:?} after the database went on; {} sales acknowledged in all",
        back_at - hung_at,
        during.summary(),
        recovered,
        acknowledged.len()
    );
    during.assert_outage_answers("hung database");
    assert_eq!(during.timeouts_408 + during.transport, 0, "a 503 before the request timeout, every time");
    assert!(during.slowest_failure < Duration::from_secs(12), "well within the 15 s: {:?}", during.slowest_failure);
    assert_recovered("hung database", recovered);
    assert_none_lost(&cluster, &database, &acknowledged);
}

#[test]
fn a_failover_to_a_promoted_synchronous_standby_is_503_then_served_with_nothing_lost() {
    if !crate::asked() {
        return;
    }
    let primary = cluster();
    let database = primary.create_database().expect("a database");
    let standby = primary.synchronous_standby().expect("a synchronous standby");
    let name = database.rsplit('/').next().expect("a database name").to_owned();
    let both = format!(
        "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/{name}?target_session_attrs=read-write",
        primary.port, standby.port
    );
    let (first, second) = two_instances(&both, &["--rate-limit", "0", "--credential-rate-limit", "0"]);
    let load =
        Load::start(&[first.base_url.clone(), second.base_url.clone()], tenants(&first), Duration::from_secs(40));
    std::thread::sleep(Duration::from_secs(3));

    // The primary's host dies; a moment later the standby is promoted.
    let failed_at = Instant::now();
    primary.kill().expect("the primary killed");
    std::thread::sleep(Duration::from_secs(2));
    let (status, body, _) = readiness(&first);
    assert_eq!(status, 503, "not ready with no primary: {body}");
    standby.promote().expect("the standby promoted");
    let promoted_at = Instant::now();
    let recovered = load.recovered_after(promoted_at, Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(2));
    let (answers, acknowledged) = load.finish();

    let during = Tally::of(answers.iter().filter(|answer| answer.at >= failed_at));
    println!(
        "failover to a promoted synchronous standby, two instances, {CLIENTS} clients: promoted {:?} after the \
         primary died; after that {}; recovered {:?} after the promotion; {} sales acknowledged in all",
        promoted_at - failed_at,
        during.summary(),
        recovered,
        acknowledged.len()
    );
    during.assert_outage_answers("failover");
    assert_recovered("failover", recovered);
    assert_eq!(readiness(&second).0, 200, "ready again, on the new primary");
    assert_none_lost(&standby, &name, &acknowledged);
}
