//! Enriched transactions (contract: "Enriched transactions (fourth round)"): the counterparty,
//! intermediaries, channel, personal finance category and location of a transaction, found by
//! the directory's [`matcher`](crate::directory::matcher) from what the card network sends;
//! recurring streams and refunds found in a card's or account's history; brand logos; and the
//! taxonomy.
//!
//! [`enrich`] is the one call per transaction: `POST /transactions/enrich`
//! (`crate::enrichment_api`) makes it for each transaction of a batch, and
//! [`stored::Enricher`] for each stored or generated transaction every list, sync, stream, event
//! and webhook shows ([`history`] adds its stream and refunded purchase). No HTTP and no service
//! state here: the card rows and the service's state use it.

pub mod categories;
pub mod history;
pub mod logo;
pub mod recurring;
pub mod stored;

use subscriber_protocol::{Counterparty, EnrichedLocation, Enrichment, Intermediary};

pub use crate::directory::matcher::NetworkData;
use crate::directory::{Directory, DirectoryMerchant, Matched};

/// The enrichment of one transaction.
pub fn enrich(directory: &Directory, network: &NetworkData) -> Enrichment {
    let matched = directory.match_transaction(network);
    enrichment_of(&matched, network)
}

/// The enrichment of each transaction, in order (one read of the directory for all).
pub fn enrich_all(directory: &Directory, networks: &[NetworkData]) -> Vec<Enrichment> {
    directory
        .match_transactions(networks)
        .iter()
        .zip(networks)
        .map(|(matched, network)| enrichment_of(matched, network))
        .collect()
}

fn enrichment_of(matched: &Matched, network: &NetworkData) -> Enrichment {
    let found = matched.counterparty.as_ref();
    let brand = found.map(|found| &found.brand);
    let counterparty = found.map(|found| Counterparty {
        brand_id: found.brand.id.clone(),
        name: found.name.clone(),
        kind: found.brand.kind,
        website: found.brand.website.clone(),
        logo_url: found.brand.logo_url(),
        confidence: found.confidence,
        score: found.score,
        reasons: found.reasons.clone(),
    });
    let intermediaries = matched
        .intermediaries
        .iter()
        .map(|platform| Intermediary { name: platform.name.to_owned(), kind: platform.kind })
        .collect();
    // The category of the brand's own code when the match is sure; a weak match lends only its
    // name to refine the code sent.
    let sure = found.is_some_and(|found| found.score >= 50);
    let category_brand = brand.filter(|_| sure || network.mcc.is_some());
    Enrichment {
        counterparty,
        intermediaries,
        channel: categories::channel(network.mcc, category_brand, &matched.intermediaries, &network.descriptor),
        personal_finance_category: categories::category(network.mcc, category_brand),
        location: found.and_then(|found| found.location.as_ref()).map(location_of),
    }
}

/// Where a matched merchant is, as the contract shows it.
pub fn location_of(merchant: &DirectoryMerchant) -> EnrichedLocation {
    EnrichedLocation {
        location_id: merchant.location_id(),
        address: merchant.postal_address(),
        city: merchant.city.clone(),
        zip: merchant.zip.clone(),
        country_code: merchant.country.clone(),
        latitude: merchant.latitude,
        longitude: merchant.longitude,
    }
}
