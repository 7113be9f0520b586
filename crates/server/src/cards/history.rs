//! The sandbox's 36-month history of a newly enrolled card.

use crate::state::AppState;
use crate::storage::transactions::TransactionRow;

pub struct HistoryInput {
    pub seed: u64,
    /// The card's keyed fingerprint: the same card and seed give the same history.
    pub fingerprint: Vec<u8>,
    pub last_four: u16,
    pub country_code: String,
    pub enrolled_at: i64,
}

/// Rows with `card_id` unset (the caller sets it once the card has its id).
pub fn generate(_state: &AppState, _input: &HistoryInput) -> Vec<TransactionRow> {
    Vec::new()
}
