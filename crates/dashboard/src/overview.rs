//! The overview: counts of everything, the newest transactions across all cards, and the
//! billable usage when the service runs as `established`.

use futures::future::try_join_all;
use subscriber_protocol::{AccountStatus, Environment, PersonStatus};

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::views::Overview;

/// Transactions the overview lists.
pub const RECENT_TRANSACTIONS: usize = 8;

impl Dashboard {
    pub async fn overview(&self) -> Result<Overview, CommandError> {
        let client = self.client().await?;
        let environment = self.environment().await?;
        let (cards, merchant, accounts, persons) =
            tokio::try_join!(self.cards(), self.merchant(), self.accounts(), self.persons())?;
        let limit = u32::try_from(RECENT_TRANSACTIONS).unwrap_or(10);
        let pages =
            try_join_all(cards.iter().map(|card| client.card_transactions(card.card_id).limit(limit).send())).await?;
        let mut recent_transactions: Vec<_> = pages.into_iter().flat_map(|page| page.transactions).collect();
        recent_transactions
            .sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.transaction_id.cmp(&a.transaction_id)));
        recent_transactions.truncate(RECENT_TRANSACTIONS);
        let usage = if environment == Environment::Established { Some(client.usage().await?) } else { None };
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(Overview {
            cards: count(cards.len()),
            merchant,
            accounts: count(accounts.len()),
            linked_accounts: count(accounts.iter().filter(|account| account.status == AccountStatus::Linked).count()),
            persons: count(persons.len()),
            verified_persons: count(persons.iter().filter(|person| person.status == PersonStatus::Verified).count()),
            recent_transactions,
            usage,
        })
    }
}
