//! What the command palette searches: the subscriber's cards, merchant locations, webhook
//! endpoints, newest transactions across cards and newest events, read in one go when the
//! palette opens (the UI ranks them as the person types).

use futures::future::try_join_all;
use serde::Serialize;
use subscriber_protocol::{CardRecord, CardTransaction, Event, Merchant, Webhook};

use crate::app::Dashboard;
use crate::error::CommandError;

/// Newest transactions read per card, and kept across cards.
const TRANSACTIONS_PER_CARD: u32 = 100;
const TRANSACTIONS_KEPT: usize = 300;
/// Newest events kept.
const EVENTS_KEPT: u32 = 200;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct PaletteIndex {
    pub cards: Vec<CardRecord>,
    /// `None` before enrolling as a merchant.
    pub merchant: Option<Merchant>,
    pub webhooks: Vec<Webhook>,
    /// Newest first, across cards.
    pub transactions: Vec<CardTransaction>,
    /// Newest first.
    pub events: Vec<Event>,
}

impl Dashboard {
    pub async fn palette_index(&self) -> Result<PaletteIndex, CommandError> {
        let client = self.client().await?;
        let (cards, merchant, webhooks, events) =
            tokio::try_join!(self.cards(), self.merchant(), self.webhooks(), async {
                Ok(client.events().limit(EVENTS_KEPT).await?.events)
            })?;
        let pages = try_join_all(
            cards.iter().map(|card| client.card_transactions(card.card_id).limit(TRANSACTIONS_PER_CARD).send()),
        )
        .await?;
        let mut transactions: Vec<_> = pages.into_iter().flat_map(|page| page.transactions).collect();
        transactions.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.transaction_id.cmp(&a.transaction_id)));
        transactions.truncate(TRANSACTIONS_KEPT);
        Ok(PaletteIndex { cards, merchant, webhooks, transactions, events })
    }

    /// One event by id (`evt_41`), as a link to it opens it.
    pub async fn event(&self, event_id: &str) -> Result<Event, CommandError> {
        Ok(self.client().await?.event(event_id).await?)
    }
}
