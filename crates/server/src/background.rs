//! Work the service does on its own while it runs.

use std::time::Duration;

use chrono::Utc;
use tokio::task::JoinSet;

use crate::state::AppState;
use crate::storage;

/// Idempotency keys are kept this long.
const IDEMPOTENCY_RETENTION_SECONDS: i64 = 24 * 3600;

/// A handle that stops every background task when aborted or dropped.
pub struct Background(JoinSet<()>);

impl Background {
    pub fn abort(mut self) {
        self.0.abort_all();
    }
}

pub fn spawn(state: &AppState) -> Background {
    let mut tasks = JoinSet::new();
    let usage_state = state.clone();
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        loop {
            tick.tick().await;
            if let Err(error) = usage_state.usage.flush(&usage_state.db).await {
                tracing::warn!(error = %error, "usage counts not saved");
            }
        }
    });
    let purge_state = state.clone();
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(3600));
        loop {
            tick.tick().await;
            let before = Utc::now().timestamp() - IDEMPOTENCY_RETENTION_SECONDS;
            match purge_state.db.write(move |transaction| storage::idempotency::purge(transaction, before)).await {
                Ok(purged) if purged > 0 => tracing::info!(purged, "old idempotency keys forgotten"),
                Ok(_) => {}
                Err(error) => tracing::warn!(error = %error, "idempotency keys not purged"),
            }
        }
    });
    Background(tasks)
}
