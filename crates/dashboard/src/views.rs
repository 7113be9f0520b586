//! What commands take and return: the IPC surface the UI sees (as TypeScript, with feature `ts`).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use subscriber_protocol::{
    AccountId, CardId, CardTransaction, DiscoverResult, Environment, FieldError, LocationId, LoggedRequest, MerchantId,
    MerchantTransaction, ObjectId, PersonId,
};

use crate::attention::Attention;
use crate::performance::{MerchantSales, MoneyFlow, Period};
use crate::secrets::KeyringStatus;

/// Where the dashboard talks to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ConnectionTarget {
    /// The service started inside the app, on 127.0.0.1, with its data in the app's folder.
    Sandbox,
    /// A service elsewhere, by base URL.
    Remote {
        environment: Environment,
        #[serde(rename = "baseUrl")]
        base_url: String,
    },
}

impl ConnectionTarget {
    /// The name remembered secrets are filed under: stable across runs (the sandbox's port is not).
    pub fn key(&self) -> String {
        match self {
            Self::Sandbox => "sandbox-local".to_owned(),
            Self::Remote { base_url, .. } => base_url.trim_end_matches('/').to_owned(),
        }
    }
}

/// The environment in use, for the band across the top and the switcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ConnectionInfo {
    pub target: ConnectionTarget,
    /// The address the dashboard calls (for the embedded sandbox, its random loopback port).
    pub base_url: String,
    pub environment: Environment,
    pub embedded: bool,
}

/// The signed-in subscriber; never the secret or the token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub email: String,
    pub client_id: String,
    pub public_key: String,
    pub environment: Environment,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: DateTime<Utc>,
    /// When the token in memory expires; it is renewed before then.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub token_expires_at: DateTime<Utc>,
    pub validity_seconds: u64,
    /// Whether the secret is in the OS keyring for the next sign-in.
    pub secret_remembered: bool,
}

/// Everything the UI needs at start and after each change of connection or session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub connection: Option<ConnectionInfo>,
    /// The environment chosen last time, to reconnect to at start.
    pub saved_target: Option<ConnectionTarget>,
    pub session: Option<SessionInfo>,
    pub keyring: KeyringStatus,
    /// The e-mail of the remembered sign-in of this connection (or, while none is open, of the
    /// saved environment being reconnected), if any.
    pub remembered_email: Option<String>,
    /// The screen shown last (`cards`, `card/12`, `merchant`...), to open again after sign-in.
    pub last_screen: Option<String>,
}

/// `sign_up`: the credentials, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct SignupResult {
    pub client_id: String,
    pub public_key: String,
    /// Shown once: the service keeps only a hash.
    pub secret: String,
    pub remembered: bool,
    /// Why the secret could not be kept in the keyring.
    pub keyring_problem: Option<String>,
    pub session: SessionInfo,
}

/// `log_in`: an empty `apiKey` means "use the remembered secret".
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LoginInput {
    pub email: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub api_key: Option<String>,
    pub remember: bool,
}

/// `rotate_secret`: the new secret, shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct RotateResult {
    pub secret: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub rotated_at: DateTime<Utc>,
    pub remembered: bool,
    pub keyring_problem: Option<String>,
}

/// One page of a list loading (a card's or the merchant's transactions), sent while a long
/// list loads so the screen shows progress and stays usable.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Batch<T> {
    pub rows: Vec<T>,
    /// Rows loaded so far, this batch included.
    pub loaded: u32,
    pub done: bool,
}

/// What a real-time stream reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum LiveEvent<T> {
    /// A new transaction, or one that settled (same `transactionId`, `pending: false`).
    Transaction { transaction: Box<T> },
    /// The stream connected (`live`) or dropped (with why, while it reconnects).
    Status { live: bool, message: Option<String> },
}

pub type CardLiveEvent = LiveEvent<CardTransaction>;
pub type MerchantLiveEvent = LiveEvent<MerchantTransaction>;

/// `export_*_csv`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ExportResult {
    pub path: String,
    pub rows: u32,
}

/// `enrich_csv`: where the enriched file went and what was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct EnrichedFile {
    pub path: String,
    /// Rows of the file.
    pub rows: u32,
    /// Rows with a counterparty.
    pub matched: u32,
    /// Rows whose counterparty is `high` or `very_high`.
    pub high_or_better: u32,
    /// Rows not sent: the service's rules refuse them (each says why in `problem`).
    pub refused: u32,
}

