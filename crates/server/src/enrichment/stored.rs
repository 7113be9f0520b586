//! The enrichment of the transactions the service stores and generates (card transactions,
//! bank-account transactions), as every answer, event and stream shows them.
//!
//! What the matcher finds depends only on what the network sent (descriptor, MCC, city, zip,
//! country), and a card's history repeats the same few hundred merchants, so each answer is
//! kept in a memo shared by every caller: a card's first read costs one match per distinct
//! merchant, not one per row. The memo belongs to the loaded directory (a new directory starts
//! a new memo).

use std::sync::Arc;

use quick_cache::sync::Cache;
use subscriber_protocol::{Channel, Enrichment, PersonalFinanceCategory, PfcDetailed, TransactionEnrichment};

use super::{NetworkData, enrich};
use crate::directory::Directory;
use crate::storage::transactions::TransactionRow;

/// How many distinct network data the memo keeps (each about half a kilobyte).
const MEMO_ENTRIES: usize = 50_000;

/// The memo of the matcher's answers, kept for the service's life.
pub struct EnrichmentMemo {
    /// The directory the answers were found in (`Arc` identity) and the answers.
    kept: parking_lot::Mutex<Option<(Arc<Directory>, Arc<Answers>)>>,
}

/// Descriptor, MCC, city, zip and country.
type MemoKey = (String, Option<u16>, String, String, String);
type Answers = Cache<MemoKey, Arc<Enrichment>>;

impl Default for EnrichmentMemo {
    fn default() -> Self {
        Self { kept: parking_lot::Mutex::new(None) }
    }
}

/// Enriches stored transactions with one loaded directory.
#[derive(Clone)]
pub struct Enricher {
    directory: Arc<Directory>,
    memo: Arc<Answers>,
}

impl EnrichmentMemo {
    pub fn enricher(&self, directory: Arc<Directory>) -> Enricher {
        let mut kept = self.kept.lock();
        let memo = match kept.as_ref() {
            Some((known, memo)) if Arc::ptr_eq(known, &directory) => Arc::clone(memo),
            _ => {
                let memo = Arc::new(Cache::new(MEMO_ENTRIES));
                *kept = Some((Arc::clone(&directory), Arc::clone(&memo)));
                memo
            }
        };
        Enricher { directory, memo }
    }
}

impl Enricher {
    /// What the matcher finds for network data, from the memo when it was asked before.
    pub fn network(&self, network: &NetworkData) -> Arc<Enrichment> {
        let key = (
            network.descriptor.clone(),
            network.mcc,
            network.city.clone().unwrap_or_default(),
            network.zip.clone().unwrap_or_default(),
            network.country.clone().unwrap_or_default(),
        );
        if let Some(found) = self.memo.get(&key) {
            return found;
        }
        let found = Arc::new(enrich(&self.directory, network));
        self.memo.insert(key, Arc::clone(&found));
        found
    }

    /// A stored card transaction's counterparty, intermediaries, channel and category, from
    /// what the network sent (its history's facts, stream and refund, come from
    /// [`super::history`], but for a refund that names its purchase).
    pub fn card_row(&self, row: &TransactionRow) -> TransactionEnrichment {
        let network = NetworkData {
            descriptor: row.descriptor.clone(),
            mcc: row.category.parse().ok(),
            city: Some(row.city.clone()).filter(|city| !city.is_empty()),
            zip: Some(row.zip.clone()).filter(|zip| !zip.is_empty()),
            country: Some(row.country.clone()).filter(|country| !country.is_empty()),
        };
        let found = self.network(&network);
        TransactionEnrichment {
            counterparty: found.counterparty.clone(),
            intermediaries: found.intermediaries.clone(),
            channel: found.channel,
            personal_finance_category: found.personal_finance_category,
            recurring_stream_id: None,
            // A refund made as one names its purchase; the history matches the others.
            refund_of: row.refund_of,
        }
    }

    /// A bank-account transaction's enrichment, from the bank's text: pay, rent and utility
    /// bills by their words; a card purchase by the merchant the text names after `·`.
    pub fn bank_text(&self, description: &str) -> TransactionEnrichment {
        let words = description.to_ascii_lowercase();
        let category = |detailed| Some(PersonalFinanceCategory::of(detailed));
        let known = if words.contains("payroll") || words.contains("salary") {
            category(PfcDetailed::IncomeWages)
        } else if words.starts_with("rent") {
            category(PfcDetailed::RentAndUtilitiesRent)
        } else if words.contains("electricity") {
            category(PfcDetailed::RentAndUtilitiesGasAndElectricity)
        } else {
            None
        };
        if known.is_some() {
            return TransactionEnrichment {
                personal_finance_category: known,
                channel: Channel::Other,
                ..TransactionEnrichment::default()
            };
        }
        let merchant = description.rsplit_once('·').map_or(description, |(_, merchant)| merchant).trim();
        let found = self.network(&NetworkData { descriptor: merchant.to_owned(), ..NetworkData::default() });
        TransactionEnrichment {
            counterparty: found.counterparty.clone(),
            intermediaries: found.intermediaries.clone(),
            channel: if description.starts_with("Card purchase") { Channel::InStore } else { found.channel },
            personal_finance_category: found.personal_finance_category,
            recurring_stream_id: None,
            refund_of: None,
        }
    }
}
