//! Enriched transactions (contract: "Enriched transactions (fourth round)"): the counterparty
//! found from what a card network sends, the intermediaries kept apart from it, the channel,
//! the personal finance category of [`taxonomy`], and recurring streams.

pub mod taxonomy;

use crate::{LocationId, TransactionId};
use chrono::NaiveDate;
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

pub use taxonomy::{PfcDetailed, PfcPrimary};

/// What kind of party a counterparty is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CounterpartyType {
    /// A shop, restaurant, biller or service selling to the cardholder.
    Merchant,
    /// A marketplace selling on behalf of others (Amazon, eBay, DoorDash…).
    Marketplace,
    /// A wallet or person-to-person payment app (PayPal, Venmo, Cash App…).
    PaymentApp,
    /// A bank, card issuer or lender.
    FinancialInstitution,
    /// Who pays money in: an employer, a benefits agency.
    IncomeSource,
}

/// How sure the match is, in words. Each band's measured precision is published
/// (`docs/enrichment.md`, BENCHMARKS.md): `very_high` is right at least 99% of the time,
/// `high` at least 95%.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Low,
    Medium,
    High,
    VeryHigh,
}

impl Confidence {
    /// The band of a score (0 to 100): 90 and above `very_high`, 75 `high`, 50 `medium`.
    pub fn of_score(score: u8) -> Self {
        match score {
            90.. => Self::VeryHigh,
            75..=89 => Self::High,
            50..=74 => Self::Medium,
            _ => Self::Low,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::VeryHigh => "very_high",
            Self::High => "high",
            Self::Medium => "medium",
            Self::Low => "low",
        }
    }

    /// The band as words, for people.
    pub const fn words(self) -> &'static str {
        match self {
            Self::VeryHigh => "Very high",
            Self::High => "High",
            Self::Medium => "Medium",
            Self::Low => "Low",
        }
    }
}

/// Why the matcher chose a counterparty (or how sure it is); each is documented in
/// `docs/enrichment.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MatchReason {
    /// The descriptor, case, spacing, punctuation and intermediary aside, is one the merchant prints.
    DescriptorExact,
    /// The name matched with differences: spacing, punctuation, extra or abbreviated words.
    DescriptorFuzzy,
    /// The descriptor was cut short: the name matched on its beginning.
    Truncated,
    /// Letters differ from the name (a misspelling or a letter dropped).
    Typo,
    /// A store number in the descriptor is one of the brand's locations.
    StoreNumber,
    /// The city (printed in the descriptor or sent as `city`) is where the location is.
    CityMatch,
    /// The state or region printed in the descriptor is the location's.
    RegionMatch,
    /// The postal code sent is the location's.
    ZipMatch,
    /// The country sent is the location's.
    CountryMatch,
    /// The merchant category code sent is the brand's.
    MccMatch,
    /// The merchant category code sent is not the brand's (the score is lower).
    MccMismatch,
    /// A payment processor's, marketplace's or payment app's prefix was recognised and set apart.
    IntermediaryStripped,
    /// The descriptor names only an intermediary, which is the counterparty.
    IntermediaryOnly,
    /// Other brands fit the descriptor nearly as well (the score is lower).
    Ambiguous,
}

impl MatchReason {
    /// Every reason, in the documented order.
    pub const ALL: &'static [MatchReason] = &[
        Self::DescriptorExact,
        Self::DescriptorFuzzy,
        Self::Truncated,
        Self::Typo,
        Self::StoreNumber,
        Self::CityMatch,
        Self::RegionMatch,
        Self::ZipMatch,
        Self::CountryMatch,
        Self::MccMatch,
        Self::MccMismatch,
        Self::IntermediaryStripped,
        Self::IntermediaryOnly,
        Self::Ambiguous,
    ];
}

/// The party a transaction was with.
#[apply(wire!)]
pub struct Counterparty {
    /// The brand, the same in every city, for every card and subscriber: `brd_` and 16 hex digits.
    #[cfg_attr(feature = "openapi", schema(pattern = "^brd_[0-9a-f]{16}$", example = "brd_3c1f0e9a6b2d4c57"))]
    pub brand_id: String,
    /// The trading name (the directory's `dbaName`).
    pub name: String,
    /// What kind of party it is.
    #[serde(rename = "type")]
    pub kind: CounterpartyType,
    /// The brand's web domain, when it has one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub website: Option<String>,
    /// The brand's logo, a URL of this service (no token needed): `/brands/{brandId}/logo.svg`.
    pub logo_url: String,
    /// How sure the match is, in words.
    pub confidence: Confidence,
    /// How sure the match is, 0 to 100 (`confidence` is its band).
    #[cfg_attr(feature = "openapi", schema(maximum = 100))]
    pub score: u8,
    /// Why it was chosen, and what lowered the score.
    pub reasons: Vec<MatchReason>,
}

