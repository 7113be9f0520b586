use serde::{Deserialize, Serialize};

use crate::CardTransaction;

/// `POST /sandbox/transactions`: a point-of-sale purchase now. Every field is optional:
/// the service picks one of the caller's cards, a location, an amount.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SandboxTransactionRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub card_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub location_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub amount: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub merchant_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SandboxTransactionResponse {
    pub message: String,
    pub transaction_id: i64,
    /// The card that paid; `null` for a card of the sandbox's synthetic population (a
    /// purchase at one of the caller's locations by nobody enrolled here).
    pub card_id: Option<i64>,
    /// Last four digits of the card that paid, as the merchant's list shows them.
    pub last_four: u16,
    /// The purchase as the card's list shows it (its `cardId` is 0 for a synthetic card).
    pub transaction: CardTransaction,
}

/// The sandbox test cards (`GET /sandbox/cards`), also published in the README.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SandboxCard {
    pub pan: String,
    pub brand: String,
    pub country_code: String,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SandboxCardList {
    pub cards: Vec<SandboxCard>,
}
