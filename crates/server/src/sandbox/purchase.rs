//! A point-of-sale purchase: who pays, where, how much; recorded with its real-time event.

use rand::Rng;
use rand::seq::IndexedRandom;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, DirectoryEntryId, LocationId, MerchantId, TransactionId};

use crate::directory::{self, DirectoryMerchant};
use crate::error::ApiError;
use crate::http::idempotency::Idempotent;
use crate::reference::currencies;
use crate::state::AppState;
use crate::storage::cards::CardRow;
use crate::storage::merchants::{LocationRow, MerchantRow};
use crate::storage::transactions::TransactionRow;

/// The card that pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buyer {
    /// `None` for a card of the sandbox's synthetic population (nobody enrolled here).
    pub card_id: Option<CardId>,
    pub last_four: u16,
}

impl Buyer {
    pub fn card(card: &CardRow) -> Self {
        Self { card_id: Some(card.id), last_four: card.enrolled.last_four }
    }

    pub fn synthetic(rng: &mut impl Rng) -> Self {
        Self { card_id: None, last_four: rng.random_range(0..=9999) }
    }
}

/// Where the purchase happens, as the statement and the merchant's list show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shop {
    pub merchant_name: String,
    pub descriptor: String,
    /// 4-digit MCC.
    pub mcc: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    /// ISO 3166-1 alpha-3.
    pub country: String,
    pub zip: String,
    pub currency: String,
    pub directory_id: Option<DirectoryEntryId>,
    pub merchant_id: Option<MerchantId>,
    pub location_id: Option<LocationId>,
}

impl Shop {
    pub fn at_location(location: &LocationRow, merchant: &MerchantRow) -> Self {
        Self {
            merchant_name: merchant.name.clone(),
            descriptor: location.descriptor.clone(),
            mcc: merchant.mcc.clone(),
            street: location.address.street.clone(),
            street_no: location.address.street_no.clone(),
            city: location.address.city.clone(),
            country: location.address.country_code.clone(),
            zip: location.address.zip.clone(),
            currency: currencies::of_country(&location.address.country_code).unwrap_or(FALLBACK_CURRENCY).to_owned(),
            directory_id: None,
            merchant_id: Some(merchant.id),
            location_id: Some(location.id),
        }
    }

    /// A directory merchant; an enrolled location among them stays that merchant's.
    pub fn from_directory(merchant: DirectoryMerchant) -> Self {
        let enrolled = merchant.merchant_id.is_some() && merchant.location_id.is_some();
        Self {
            merchant_name: merchant.dba_name,
            descriptor: merchant.descriptor,
            mcc: merchant.mcc,
            street: merchant.street,
            street_no: merchant.street_no,
            city: merchant.city,
            country: merchant.country,
            zip: merchant.zip,
            currency: merchant.currency,
            directory_id: (!enrolled).then_some(merchant.id),
            merchant_id: merchant.merchant_id,
            location_id: merchant.location_id,
        }
    }

    /// A plausible merchant made up on the spot, for when the directory is empty or the caller
    /// names the merchant.
    pub fn generated(rng: &mut impl Rng, name: Option<&str>) -> Self {
        let (default_name, default_mcc) = GENERATED_MERCHANTS.choose(rng).copied().unwrap_or(("Corner Store", "5499"));
        let (name, mcc) = match name {
            Some(name) => (name, GENERIC_MCC),
            None => (default_name, default_mcc),
        };
        let (city, zip_prefix) = GENERATED_CITIES.choose(rng).copied().unwrap_or(("Portland", "972"));
        let street = GENERATED_STREETS.choose(rng).copied().unwrap_or("Main St");
        Self {
            merchant_name: name.to_owned(),
            descriptor: directory::descriptor_for_location(name, city),
            mcc: mcc.to_owned(),
            street: street.to_owned(),
            street_no: rng.random_range(1..=9999).to_string(),
            city: city.to_owned(),
            country: "USA".to_owned(),
            zip: format!("{zip_prefix}{:02}", rng.random_range(1..=99)),
            currency: "USD".to_owned(),
            directory_id: None,
            merchant_id: None,
            location_id: None,
        }
    }
}

impl Shop {
    /// Where `row` happened: a refund is made where its purchase was.
    pub fn of_row(row: &TransactionRow) -> Self {
        Self {
            merchant_name: row.merchant_name.clone(),
            descriptor: row.descriptor.clone(),
            mcc: row.category.clone(),
            street: row.street.clone(),
            street_no: row.street_no.clone(),
            city: row.city.clone(),
            country: row.country.clone(),
            zip: row.zip.clone(),
            currency: row.currency.clone(),
            directory_id: row.directory_id,
            merchant_id: row.merchant_id,
            location_id: row.location_id,
        }
    }
}

