use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A card number as sent: the spec allows a string or a number, under `pan` or `PAN`.
/// `Debug` shows only the last four digits so a PAN never reaches a log by accident.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, type = "string"))]
pub struct Pan(String);

impl Pan {
    pub fn new(digits: impl Into<String>) -> Self {
        Self(digits.into())
    }

    /// The number as typed, for validation; never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn last_four(&self) -> &str {
        let digits = self.0.as_str();
        digits.get(digits.len().saturating_sub(4)..).unwrap_or(digits)
    }
}

impl std::fmt::Debug for Pan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pan(**** {})", self.last_four())
    }
}

impl Serialize for Pan {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Pan {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PanVisitor;
        impl serde::de::Visitor<'_> for PanVisitor {
            type Value = Pan;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a card number of 16 digits, as a string or a number")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Pan, E> {
                Ok(Pan(text.to_owned()))
            }
            fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<Pan, E> {
                Ok(Pan(number.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<Pan, E> {
                Ok(Pan(number.to_string()))
            }
        }
        deserializer.deserialize_any(PanVisitor)
    }
}

/// `POST /card` (alias `POST /card/link`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EnrollCardRequest {
    #[serde(alias = "PAN")]
    pub pan: Pan,
    pub first_name: String,
    pub last_name: String,
    pub exp_month: u32,
    /// Two or four digits; stored as four.
    pub exp_year: u32,
    /// ISO 3166-1 alpha-3.
    pub country_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EnrollCardResponse {
    pub message: String,
    pub card_id: i64,
}

/// A card as `GET /card/<cardId>` returns it: never more of the number than `lastFour`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CardRecord {
    pub card_id: i64,
    /// An integer as the spec says: 42 means the card ends in 0042.
    pub last_four: u16,
    pub first_name: String,
    pub last_name: String,
    pub exp_month: u32,
    pub exp_year: u32,
    #[serde(with = "crate::time::compact")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^[0-9]{8}-[0-9]{4}$", example = "20260307-0905"))]
    pub enrolled_at: DateTime<Utc>,
    pub brand: String,
    pub country_code: String,
}

/// `GET /card`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CardList {
    pub cards: Vec<CardRecord>,
}

/// An item of `GET /card/<cardId>/transactions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CardTransaction {
    pub transaction_id: i64,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
    pub pending: bool,
    /// Major units, two decimals; negative for refunds.
    pub amount: f64,
    pub currency: String,
    pub merchant_name: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    /// ISO 3166-1 alpha-3.
    pub country: String,
    pub zip: String,
    /// The merchant category code and its description, e.g. `5411 Grocery Stores, Supermarkets`.
    pub category: String,
    /// The merchant as the statement prints it; `GET /merchant/discover` resolves it.
    pub descriptor: String,
    pub card_id: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub merchant_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub location_id: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CardTransactionPage {
    pub transactions: Vec<CardTransaction>,
    pub next_cursor: Option<String>,
}

/// Filters and paging of `GET /card/<cardId>/transactions`. `from` and `to` take a date
/// (`2026-01-31`, whole days in UTC, both inclusive) or an RFC 3339 time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
pub struct CardTransactionQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<bool>,
}

/// `POST /card/session`: a one-time page of the service where a person types the card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CardSessionCreated {
    pub session_id: i64,
    pub url: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub expires_at: DateTime<Utc>,
    pub status: CardSessionStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CardSessionStatus {
    Pending,
    Completed,
    Expired,
}

/// `GET /card/session/<sessionId>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CardSession {
    pub session_id: i64,
    pub status: CardSessionStatus,
    pub card_id: Option<i64>,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub expires_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pan_is_read_from_a_string_or_a_number_under_either_name() {
        let body = r#"{"PAN": 4242424242424242, "firstName": "A", "lastName": "B",
            "expMonth": 12, "expYear": 2030, "countryCode": "USA"}"#;
        let request: EnrollCardRequest = serde_json::from_str(body).expect("parses");
        assert_eq!(request.pan.expose(), "4242424242424242");
        let body = body.replace("\"PAN\": 4242424242424242", "\"pan\": \"5555555555554444\"");
        let request: EnrollCardRequest = serde_json::from_str(&body).expect("parses");
        assert_eq!(request.pan.expose(), "5555555555554444");
    }

    #[test]
    fn pan_debug_shows_only_the_last_four() {
        let shown = format!("{:?}", Pan::new("4242424242424242"));
        assert_eq!(shown, "Pan(**** 4242)");
    }
}
