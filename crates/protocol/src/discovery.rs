use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

use crate::{Confidence, LocationId, MatchReason};

/// A merchant found: from the service's directory, or a location enrolled here.
#[apply(wire!)]
pub struct DiscoveredMerchant {
    /// The merchant as a card statement prints it.
    pub descriptor: String,
    /// The street address, house number first.
    pub address: String,
    /// The category code and its description, e.g. `5812 Eating Places, Restaurants`.
    pub category: String,
    /// The city.
    pub city: String,
    /// Metres from the position searched; 0 for a search by descriptor or address.
    pub comment: f64,
    /// How sure the match is, 0 to 100.
    pub conf_score: f64,
    /// The country (ISO 3166-1 alpha-3).
    pub country_code: String,
    /// The country's name in English.
    pub country_name: String,
    /// The trading name ("doing business as").
    pub dba_name: String,
    /// The location's id: above 100,000,000 for the directory, an enrolled location's own id otherwise.
    pub location_id: LocationId,
    /// The telephone number as digits (0 when unknown).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub phone_number: u64,
    /// The postal code as a number (`02116` is 2116).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub zip: u64,
    /// The merchant's brand, the same in every city: `brd_` and 16 hex digits.
    pub brand_id: String,
    /// The brand's web domain, when it has one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub website: Option<String>,
    /// The brand's logo, a URL of this service (no token needed).
    pub logo_url: String,
    /// How sure the match is, in words (`confScore`'s band).
    pub confidence: Confidence,
    /// Why it matched a descriptor (empty for an address or a position).
    pub reasons: Vec<MatchReason>,
}

/// What a search found.
#[apply(wire!)]
pub struct DiscoverResult {
    /// The merchants found, best match first; empty when none.
    pub merchants: Vec<DiscoveredMerchant>,
    /// How many were found, in words.
    pub message: String,
}

/// Merchants matching a descriptor, an address or a position.
#[apply(wire!)]
pub struct DiscoverResponse {
    /// The search's outcome.
    pub result: DiscoverResult,
}

/// `exact`: the descriptor as printed, 0 or 1 merchant. `fuzzy` (the default): ranked matches
/// that forgive case, spacing, punctuation, processor prefixes, store numbers and cut-off names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum MatchType {
    Exact,
    Fuzzy,
}

/// A search: a statement descriptor (`merchid`, also accepted as `merchId`), an address (a
/// street, a city or a zip), or a position (`latitude` with `longitude`). A descriptor wins
/// over a position, a position over an address.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct DiscoverQuery {
    /// The merchant as a card statement prints it, e.g. `SQ *BLUE HERON COFFEE`.
    #[serde(default, alias = "merchId", skip_serializing_if = "Option::is_none")]
    pub merchid: Option<String>,
    /// How a descriptor is matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // Inline: a query parameter's schema is not collected into the document's components.
    #[cfg_attr(feature = "openapi", param(inline))]
    pub match_type: Option<MatchType>,
    /// The most merchants to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The street, for a search by address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    /// The house number, with `street`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_no: Option<String>,
    /// The city, for a search by address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// The postal code, for a search by address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zip: Option<String>,
    /// Only merchants in this country.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
    /// Degrees north of the position searched, with `longitude`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latitude: Option<f64>,
    /// Degrees east of the position searched, with `latitude`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longitude: Option<f64>,
    /// Metres around `latitude`/`longitude`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
}
