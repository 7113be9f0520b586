use crate::{CardId, CardSessionId, LocationId, MerchantId, TransactionId};
use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;
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

/// A payment card to enroll. The number is checked and never stored: only its last four
/// digits and a keyed fingerprint (to recognise the same card enrolled twice).
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct EnrollCardRequest {
    /// The card number (also accepted as `PAN`).
    #[serde(alias = "PAN")]
    pub pan: Pan,
    /// The cardholder's first name, as printed on the card.
    pub first_name: String,
    /// The cardholder's last name, as printed on the card.
    pub last_name: String,
    /// The expiry month, 1 to 12.
    pub exp_month: u32,
    /// The expiry year, two or four digits; stored as four.
    pub exp_year: u32,
    /// The country that issued the card.
    pub country_code: String,
    /// The subscriber's own id for the user the card belongs to (at most 128 characters):
    /// `GET /users/{clientUserId}` finds it, `DELETE /users/{clientUserId}` erases it.
    pub client_user_id: Option<String>,
    /// The subscriber's own notes: up to 20 string pairs (key at most 40 characters, value at
    /// most 500), returned on reads and in events, used for nothing else.
    pub metadata: Option<crate::Metadata>,
}

/// The enrolled card.
#[apply(wire!)]
#[derive(Eq)]
pub struct EnrollCardResponse {
    /// `Card linked`.
    pub message: String,
    /// The new card's id.
    pub card_id: CardId,
}

/// The answer to `DELETE /card/{cardId}`.
#[apply(wire!)]
#[derive(Eq)]
pub struct RemoveCardResponse {
    /// `Card removed`.
    pub message: String,
    /// The removed card's id (never given to another card).
    pub card_id: CardId,
}

/// An enrolled card. The number itself is never returned: only its last four digits.
#[apply(with_labels!)]
#[apply(wire!)]
#[derive(Eq)]
pub struct CardRecord {
    /// The card's id.
    pub card_id: CardId,
    /// The last four digits, as a number: 42 means the card ends in 0042.
    pub last_four: u16,
    /// The cardholder's first name.
    pub first_name: String,
    /// The cardholder's last name.
    pub last_name: String,
    /// The expiry month, 1 to 12.
    pub exp_month: u32,
    /// The expiry year, four digits.
    pub exp_year: u32,
    /// When the card was enrolled, `YYYYMMDD-HHMM` in UTC.
    #[serde(with = "crate::time::compact")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^[0-9]{8}-[0-9]{4}$", example = "20260307-0905"))]
    pub enrolled_at: DateTime<Utc>,
    /// The card network: `Visa`, `Mastercard`, `Discover`, `American Express`, or `Card` when unknown.
    pub brand: String,
    /// The country that issued the card (ISO 3166-1 alpha-3).
    pub country_code: String,
}

/// The caller's cards, newest first.
#[apply(wire!)]
#[derive(Eq)]
pub struct CardList {
    /// Every card of the caller.
    pub cards: Vec<CardRecord>,
}

/// A purchase or refund made with one of the caller's cards.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct CardTransaction {
    /// The transaction's id.
    pub transaction_id: TransactionId,
    /// When it was made (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// Not settled yet; the amount may still change.
    pub pending: bool,
    /// Major units, two decimals; negative for refunds.
    pub amount: f64,
    /// ISO 4217 currency of `amount`.
    pub currency: String,
    /// The merchant's trading name.
    pub merchant_name: String,
    /// The merchant's street.
    pub street: String,
    /// The house number on the street.
    pub street_no: String,
    /// The merchant's city.
    pub city: String,
    /// The merchant's country (ISO 3166-1 alpha-3).
    pub country: String,
    /// The merchant's postal code.
    pub zip: String,
    /// The merchant category code and its description, e.g. `5411 Grocery Stores, Supermarkets`.
    pub category: String,
    /// The merchant as the statement prints it; `GET /merchant/discover` resolves it.
    pub descriptor: String,
    /// The card it was made with (0 for a card of the sandbox's own shoppers).
    pub card_id: CardId,
    /// The merchant enrolled here that sold it, when the sale was at one of its locations.
    pub merchant_id: Option<MerchantId>,
    /// The location of that merchant.
    pub location_id: Option<LocationId>,
    /// Counterparty, intermediaries, channel, category, recurring stream and refunded purchase.
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(value_type = crate::TransactionEnrichment))]
    pub enrichment: crate::Flat<crate::TransactionEnrichment>,
}

/// A page of a card's transactions, newest first.
#[apply(wire!)]
pub struct CardTransactionPage {
    /// This page's transactions.
    pub transactions: Vec<CardTransaction>,
    /// Pass it as `cursor` for the next page; null on the last page.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// Filters and paging of a card's transactions. `from` and `to` take a date (`2026-01-31`,
/// whole days in UTC, both inclusive) or an RFC 3339 time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema, utoipa::IntoParams), into_params(parameter_in = Query))]
pub struct CardTransactionQuery {
    /// The most transactions on a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Where the page starts: the `nextCursor` of the page before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Only transactions from this day or time on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Only transactions up to this day or time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Only pending (`true`) or only settled (`false`) transactions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<bool>,
}

/// A card-entry page to open; the body may be left out.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default, Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct CreateCardSessionRequest {
    /// Where the person's browser is sent when they are done (`?sessionId=…&status=…` added):
    /// it must begin with one of the subscriber's registered return URLs (`PATCH /subscriber`),
    /// or, in the sandbox, be `http(s)` on `localhost` or `127.0.0.1`.
    pub return_url: Option<String>,
    /// The subscriber's own id for the user the card entered belongs to (at most 128 characters):
    /// `GET /users/{clientUserId}` finds it, `DELETE /users/{clientUserId}` erases it.
    pub client_user_id: Option<String>,
    /// The subscriber's own notes: up to 20 string pairs (key at most 40 characters, value at
    /// most 500), returned on reads and in events, used for nothing else.
    pub metadata: Option<crate::Metadata>,
}

/// A one-time page of the service where a person types the card: open `url` in their browser.
#[apply(wire!)]
#[derive(Eq)]
pub struct CardSessionCreated {
    /// The session's id, for `GET /card/session/{sessionId}`.
    pub session_id: CardSessionId,
    /// The page to open in the person's browser; it works once.
    pub url: String,
    /// When the page stops working (RFC 3339, UTC).
    pub expires_at: DateTime<Utc>,
    /// `pending` at first.
    pub status: CardSessionStatus,
}

/// `pending` until the person enrolls the card (`completed`) or the page runs out (`expired`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CardSessionStatus {
    Pending,
    Completed,
    Expired,
}

/// Where a card-entry page stands.
#[apply(wire!)]
#[derive(Eq)]
pub struct CardSession {
    /// The session's id.
    pub session_id: CardSessionId,
    /// Where the page stands.
    pub status: CardSessionStatus,
    /// The enrolled card, once `completed`; null before.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub card_id: Option<CardId>,
    /// When the page stops working (RFC 3339, UTC).
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
