//! What the tests of every crate share: the service started in-process on a free port with a
//! temporary database ([`TestService`]), a person's browser on the hosted pages ([`Browser`],
//! and [`BlockingBrowser`] for the synchronous black-box suite), a real webhook receiver
//! ([`WebhookReceiver`]), the sandbox's test cards, a database one round trip away
//! ([`DelayProxy`]), and the real faults of a database: a PostgreSQL cluster of a test's own
//! to stop, hang or fail over ([`Cluster`]), and a real PgBouncer in front of one
//! ([`PgBouncer`]).
//!
//! Dev-only: no product crate depends on it.

pub mod browser;
pub mod cards;
pub mod delay;
pub mod pgbouncer;
pub mod postgres;
pub mod receiver;
pub mod service;

pub use browser::{BlockingBrowser, Browser, Page};
pub use cards::{TEST_PAN, TEST_PANS, card_json, test_card};
pub use delay::DelayProxy;
pub use pgbouncer::{PgBouncer, PoolMode};
pub use postgres::Cluster;
pub use receiver::{Delivery, WebhookReceiver};
pub use service::TestService;

/// An e-mail address no other test uses.
pub fn unique_email() -> String {
    format!("dev-{}@example.com", uuid::Uuid::new_v4().simple())
}

/// Whether `time` is within `seconds` of now.
pub fn recent(time: chrono::DateTime<chrono::Utc>, seconds: i64) -> bool {
    (chrono::Utc::now() - time).num_seconds().abs() <= seconds
}

/// The files under `dir` whose bytes contain `needle`, for "the secret is in no file" checks.
pub fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|window| window == needle.as_bytes())
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}
