//! Places the service knows: cities with their country, region, postcodes and coordinates
//! (shipped under `assets/`, never downloaded).
//!
//! Interface stub: the directory work fills it in.

/// A known city.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub city: String,
    pub region: Option<String>,
    /// ISO 3166-1 alpha-3.
    pub country: String,
    pub latitude: f64,
    pub longitude: f64,
}

/// The place an address is in, when the service knows its city (matched without regard to
/// case or accents; the postcode picks among cities of the same name).
pub fn locate(_country_alpha3: &str, _city: &str, _zip: &str) -> Option<Place> {
    None
}
