use serde::{Deserialize, Serialize};

/// An item of `result.merchants`, with the names and types of spec 2.8.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscoveredMerchant {
    /// The merchant identifier as a statement prints it.
    #[serde(rename = "ID")]
    pub id: String,
    pub address: String,
    /// `5812 Eating Places, Restaurants`
    pub category: String,
    pub city: String,
    pub comment: f64,
    /// 0 to 100.
    #[serde(rename = "confScore")]
    pub conf_score: f64,
    #[serde(rename = "countryCode")]
    pub country_code: String,
    #[serde(rename = "countryName")]
    pub country_name: String,
    #[serde(rename = "dbaName")]
    pub dba_name: String,
    #[serde(rename = "locationId")]
    pub location_id: i64,
    #[serde(rename = "phoneNumber")]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub phone_number: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub zip: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscoverResult {
    pub merchants: Vec<DiscoveredMerchant>,
    pub message: String,
}

/// `GET /merchant/discover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiscoverResponse {
    pub result: DiscoverResult,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum MatchType {
    Exact,
    Fuzzy,
}

/// Query of `GET /merchant/discover`: a statement descriptor (`merchid`, alias `merchId`),
/// an address, or a position.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct DiscoverQuery {
    #[serde(default, alias = "merchId", skip_serializing_if = "Option::is_none")]
    pub merchid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // Inline: a query parameter's schema is not collected into the document's components.
    #[cfg_attr(feature = "openapi", param(inline))]
    pub match_type: Option<MatchType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_no: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zip: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latitude: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longitude: Option<f64>,
    /// Metres around `latitude`/`longitude`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
}