/// A page of the service opened in the system browser (card entry, a bank's sign-in): the
/// app waits for its outcome and shows the link meanwhile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct SecurePage {
    /// `sessionId` of a card session, `accountId` of a bank account, `sessionId` of a person's.
    pub id: ObjectId,
    pub url: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub expires_at: DateTime<Utc>,
    /// Whether the browser was asked to open it.
    pub opened: bool,
    /// Why it could not be opened (the link is still shown to copy).
    pub open_problem: Option<String>,
    /// The link as a QR code, for a phone to scan: rows of modules, `1` dark, `0` light (none
    /// when the page is opened on this computer).
    pub qr_code: Vec<String>,
}

/// `text` as QR code modules: rows of `1` (dark) and `0` (light), with no quiet zone (the UI
/// draws one); empty when the text is too long for a QR code.
pub fn qr_modules(text: &str) -> Vec<String> {
    let Ok(code) = qrcode::QrCode::with_error_correction_level(text.as_bytes(), qrcode::EcLevel::M) else {
        return Vec::new();
    };
    let width = code.width();
    code.to_colors()
        .chunks(width)
        .map(|row| row.iter().map(|color| if *color == qrcode::Color::Dark { '1' } else { '0' }).collect())
        .collect()
}

/// A country a form offers: its ISO 3166-1 alpha-3 code (what the service takes) and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Country {
    pub code: String,
    pub name: String,
}

/// What card statements print for purchases at a location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct StatementDescriptor {
    /// `BLUE HERON COFFEE SAN`.
    pub text: String,
    /// The most characters a statement prints (22).
    pub width: u32,
    /// Whether the name and the city were longer, and cut.
    pub cut: bool,
}

/// Field errors of a form, as the service would answer them (empty: the form is valid).
pub type FieldErrors = Vec<FieldError>;

/// A merchant lookup: by statement descriptor, by address or by position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "by", rename_all = "camelCase")]
pub enum LookupQuery {
    Descriptor {
        descriptor: String,
    },
    #[serde(rename_all = "camelCase")]
    Address {
        #[serde(default)]
        street: String,
        #[serde(default)]
        street_no: String,
        #[serde(default)]
        city: String,
        #[serde(default)]
        zip: String,
        #[serde(default)]
        country_code: String,
    },
    Position {
        latitude: f64,
        longitude: f64,
        /// Metres; the service's default when absent.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional))]
        radius: Option<f64>,
    },
}

/// A lookup made this session, with what it found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Lookup {
    pub query: LookupQuery,
    /// The query in words: `SQ *BLUE HERON COFFEE`, `1022 Valencia St, 94110`, `37.7557, -122.4211 (200 m)`.
    pub label: String,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub at: DateTime<Utc>,
    pub result: DiscoverResult,
}

/// The overview: the subscriber's home.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    /// This month so far against the same days of last month.
    pub period: Period,
    /// Money in and out over `period`.
    pub money: MoneyFlow,
    /// Cards enrolled (to say what to do when there is no money to show yet).
    pub cards: u32,
    /// `None` until the subscriber enrolls as a merchant.
    pub merchant: Option<MerchantGlance>,
    /// What needs the subscriber, problems first.
    pub attention: Vec<Attention>,
    /// The newest transactions across all cards, newest first.
    pub recent_transactions: Vec<CardTransaction>,
    /// The billing period's usage, read only when the service runs as `established`.
    pub usage: Option<UsagePeriod>,
}

/// The merchant at a glance: its sales this month against the same days of last month.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct MerchantGlance {
    pub merchant_id: MerchantId,
    pub name: String,
    pub locations: u32,
    pub sales: MerchantSales,
}

/// Billable requests of the billing period (the calendar month, UTC) and of the month before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct UsagePeriod {
    /// The period's first and last days.
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// Counted up to this day (today).
    pub through: NaiveDate,
    pub requests: u64,
    /// The whole month before.
    pub previous_month: u64,
    /// The period's requests per endpoint, most first.
    pub endpoints: Vec<EndpointUsage>,
    /// Every billable request ever counted.
    pub total: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct EndpointUsage {
    /// The method and path template, `GET /card/{card_id}`.
    pub endpoint: String,
    pub count: u64,
}

