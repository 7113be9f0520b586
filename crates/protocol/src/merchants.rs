use crate::{LocationId, MerchantId, TransactionId};
use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;
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

/// The caller's business, to enroll as a merchant (one per subscriber).
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct EnrollMerchantRequest {
    /// The trading name customers know.
    pub name: String,
    /// What the merchant sells.
    pub category: CategoryCode,
    /// Where the merchant is registered.
    pub country_code: String,
    /// A telephone number.
    pub phone_number: Option<String>,
    /// The merchant's website.
    pub website: Option<String>,
}

/// The enrolled merchant.
#[apply(wire!)]
#[derive(Eq)]
pub struct EnrollMerchantResponse {
    /// `Merchant enrolled`.
    pub message: String,
    /// The merchant's id.
    pub merchant_id: MerchantId,
}

/// The caller's merchant with its locations.
#[apply(wire!)]
pub struct Merchant {
    /// The merchant's id.
    pub merchant_id: MerchantId,
    /// The trading name.
    pub name: String,
    /// The category code and its description, e.g. `5812 Eating Places, Restaurants`.
    pub category: String,
    /// The 4-digit merchant category code alone, e.g. `5812`.
    pub category_code: String,
    /// Where the merchant is registered (ISO 3166-1 alpha-3).
    pub country_code: String,
    /// The telephone number, digits and a leading `+` only; null when none was given.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub phone_number: Option<String>,
    /// The website; null when none was given.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub website: Option<String>,
    /// When the merchant was enrolled (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// The merchant's locations, oldest first.
    pub locations: Vec<Location>,
}

/// A place where the merchant sells. Coordinates are optional and come in pairs: without them
/// the service derives them from the city when it knows it.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct LocationInput {
    /// The location's country.
    pub country_code: String,
    /// The street, without the house number.
    pub street: String,
    /// The house number (text such as `12b`, or a number).
    pub street_no: String,
    /// The city.
    pub city: String,
    /// The postal code (text, or a number).
    pub zip: String,
    /// Degrees north (negative: south), with `longitude`.
    pub latitude: Option<f64>,
    /// Degrees east (negative: west), with `latitude`.
    pub longitude: Option<f64>,
}

/// A new location of the caller's merchant.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct CreateLocationRequest {
    /// The location's address and, optionally, its coordinates.
    pub location: LocationInput,
    /// The subscriber's own notes: up to 20 string pairs (key at most 40 characters, value at
    /// most 500), returned on reads and in events, used for nothing else.
    pub metadata: Option<crate::Metadata>,
}

impl CreateLocationRequest {
    /// A location at this address, with no notes.
    pub fn at(location: LocationInput) -> Self {
        Self { location, metadata: None }
    }
}

/// What changes in a location: any of its fields, each checked as `POST /merchant/location`
/// checks it; a field left out (or null) stays as it is. Without coordinates the service
/// derives them again from the (new) address.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct LocationChanges {
    /// The location's country.
    pub country_code: Option<String>,
    /// The street, without the house number.
    pub street: Option<String>,
    /// The house number (text such as `12b`, or a number).
    pub street_no: Option<String>,
    /// The city.
    pub city: Option<String>,
    /// The postal code (text, or a number).
    pub zip: Option<String>,
    /// Degrees north (negative: south), with `longitude`.
    pub latitude: Option<f64>,
    /// Degrees east (negative: west), with `latitude`.
    pub longitude: Option<f64>,
}

/// A change to one of the caller's merchant's locations (the shape of `POST /merchant/location`,
/// with every field optional).
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct UpdateLocationRequest {
    /// The fields that change (at least one of them or `metadata`).
    #[serde(default)]
    pub location: LocationChanges,
    /// Pairs to set (keys merge; a key sent with "" is removed).
    pub metadata: Option<crate::Metadata>,
}

