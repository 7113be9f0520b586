//! Real-time streams of a card or of the merchant: forwards each transaction and says whether
//! the stream is live. The client reconnects by itself (resuming after the last event); when
//! it gives up, the stream is opened again here after a pause.

use std::time::Duration;

use futures::StreamExt;
use subscriber_client::{Client, TransactionStream};
use subscriber_protocol::{CardId, CardTransaction, MerchantId, MerchantTransaction};

use crate::app::Dashboard;
use crate::error::{CommandError, codes};
use crate::views::LiveEvent;

/// The pause before a stream the client gave up on is opened again.
const REOPEN_AFTER: Duration = Duration::from_secs(10);

/// Watches `card_id` until `sink` returns `false` (the window went away), the session ends,
/// or the task running it is dropped.
pub async fn watch(dashboard: &Dashboard, card_id: CardId, sink: impl FnMut(LiveEvent<CardTransaction>) -> bool) {
    follow(
        dashboard,
        |client| client.card_transaction_stream(card_id),
        |transaction| dashboard.remember_transaction(transaction.clone()),
        sink,
    )
    .await;
}

/// Watches the merchant's transactions across its locations, like [`watch`].
pub async fn watch_merchant(
    dashboard: &Dashboard,
    merchant_id: MerchantId,
    sink: impl FnMut(LiveEvent<MerchantTransaction>) -> bool,
) {
    follow(
        dashboard,
        |client| client.merchant_transaction_stream(merchant_id),
        |transaction| dashboard.remember_merchant_transaction(transaction.clone()),
        sink,
    )
    .await;
}

async fn follow<T>(
    dashboard: &Dashboard,
    open: impl Fn(&Client) -> TransactionStream<T>,
    keep: impl Fn(&T),
    mut sink: impl FnMut(LiveEvent<T>) -> bool,
) {
    loop {
        let client = match dashboard.client().await {
            Ok(client) => client,
            Err(error) => {
                sink(LiveEvent::Status { live: false, message: Some(signed_out(&error)) });
                return;
            }
        };
        let mut stream = open(&client);
        let mut connected = stream.connected();
        let mut live = false;
        let mut signal_open = true;
        let ended_by = loop {
            tokio::select! {
                item = stream.next() => match item {
                    Some(Ok(transaction)) => {
                        keep(&transaction);
                        if !sink(LiveEvent::Transaction { transaction: Box::new(transaction) }) {
                            return;
                        }
                    }
                    Some(Err(error)) => break CommandError::from(error),
                    None => break CommandError::new(codes::UNREACHABLE, "the stream ended"),
                },
                changed = connected.changed(), if signal_open => {
                    if changed.is_err() {
                        signal_open = false;
                        continue;
                    }
                    let now = *connected.borrow_and_update();
                    if now != live {
                        live = now;
                        let message = (!now).then(|| "connection lost; reconnecting".to_owned());
                        if !sink(LiveEvent::Status { live, message }) {
                            return;
                        }
                    }
                }
            }
        };
        let message = if ended_by.status == Some(404) {
            format!("real-time updates are not available: {}", ended_by.message)
        } else {
            format!("{}; trying again shortly", ended_by.message)
        };
        if !sink(LiveEvent::Status { live: false, message: Some(message) }) {
            return;
        }
        tokio::time::sleep(REOPEN_AFTER).await;
    }
}

fn signed_out(error: &CommandError) -> String {
    if error.is(codes::NOT_SIGNED_IN) || error.is(codes::NOT_CONNECTED) {
        "signed out".to_owned()
    } else {
        error.message.clone()
    }
}