/// What kind of go-between an intermediary is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum IntermediaryType {
    /// Takes card payments for the merchant (Square, Toast, Stripe, Shopify…).
    PaymentProcessor,
    /// Sells or delivers on the merchant's behalf (Amazon, DoorDash, Uber Eats…).
    Marketplace,
    /// A wallet the cardholder paid through (PayPal, Google Pay, Apple Pay, Venmo…).
    PaymentApp,
    /// Buy now, pay later (Klarna, Afterpay, Affirm…).
    Bnpl,
}

/// A go-between the descriptor names, kept apart from the counterparty.
#[apply(wire!)]
#[derive(Eq)]
pub struct Intermediary {
    /// Its name: `Square`, `PayPal`, `Amazon`, `Klarna`…
    pub name: String,
    /// What kind of go-between it is.
    #[serde(rename = "type")]
    pub kind: IntermediaryType,
}

/// Where the payment was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// At a shop's till.
    InStore,
    /// On a website or in an app.
    Online,
    /// Neither: bills, rent, transfers.
    #[default]
    Other,
}

/// A category of [`taxonomy`]: the primary one and the detailed one inside it.
#[apply(wire!)]
#[derive(Copy, Eq, Hash)]
pub struct PersonalFinanceCategory {
    pub primary: PfcPrimary,
    pub detailed: PfcDetailed,
}

impl PersonalFinanceCategory {
    pub fn of(detailed: PfcDetailed) -> Self {
        Self { primary: detailed.primary(), detailed }
    }
}

/// Where a matched merchant is.
#[apply(wire!)]
pub struct EnrichedLocation {
    /// As `GET /merchant/discover` gives it: above 100,000,000 for the directory, an enrolled
    /// location's own id otherwise.
    pub location_id: LocationId,
    /// One line, as the country writes it.
    pub address: String,
    /// The city or town.
    pub city: String,
    /// The postal code as written (`02116`).
    pub zip: String,
    /// ISO 3166-1 alpha-3.
    pub country_code: String,
    /// Degrees north (negative: south), WGS 84.
    pub latitude: f64,
    /// Degrees east (negative: west), WGS 84.
    pub longitude: f64,
}

/// What the matcher found for one transaction.
#[apply(wire!)]
pub struct Enrichment {
    /// Who the payment was with; null when nothing matched.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub counterparty: Option<Counterparty>,
    /// Processors, marketplaces, payment apps and pay-later services the descriptor names.
    pub intermediaries: Vec<Intermediary>,
    /// Where the payment was made.
    pub channel: Channel,
    /// From the merchant category code and the brand; null when neither is known.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub personal_finance_category: Option<PersonalFinanceCategory>,
    /// The matched location, when the descriptor or the fields tell which one it is.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub location: Option<EnrichedLocation>,
}

/// What the service adds to each card and bank-account transaction it lists, syncs, streams and
/// sends in events: who it was with, through whom, where, in which category, whether it recurs
/// and, for a refund, which purchase it gives back.
#[apply(wire!)]
#[derive(Default)]
pub struct TransactionEnrichment {
    /// Who the payment was with, as the matcher found it from what the network sent; null when
    /// nothing matched.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub counterparty: Option<Counterparty>,
    /// Processors, marketplaces, payment apps and pay-later services the descriptor names.
    // Always sent; the defaults only read older payloads.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub intermediaries: Vec<Intermediary>,
    /// Where the payment was made.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub channel: Channel,
    /// From the merchant category code and the brand; null when neither is known.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub personal_finance_category: Option<PersonalFinanceCategory>,
    /// The recurring stream it belongs to (`GET /card/{cardId}/recurring`), or null.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true, pattern = "^rst_[0-9a-f]{16}$"))]
    pub recurring_stream_id: Option<String>,
    /// On a refund: the `transactionId` of the purchase it gives back, when it is found.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub refund_of: Option<TransactionId>,
}

/// A transaction to enrich, as a card network or a bank statement gives it.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct EnrichInput {
    /// Your id for it, given back beside the result (1 to 64 characters).
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 64))]
    pub id: String,
    /// What the statement prints, e.g. `SQ *BLUE HERON COFFEE`.
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 200, pattern = "[A-Za-z0-9]"))]
    pub descriptor: String,
    /// Major units; negative for a refund or money in.
    pub amount: Option<f64>,
    /// ISO 4217.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z]{3}$"))]
    pub currency: Option<String>,
    /// The day of the transaction, `YYYY-MM-DD`.
    #[cfg_attr(feature = "openapi", schema(format = Date))]
    pub date: Option<String>,
    /// The merchant category code the network sent, four digits.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9]{4}$"))]
    pub mcc: Option<String>,
    /// The merchant's city the network sent.
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub city: Option<String>,
    /// The merchant's postal code the network sent.
    #[cfg_attr(feature = "openapi", schema(max_length = 20))]
    pub zip: Option<String>,
    /// The merchant's country, ISO 3166-1 alpha-3.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z]{3}$"))]
    pub country_code: Option<String>,
}

