//! The sandbox merchant directory: merchants generated once from a seed, plus the enrolled
//! merchants' locations, and the index discovery searches.
//!
//! Interface stub: the directory work fills it in.

use rand::RngCore;

/// A merchant of the directory, as a statement and discovery show it.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectoryMerchant {
    /// `directory_merchants.id`, or the location id for an enrolled location.
    pub id: i64,
    pub dba_name: String,
    /// What a card statement prints, e.g. `SQ *BLUE BOTTLE COFFEE`.
    pub descriptor: String,
    /// 4-digit MCC.
    pub mcc: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub region: Option<String>,
    /// ISO 3166-1 alpha-3.
    pub country: String,
    pub zip: String,
    pub phone: u64,
    pub latitude: f64,
    pub longitude: f64,
    /// ISO 4217 currency of the country.
    pub currency: String,
    /// Set for an enrolled merchant's location.
    pub merchant_id: Option<i64>,
    pub location_id: Option<i64>,
}

/// The directory as the running service holds it.
#[derive(Default)]
pub struct Directory {}

impl Directory {
    /// Makes an enrolled merchant's new location findable by discovery at once.
    pub fn add_enrolled_location(&self, _location: DirectoryMerchant) {}

    /// A merchant for a simulated purchase.
    pub fn random_merchant(&self, _rng: &mut dyn RngCore) -> Option<DirectoryMerchant> {
        None
    }
}

/// The statement descriptor of an enrolled merchant's location.
pub fn descriptor_for_location(merchant_name: &str, city: &str) -> String {
    // A statement prints 22 characters; counting bytes would cut a character in two.
    format!("{} {}", merchant_name.to_uppercase(), city.to_uppercase()).chars().take(22).collect()
}
