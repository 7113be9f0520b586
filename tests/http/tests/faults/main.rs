//! The real faults, from outside: the service (the real binary, two instances where it
//! matters) under load while its database is stopped and started again, hangs, fails over to
//! a promoted synchronous standby, or (SQLite) fills its file system. What a client must see:
//! 503 `unavailable` with `Retry-After`, never 500, an answer well within the request timeout,
//! recovery with nobody's help, and no acknowledged write lost.
//!
//! Each fault test has a PostgreSQL cluster of its own (`subscriber_testkit::Cluster`), so
//! they run one at a time and apart from the rest of the suite: `make test-faults`
//! (`SUBSCRIBER_TEST_FAULTS=1 cargo test -p http-conformance --test faults -- --test-threads=1`).
//! Without `SUBSCRIBER_TEST_FAULTS` they say so and pass. Each prints its figures.

#[path = "../api/helpers.rs"]
#[allow(unused_imports)]
mod helpers;
mod load;

mod full_disk;
mod postgres;

/// Whether the fault tests were asked for (`make test-faults`).
fn asked() -> bool {
    let asked = std::env::var_os("SUBSCRIBER_TEST_FAULTS").is_some_and(|value| value == "1");
    if !asked {
        eprintln!("fault tests run with SUBSCRIBER_TEST_FAULTS=1 (make test-faults)");
    }
    asked
}