/// Up to 100 transactions to enrich at once.
#[apply(wire!)]
#[derive(Default)]
pub struct EnrichRequest {
    /// 1 to 100 transactions.
    #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 100))]
    pub transactions: Vec<EnrichInput>,
}

/// One transaction enriched: your id and what was found.
#[apply(wire!)]
pub struct EnrichedTransaction {
    /// The id you sent.
    pub id: String,
    #[serde(flatten)]
    pub enrichment: Enrichment,
}

/// The transactions enriched, in the order sent.
#[apply(wire!)]
pub struct EnrichResponse {
    /// One per transaction sent, in the order sent.
    pub enriched: Vec<EnrichedTransaction>,
}

/// A primary category and what it holds.
#[apply(wire!)]
#[derive(Eq)]
pub struct PrimaryCategoryInfo {
    pub primary: PfcPrimary,
    /// What the category holds, in a sentence.
    pub description: String,
}

/// A detailed category, inside its primary one.
#[apply(wire!)]
#[derive(Eq)]
pub struct DetailedCategoryInfo {
    pub primary: PfcPrimary,
    pub detailed: PfcDetailed,
    /// What the category holds, in a sentence.
    pub description: String,
}

/// The taxonomy of personal finance categories.
#[apply(wire!)]
#[derive(Eq)]
pub struct CategoriesResponse {
    /// The primary categories, in the taxonomy's order.
    pub primary: Vec<PrimaryCategoryInfo>,
    /// Every detailed category, grouped by primary in the same order.
    pub detailed: Vec<DetailedCategoryInfo>,
}

impl CategoriesResponse {
    /// The whole taxonomy.
    pub fn taxonomy() -> Self {
        Self {
            primary: PfcPrimary::ALL
                .iter()
                .map(|primary| PrimaryCategoryInfo { primary: *primary, description: primary.description().to_owned() })
                .collect(),
            detailed: PfcDetailed::ALL
                .iter()
                .map(|detailed| DetailedCategoryInfo {
                    primary: detailed.primary(),
                    detailed: *detailed,
                    description: detailed.description().to_owned(),
                })
                .collect(),
        }
    }
}

/// How often a recurring stream comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Frequency {
    Weekly,
    Biweekly,
    /// Twice a month on about the same two days (the 1st and the 15th).
    SemiMonthly,
    Monthly,
    Quarterly,
    Annually,
}

/// Money out of the card or account, or into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Outflow,
    Inflow,
}

/// How established a stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StreamStatus {
    /// Two on cadence so far.
    EarlyDetection,
    /// Three or more on cadence (two for an annual one).
    Mature,
    /// The predicted date passed by more than one period: it seems to have stopped.
    Tombstoned,
}

/// Who a recurring stream is with.
#[apply(wire!)]
#[derive(Eq)]
pub struct StreamCounterparty {
    /// Null when the transactions matched no brand (the stream is then by description).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub brand_id: Option<String>,
    /// The counterparty's name, else what the statement prints.
    pub name: String,
}

/// Payments to or from one counterparty at a steady rhythm.
#[apply(wire!)]
pub struct RecurringStream {
    /// Stable while the stream lasts: `rst_` and 16 hex digits.
    pub stream_id: String,
    pub counterparty: StreamCounterparty,
    /// What the statement prints for it (the latest descriptor).
    pub description: String,
    /// The category of the latest payment; null when none is known.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub personal_finance_category: Option<PersonalFinanceCategory>,
    pub frequency: Frequency,
    pub direction: Direction,
    /// The mean of the amounts, positive, major units.
    pub average_amount: f64,
    /// The latest amount, positive, major units.
    pub last_amount: f64,
    /// ISO 4217.
    pub currency: String,
    /// The day of the first payment, `YYYY-MM-DD`.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub first_date: NaiveDate,
    /// The day of the latest payment, `YYYY-MM-DD`.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub last_date: NaiveDate,
    /// When the next one is due.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub predicted_next_date: NaiveDate,
    pub status: StreamStatus,
    /// The transactions of the stream, oldest first.
    pub transaction_ids: Vec<TransactionId>,
}

/// A card's or bank account's recurring streams.
#[apply(wire!)]
pub struct RecurringStreams {
    /// The streams, the latest paid first.
    pub streams: Vec<RecurringStream>,
}
