//! Work the service does on its own while it runs.

use std::time::Duration;
use subscriber_protocol::UnixSeconds;

use subscriber_protocol::Environment;
use tokio::task::JoinSet;
use tracing::Instrument;

use crate::logging::task_span;

use crate::state::AppState;

/// Idempotency keys are kept this long.
const IDEMPOTENCY_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// Events are kept this long: the log lists 30 days, and a stream can resume from an event
/// that old. (Incremental sync does not need them: its positions are on the transactions.)
const EVENT_RETENTION: Duration = crate::event_log::LOG_KEPT;

/// How often pending point-of-sale transactions are checked for settlement.
const SETTLE_INTERVAL: Duration = Duration::from_secs(1);

/// A handle that stops every background task when aborted or dropped.
pub struct Background(JoinSet<()>);

impl Background {
    pub fn abort(mut self) {
        self.0.abort_all();
    }
}

pub fn spawn(state: &AppState) -> Background {
    let mut tasks = JoinSet::new();
    if let Some(following) = crate::instances::follow(state) {
        tasks.spawn((following).instrument(task_span("instances")));
    }
    let usage_state = state.clone();
    tasks.spawn(
        (async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tick.tick().await;
                if let Err(error) = usage_state.usage.flush(&usage_state.db).await {
                    tracing::warn!(error = %error, "usage counts not saved");
                }
            }
        })
        .instrument(task_span("usage flush")),
    );
    if state.db.is_shared() {
        let places_state = state.clone();
        tasks.spawn(
            (async move {
                // Well within `stream_places::HELD_FOR`: a missed renewal or two loses no place.
                let mut tick = tokio::time::interval(crate::storage::stream_places::HELD_FOR / 3);
                loop {
                    tick.tick().await;
                    let held = places_state.events.held_places();
                    if let Err(error) = places_state.db.renew_stream_places(held).await {
                        tracing::warn!(error = %error, "open streams' places not renewed");
                    }
                }
            })
            .instrument(task_span("stream places")),
        );
    }
    let history_state = state.clone();
    tasks.spawn(
        (async move { history_state.request_history.run(history_state.db.clone()).await })
            .instrument(task_span("request history")),
    );
    let prune_state = state.clone();
    tasks.spawn(
        (async move {
            // Often enough that a request is gone within minutes of its last day.
            let mut tick = tokio::time::interval(Duration::from_secs(300));
            loop {
                tick.tick().await;
                let before = prune_state.request_history.oldest_kept();
                match prune_state.db.prune_requests(before).await {
                    Ok(pruned) if pruned > 0 => {
                        tracing::info!(pruned, "requests older than the history keeps forgotten")
                    }
                    Ok(_) => {}
                    Err(error) => tracing::warn!(error = %error, "old requests not pruned from the history"),
                }
            }
        })
        .instrument(task_span("request history prune")),
    );
    let purge_state = state.clone();
    tasks.spawn(
        (async move {
            let mut tick = tokio::time::interval(Duration::from_secs(3600));
            loop {
                tick.tick().await;
                let before = UnixSeconds::now().minus(IDEMPOTENCY_RETENTION);
                match purge_state.db.purge_idempotency(before).await {
                    Ok(purged) if purged > 0 => tracing::info!(purged, "old idempotency keys forgotten"),
                    Ok(_) => {}
                    Err(error) => tracing::warn!(error = %error, "idempotency keys not purged"),
                }
            }
        })
        .instrument(task_span("idempotency purge")),
    );
    let settle_state = state.clone();
    tasks.spawn(
        (async move {
            let mut tick = tokio::time::interval(SETTLE_INTERVAL);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(error) = crate::ledger::settle_due(&settle_state).await {
                    tracing::warn!(error = %error, "pending transactions not settled");
                }
            }
        })
        .instrument(task_span("settlement")),
    );
    let consent_state = state.clone();
    tasks.spawn(
        (async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(error) = crate::accounts::consent::warn_due(&consent_state).await {
                    tracing::warn!(error = %error, "expiring bank consents not announced");
                }
            }
        })
        .instrument(task_span("bank consent")),
    );
    let logins_state = state.clone();
    tasks.spawn(
        (async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                match crate::limits::purge_failed_logins(&logins_state.db).await {
                    Ok(purged) if purged > 0 => tracing::debug!(purged, "old failed logins forgotten"),
                    Ok(_) => {}
                    Err(error) => tracing::warn!(error = %error, "failed logins not purged"),
                }
            }
        })
        .instrument(task_span("failed-login purge")),
    );
    let events_state = state.clone();
    tasks.spawn(
        (async move {
            let mut tick = tokio::time::interval(Duration::from_secs(3600));
            loop {
                tick.tick().await;
                let before = UnixSeconds::now().minus(EVENT_RETENTION);
                let purged = events_state.db.purge_events(before).await;
                match purged {
                    Ok(purged) if purged > 0 => tracing::info!(purged, "old events and delivery attempts forgotten"),
                    Ok(_) => {}
                    Err(error) => tracing::warn!(error = %error, "old events not purged"),
                }
            }
        })
        .instrument(task_span("event purge")),
    );
    tasks.spawn((crate::webhooks::delivery::run(state.clone())).instrument(task_span("webhook delivery")));
    if state.environment() == Environment::Sandbox && state.config.simulate_rate > 0 {
        tasks.spawn(
            (crate::sandbox::simulator::run(state.clone(), state.config.simulate_rate))
                .instrument(task_span("sandbox simulator")),
        );
    }
    Background(tasks)
}