/// A purchase (or a refund, negative) to record.
#[derive(Debug, Clone)]
pub struct Sale {
    pub buyer: Buyer,
    pub shop: Shop,
    pub amount_minor: i64,
    /// When it happened (Unix seconds); now when `None`.
    pub created_at: Option<UnixSeconds>,
    /// The purchase a refund gives back.
    pub refund_of: Option<TransactionId>,
}

impl Sale {
    /// A purchase made now.
    pub fn now(buyer: Buyer, shop: Shop, amount_minor: i64) -> Self {
        Self { buyer, shop, amount_minor, created_at: None, refund_of: None }
    }

    /// Its row (no id yet) as of `now`: pending until `settle_after` past its time.
    pub fn row(self, now: UnixSeconds, settle_after: std::time::Duration) -> TransactionRow {
        let Self { buyer, shop, amount_minor, created_at, refund_of } = self;
        let created_at = created_at.unwrap_or(now);
        let settles_at = created_at.plus(settle_after);
        TransactionRow {
            id: TransactionId(0),
            card_id: buyer.card_id,
            last_four: buyer.last_four,
            created_at,
            pending: settles_at > now,
            settles_at: Some(settles_at),
            amount_minor,
            currency: shop.currency,
            merchant_name: shop.merchant_name,
            descriptor: shop.descriptor,
            category: shop.mcc,
            street: shop.street,
            street_no: shop.street_no,
            city: shop.city,
            country: shop.country,
            zip: shop.zip,
            directory_id: shop.directory_id,
            merchant_id: shop.merchant_id,
            location_id: shop.location_id,
            refund_of,
        }
    }
}

const FALLBACK_CURRENCY: &str = "USD";

/// Miscellaneous and Specialty Retail Stores: a merchant known only by its name.
const GENERIC_MCC: &str = "5999";

const GENERATED_MERCHANTS: [(&str, &str); 8] = [
    ("Corner Bakery", "5462"),
    ("Main Street Diner", "5812"),
    ("Green Valley Grocers", "5411"),
    ("Parkside Pharmacy", "5912"),
    ("Quick Fuel", "5541"),
    ("The Book Nook", "5942"),
    ("Daily Grind Coffee", "5814"),
    ("Hillside Hardware", "5251"),
];

/// Cities with the first digits of their ZIP codes.
const GENERATED_CITIES: [(&str, &str); 6] = [
    ("Portland", "972"),
    ("Austin", "787"),
    ("Denver", "802"),
    ("Columbus", "432"),
    ("Raleigh", "276"),
    ("Madison", "537"),
];

const GENERATED_STREETS: [&str; 8] =
    ["Main St", "Oak Ave", "Maple St", "Elm St", "Park Ave", "Washington St", "Lake Rd", "Cedar Ln"];

/// A purchase amount in minor units: mostly small, sometimes larger, like card spending.
pub fn random_amount_minor(rng: &mut impl Rng) -> i64 {
    let band = rng.random_range(0..100);
    match band {
        0..70 => rng.random_range(150..3_000),
        70..95 => rng.random_range(3_000..15_000),
        _ => rng.random_range(15_000..60_000),
    }
}

/// Records a purchase and announces it to the card's and the merchant's streams: pending, or
/// settled already when it happened longer ago than the settlement delay. With an
/// `Idempotency-Key`, the replay of `respond`'s body is stored in the same transaction.
pub async fn record<R, B>(
    state: &AppState,
    sale: Sale,
    idempotent: Idempotent,
    respond: R,
) -> Result<TransactionRow, ApiError>
where
    R: Fn(&TransactionRow) -> Result<B, ApiError> + Send + Sync + 'static,
    B: serde::Serialize + 'static,
{
    let now = UnixSeconds::now();
    let row = sale.row(now, std::time::Duration::from_secs(state.config.settle_after_seconds));
    let template = row.clone();
    // The response cannot fail for a row just made (its times are now).
    let replay = idempotent.replay(move |id| respond(&TransactionRow { id, ..template.clone() }).ok());
    let (row, event) = state.db.record_sale(row, now, replay).await?;
    state.events.publish(&event.into_iter().collect::<Vec<_>>());
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::mcc;

    #[test]
    fn generated_merchants_use_real_category_codes() {
        for (_, code) in GENERATED_MERCHANTS {
            assert!(mcc::describe(code).is_some(), "{code}");
        }
        assert!(mcc::describe(GENERIC_MCC).is_some());
    }

    #[test]
    fn amounts_are_positive_and_bounded() {
        let mut rng = rand::rng();
        for _ in 0..1000 {
            let amount = random_amount_minor(&mut rng);
            assert!((150..60_000).contains(&amount), "{amount}");
        }
    }
}
