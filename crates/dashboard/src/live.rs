//! The real-time stream of a card: connects, forwards each transaction, reconnects after a drop
//! (resuming from the last event id), and says whether it is live.

use std::time::Duration;

use futures::StreamExt;

use crate::app::Dashboard;
use crate::error::codes;
use crate::views::LiveEvent;

const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(15);

/// Watches `card_id` until `sink` returns `false` (the window went away), the session ends, or
/// the task running it is dropped.
pub async fn watch(dashboard: &Dashboard, card_id: i64, mut sink: impl FnMut(LiveEvent) -> bool) {
    let mut last_event_id: Option<String> = None;
    let mut retry = FIRST_RETRY;
    loop {
        let (service, token) = match dashboard.authorized().await {
            Ok(authorized) => authorized,
            Err(error) if error.is(codes::NOT_SIGNED_IN) || error.is(codes::NOT_CONNECTED) => {
                sink(LiveEvent::Status { live: false, message: Some("signed out".to_owned()) });
                return;
            }
            Err(error) => {
                if !sink(LiveEvent::Status { live: false, message: Some(error.message) }) {
                    return;
                }
                tokio::time::sleep(retry).await;
                retry = (retry * 2).min(LAST_RETRY);
                continue;
            }
        };
        match service.card_transaction_stream(&token, card_id, last_event_id.as_deref()).await {
            Ok(stream) => {
                if !sink(LiveEvent::Status { live: true, message: None }) {
                    return;
                }
                retry = FIRST_RETRY;
                let mut stream = std::pin::pin!(stream);
                let mut ended_by = "the stream ended".to_owned();
                while let Some(event) = stream.next().await {
                    match event {
                        Ok(event) => {
                            if event.id.is_some() {
                                last_event_id.clone_from(&event.id);
                            }
                            if let Some(transaction) = event.transaction() {
                                dashboard.remember_transaction(transaction.clone());
                                if !sink(LiveEvent::Transaction { transaction: Box::new(transaction) }) {
                                    return;
                                }
                            }
                        }
                        Err(error) => {
                            ended_by = error.message;
                            break;
                        }
                    }
                }
                if !sink(LiveEvent::Status { live: false, message: Some(format!("{ended_by}; reconnecting")) }) {
                    return;
                }
            }
            Err(error) => {
                let message = if error.status == Some(404) && error.request_id.is_some() {
                    format!("real-time updates are not available: {}", error.message)
                } else {
                    error.message
                };
                if !sink(LiveEvent::Status { live: false, message: Some(message) }) {
                    return;
                }
            }
        }
        tokio::time::sleep(retry).await;
        retry = (retry * 2).min(LAST_RETRY);
    }
}
