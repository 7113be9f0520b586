//! What a client has done: logins, retries, and the routes it has called.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

/// A snapshot of [`Client::metrics`](crate::Client::metrics).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metrics {
    /// Successful logins (lazy, renewals, and after a `token_expired`).
    pub logins: u64,
    /// Calls repeated once after the service answered `token_expired`.
    pub expired_token_retries: u64,
    /// HTTP requests that got an answer, retries included.
    pub requests: u64,
    /// Repeats after a 429, a 502/503/504 or a broken connection.
    pub retries: u64,
    /// Reconnections of real-time streams.
    pub stream_reconnects: u64,
    /// Answers received per `(method, route template)`, e.g. `("GET", "/card/{card_id}")`.
    pub routes: BTreeMap<(String, String), u64>,
}

#[derive(Default)]
pub(crate) struct Recorder {
    logins: AtomicU64,
    expired_token_retries: AtomicU64,
    requests: AtomicU64,
    retries: AtomicU64,
    stream_reconnects: AtomicU64,
    routes: Mutex<BTreeMap<(String, String), u64>>,
}

impl Recorder {
    pub fn login(&self) {
        self.logins.fetch_add(1, Ordering::Relaxed);
    }

    pub fn expired_token_retry(&self) {
        self.expired_token_retries.fetch_add(1, Ordering::Relaxed);
    }

    pub fn retry(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
    }

    pub fn stream_reconnect(&self) {
        self.stream_reconnects.fetch_add(1, Ordering::Relaxed);
    }

    pub fn answered(&self, method: &str, template: &str) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        *self.routes.lock().entry((method.to_owned(), template.to_owned())).or_default() += 1;
    }

    pub fn snapshot(&self) -> Metrics {
        Metrics {
            logins: self.logins.load(Ordering::Relaxed),
            expired_token_retries: self.expired_token_retries.load(Ordering::Relaxed),
            requests: self.requests.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            stream_reconnects: self.stream_reconnects.load(Ordering::Relaxed),
            routes: self.routes.lock().clone(),
        }
    }
}