/// A header as the app sends it (the token written as the shell variable that holds it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestHeader {
    pub name: String,
    pub value: String,
}

impl RequestHeader {
    pub fn new(name: &str, value: impl Into<String>) -> Self {
        Self { name: name.to_owned(), value: value.into() }
    }
}

/// One of the account's recent requests, as the request log shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LoggedCall {
    /// As the service logged it.
    pub request: LoggedRequest,
    /// The route called, `GET /card/{card_id}`; `None` for a path no route has.
    pub route: Option<String>,
    /// Made by the app without a click (polling, a live stream, a token renewal).
    pub background: bool,
    /// The connected service's address and the path.
    pub url: String,
    /// The headers this app sends on that route.
    pub headers: Vec<RequestHeader>,
    /// Sent with a JSON body (which the log does not keep).
    pub has_body: bool,
    /// The status's reason, `Created`, `Not Found`.
    pub status_text: String,
    /// A cURL command that sends it again (the token from `$SUBSCRIBER_TOKEN`).
    pub curl: String,
}

/// A page of the account's request history, read, and where the next one starts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct RequestLogView {
    /// Newest first.
    pub calls: Vec<LoggedCall>,
    /// Pass it back for the older requests; `null` when there are none.
    pub next_cursor: Option<String>,
}

/// One request of the history with what it sent and got back (masked by the service).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct RequestDetailView {
    /// The request; its cURL line carries the body it sent (masked values stay masked).
    pub call: LoggedCall,
    /// The query string, masked.
    pub query: Option<String>,
    /// The body sent, pretty-printed when it is JSON.
    pub request_body: Option<String>,
    /// The body answered, pretty-printed when it is JSON; `null` for a stream or an erased object.
    pub response_body: Option<String>,
    /// A body was longer than the 16 KiB the history keeps.
    pub truncated: bool,
    /// The ids it named or got back (`cardId:12`).
    pub object_ids: Vec<String>,
}

/// An object the subscriber keeps its own notes on (`metadata`), by its kind and its id:
/// `{"object": "card", "id": 12}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "object", content = "id", rename_all = "camelCase")]
pub enum Labelled {
    Card(CardId),
    Account(AccountId),
    Person(PersonId),
    Location(LocationId),
}

#[cfg(test)]
mod labelled_tests {
    use super::*;

    /// The notes editor sends `{object, id}`: each kind arrives with its own typed id, and a
    /// kind without notes, or an id that is not a whole number, is refused before any request.
    #[test]
    fn a_labelled_object_is_its_kind_and_its_typed_id() {
        let read = |json: &str| serde_json::from_str::<Labelled>(json).ok();
        assert_eq!(read(r#"{"object": "card", "id": 12}"#), Some(Labelled::Card(CardId(12))));
        assert_eq!(read(r#"{"object": "account", "id": 3}"#), Some(Labelled::Account(AccountId(3))));
        assert_eq!(read(r#"{"object": "person", "id": 4}"#), Some(Labelled::Person(PersonId(4))));
        assert_eq!(read(r#"{"object": "location", "id": 5}"#), Some(Labelled::Location(LocationId(5))));
        assert_eq!(read(r#"{"object": "webhook", "id": 5}"#), None);
        assert_eq!(read(r#"{"object": "card", "id": "12"}"#), None);
        assert_eq!(read(r#"{"object": "card"}"#), None);
        let sent = serde_json::to_value(Labelled::Location(LocationId(5))).ok();
        assert_eq!(sent, Some(serde_json::json!({"object": "location", "id": 5})));
    }
}

#[cfg(test)]
mod qr_tests {
    /// A hosted page's link fits a QR code a phone reads: square, modules only.
    #[test]
    fn a_link_becomes_a_square_of_modules() {
        let rows = super::qr_modules(
            "http://127.0.0.1:8080/persons/verify?session=0123456789abcdefghijklmnopqrstuvwxyzABCDEF",
        );
        assert!(
            rows.len() >= 21
                && rows.iter().all(|row| row.len() == rows.len() && row.chars().all(|c| c == '0' || c == '1'))
        );
        assert!(super::qr_modules(&"x".repeat(5_000)).is_empty(), "too long for a QR code");
    }
}
