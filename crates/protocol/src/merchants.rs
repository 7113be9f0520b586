use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

/// A merchant category code sent as `"5812"` or `5812`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, type = "string"))]
pub struct CategoryCode(pub String);

impl<'de> Deserialize<'de> for CategoryCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CodeVisitor;
        impl serde::de::Visitor<'_> for CodeVisitor {
            type Value = CategoryCode;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a 4-digit merchant category code, as a string or a number")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<CategoryCode, E> {
                Ok(CategoryCode(text.to_owned()))
            }
            fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<CategoryCode, E> {
                Ok(CategoryCode(format!("{number:04}")))
            }
            fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<CategoryCode, E> {
                Ok(CategoryCode(number.to_string()))
            }
        }
        deserializer.deserialize_any(CodeVisitor)
    }
}

/// `POST /merchant` (alias `POST /merchant/enroll`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EnrollMerchantRequest {
    pub name: String,
    /// A 4-digit merchant category code (ISO 18245).
    pub category: CategoryCode,
    pub country_code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub phone_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub website: Option<String>,
}

/// The spec spells the id `mechantId`; `merchantId` carries the same value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EnrollMerchantResponse {
    pub message: String,
    #[serde(rename = "mechantId")]
    pub mechant_id: i64,
    #[serde(rename = "merchantId")]
    pub merchant_id: i64,
}

/// `GET /merchant`: the caller's merchant with its locations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Merchant {
    pub merchant_id: i64,
    pub name: String,
    /// `5812 Eating Places, Restaurants`
    pub category: String,
    pub category_code: String,
    pub country_code: String,
    pub phone_number: Option<String>,
    pub website: Option<String>,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
    pub locations: Vec<Location>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LocationInput {
    pub country_code: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub zip: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub latitude: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub longitude: Option<f64>,
}

/// `POST /merchant/location`: one key, `location`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateLocationRequest {
    pub location: LocationInput,
}

/// Where a location's coordinates came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CoordinatesSource {
    /// Sent with the request.
    Provided,
    /// Derived by the service from the city in the address.
    Derived,
    /// Not sent, and the service does not know the city.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreateLocationResponse {
    pub message: String,
    pub location_id: i64,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub coordinates_source: CoordinatesSource,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub location_id: i64,
    pub country_code: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub zip: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub coordinates_source: CoordinatesSource,
    /// What a card statement prints for purchases here.
    pub descriptor: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
}

/// An item of `GET /merchant/<merchantId>/transactions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MerchantTransaction {
    pub transaction_id: i64,
    pub amount: f64,
    pub currency: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
    pub pending: bool,
    pub location_id: i64,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub country: String,
    pub zip: String,
    /// Last four digits of the card used, as an integer.
    pub last_four: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MerchantTransactionPage {
    pub transactions: Vec<MerchantTransaction>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct MerchantTransactionQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// A merchant category code of the service's table (`GET /merchant/categories`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MerchantCategory {
    pub code: String,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MerchantCategoryList {
    pub categories: Vec<MerchantCategory>,
}