/// A removed location.
#[apply(wire!)]
pub struct LocationRemoved {
    /// `Location removed`.
    pub message: String,
    /// The removed location's id.
    pub location_id: LocationId,
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

/// The new location.
#[apply(wire!)]
pub struct CreateLocationResponse {
    /// `Location created`.
    pub message: String,
    /// The location's id.
    pub location_id: LocationId,
    /// Degrees north, sent or derived; null when unknown.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub latitude: Option<f64>,
    /// Degrees east, sent or derived; null when unknown.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub longitude: Option<f64>,
    /// Where the coordinates came from.
    pub coordinates_source: CoordinatesSource,
}

/// [`Location`] and the data of `merchant.location.updated` ([`LocationUpdatedData`], the same
/// fields after its merchant) from one list of the fields, so the event cannot drift from what
/// `GET /merchant/location/{locationId}` shows.
macro_rules! location_and_its_event {
    ($($(#[$field_attribute:meta])* $field:ident: $type:ty,)*) => {
        /// A location of the caller's merchant.
        #[apply(wire!)]
        pub struct Location {
            $($(#[$field_attribute])* pub $field: $type,)*
        }

        /// The data of `merchant.location.updated`: the location as it is now, as `GET
        /// /merchant/location/{locationId}` shows it, with its merchant.
        // `wire!` but for TypeScript, which reads `LocationUpdatedShape` instead.
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[cfg_attr(feature = "openapi", derive(::utoipa::ToSchema))]
        #[serde(rename_all = "camelCase")]
        pub struct LocationUpdatedData {
            /// The merchant the location belongs to.
            pub merchant_id: MerchantId,
            $($(#[$field_attribute])* pub $field: $type,)*
        }

        impl LocationUpdatedData {
            /// The event's data: `location` as the API shows it, with its merchant.
            pub fn new(merchant_id: MerchantId, location: Location) -> Self {
                Self { merchant_id, $($field: location.$field,)* }
            }
        }
    };
}

// What TypeScript is told of `LocationUpdatedData` (the same JSON): its merchant and a
// `Location` named, `{ merchantId: MerchantId } & Location`, instead of the location's fields
// written again into a second declaration. Its doc comment is the one TypeScript shows.
/// The data of `merchant.location.updated`: the location as it is now, as `GET
/// /merchant/location/{locationId}` shows it, with its merchant.
#[cfg(feature = "ts")]
#[derive(ts_rs::TS)]
#[ts(export, rename = "LocationUpdatedData", rename_all = "camelCase")]
#[expect(dead_code, reason = "a shape for ts-rs to read, never built")]
struct LocationUpdatedShape {
    /// The merchant the location belongs to.
    merchant_id: MerchantId,
    #[ts(flatten)]
    location: crate::Flat<Location>,
}

/// [`LocationUpdatedData`] is, to TypeScript, its shape.
#[cfg(feature = "ts")]
impl ts_rs::TS for LocationUpdatedData {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn docs() -> Option<String> {
        LocationUpdatedShape::docs()
    }
    fn ident(cfg: &ts_rs::Config) -> String {
        LocationUpdatedShape::ident(cfg)
    }
    fn name(cfg: &ts_rs::Config) -> String {
        LocationUpdatedShape::name(cfg)
    }
    fn decl(cfg: &ts_rs::Config) -> String {
        LocationUpdatedShape::decl(cfg)
    }
    fn decl_concrete(cfg: &ts_rs::Config) -> String {
        LocationUpdatedShape::decl_concrete(cfg)
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        LocationUpdatedShape::inline(cfg)
    }
    fn inline_flattened(cfg: &ts_rs::Config) -> String {
        LocationUpdatedShape::inline_flattened(cfg)
    }
    fn visit_dependencies(visitor: &mut impl ts_rs::TypeVisitor) {
        LocationUpdatedShape::visit_dependencies(visitor)
    }
    fn output_path() -> Option<std::path::PathBuf> {
        LocationUpdatedShape::output_path()
    }
}

location_and_its_event! {
    /// The location's id.
    location_id: LocationId,
    /// The location's country (ISO 3166-1 alpha-3).
    country_code: String,
    /// The street.
    street: String,
    /// The house number.
    street_no: String,
    /// The city.
    city: String,
    /// The postal code.
    zip: String,
    /// Degrees north; null when unknown.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    latitude: Option<f64>,
    /// Degrees east; null when unknown.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    longitude: Option<f64>,
    /// Where the coordinates came from.
    coordinates_source: CoordinatesSource,
    /// What a card statement prints for purchases here.
    descriptor: String,
    /// When the location was added (RFC 3339, UTC).
    created_at: DateTime<Utc>,
    /// The subscriber's own notes (`{}` when none).
    #[serde(default)]
    metadata: crate::Metadata,
}

/// A sale at one of the caller's locations.
#[apply(wire!)]
pub struct MerchantTransaction {
    /// The transaction's id.
    pub transaction_id: TransactionId,
    /// Major units, two decimals; negative for refunds.
    pub amount: f64,
    /// ISO 4217 currency of `amount`.
    pub currency: String,
    /// When the sale was made (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// Not settled yet; the amount may still change.
    pub pending: bool,
    /// The location of the sale.
    pub location_id: LocationId,
    /// The location's street.
    pub street: String,
    /// The location's house number.
    pub street_no: String,
    /// The location's city.
    pub city: String,
    /// The location's country (ISO 3166-1 alpha-3).
    pub country: String,
    /// The location's postal code.
    pub zip: String,
    /// Last four digits of the card used, as a number.
    pub last_four: u16,
}

/// A page of the merchant's sales, newest first.
#[apply(wire!)]
pub struct MerchantTransactionPage {
    /// This page's sales.
    pub transactions: Vec<MerchantTransaction>,
    /// Pass it as `cursor` for the next page; null on the last page.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// Filters and paging of the merchant's sales.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct MerchantTransactionQuery {
    /// The most sales on a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Where the page starts: the `nextCursor` of the page before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Only sales at this location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_id: Option<LocationId>,
    /// Only sales from this day or time on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Only sales up to this day or time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// A merchant category code of the service's table.
#[apply(wire!)]
#[derive(Eq)]
pub struct MerchantCategory {
    /// The 4-digit code (ISO 18245), e.g. `5812`.
    pub code: String,
    /// What it stands for, e.g. `Eating Places, Restaurants`.
    pub description: String,
}

/// Merchant category codes, by code.
#[apply(wire!)]
#[derive(Eq)]
pub struct MerchantCategoryList {
    /// The codes that match, by code.
    pub categories: Vec<MerchantCategory>,
}
