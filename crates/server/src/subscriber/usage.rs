//! Billable request counts: every authenticated request in `established`.

use std::collections::HashMap;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use chrono::Utc;
use parking_lot::Mutex;
use subscriber_protocol::Environment;

use crate::http::extract::Auth;
use crate::state::AppState;
use crate::storage::{self, Db, StorageResult};

type Key = (i64, String, String);

/// Counts in memory on the hot path; `flush` moves them to the database.
pub struct UsageRecorder {
    billing: bool,
    pending: Mutex<HashMap<Key, u64>>,
}

impl UsageRecorder {
    pub fn new(environment: Environment) -> Self {
        Self { billing: environment == Environment::Established, pending: Mutex::default() }
    }

    pub fn is_billing(&self) -> bool {
        self.billing
    }

    pub fn record(&self, subscriber_id: i64, endpoint: String) {
        let day = Utc::now().date_naive().to_string();
        *self.pending.lock().entry((subscriber_id, day, endpoint)).or_default() += 1;
    }

    pub async fn flush(&self, db: &Db) -> StorageResult<()> {
        let batch: Vec<(Key, u64)> = self.pending.lock().drain().collect();
        if batch.is_empty() {
            return Ok(());
        }
        db.write(move |transaction| {
            for ((subscriber_id, day, endpoint), count) in &batch {
                storage::usage::add(transaction, *subscriber_id, day, endpoint, *count)?;
            }
            Ok(())
        })
        .await
    }
}

/// Route layer of the protected API routes: counts the request, once its token is verified,
/// under the route it matched (`GET /card/{card_id}`). It runs inside the idempotency layer,
/// so a replayed response is not counted again.
pub async fn record_usage(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.usage.is_billing()
        && let Some(auth) = request.extensions().get::<Auth>()
    {
        let method = request.method().as_str();
        let endpoint = request.extensions().get::<MatchedPath>().map_or_else(
            || format!("{method} (unmatched)"),
            |matched| format!("{method} {}", matched.as_str().trim_end_matches('/')),
        );
        state.usage.record(auth.subscriber_id, endpoint);
    }
    next.run(request).await
}
