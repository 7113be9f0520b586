use crate::{AccountId, TransactionId};
use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

/// A bank the service can link accounts at.
#[apply(wire!)]
#[derive(Eq)]
pub struct Bank {
    /// The bank's id, for `POST /account`.
    pub id: String,
    /// The bank's name.
    pub name: String,
}

/// The banks accounts can be linked at.
#[apply(wire!)]
#[derive(Eq)]
pub struct BankList {
    /// Every bank, by name.
    pub banks: Vec<Bank>,
}

/// A bank account to link: the person signs in at the bank on a page the service hosts.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct EnrollAccountRequest {
    /// The bank's `id` or `name` (any case).
    pub bank: String,
    /// Where the person's browser is sent when they are done (`?accountId=…&status=…` added):
    /// it must begin with one of the subscriber's registered return URLs (`PATCH /subscriber`),
    /// or, in the sandbox, be `http(s)` on `localhost` or `127.0.0.1`.
    #[serde(rename = "returnUrl")]
    pub return_url: Option<String>,
    /// The subscriber's own id for the user the account belongs to (at most 128 characters):
    /// `GET /users/{clientUserId}` finds it, `DELETE /users/{clientUserId}` erases it.
    pub client_user_id: Option<String>,
    /// The subscriber's own notes: up to 20 string pairs (key at most 40 characters, value at
    /// most 500), returned on reads and in events, used for nothing else.
    pub metadata: Option<crate::Metadata>,
}

impl EnrollAccountRequest {
    /// A link at `bank`, with nothing else.
    pub fn at(bank: &str) -> Self {
        Self { bank: bank.to_owned(), return_url: None, client_user_id: None, metadata: None }
    }
}

/// `pending` until the person signs in at the bank and consents; then `linked`, `failed` (wrong login, locked account, refused consent) or `expired` (the link ran out first). A linked account whose consent ran out (`consentExpiresAt`) is `reauth_required` until the person renews it (`POST /account/{accountId}/reauth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AccountStatus {
    Pending,
    Linked,
    Failed,
    Expired,
    ReauthRequired,
}

/// Renewing a linked account's consent, or relinking it: the bank's pages in update mode.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default, Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct ReauthAccountRequest {
    /// Where the person's browser is sent when they are done (`?accountId=…&status=…` added),
    /// under the same rules as `POST /account`'s.
    #[serde(rename = "returnUrl")]
    pub return_url: Option<String>,
}

/// The bank's pages in update mode for an account: open `url` in the person's browser. The
/// account keeps its id; its consent moves on when the person consents again.
#[apply(wire!)]
#[derive(Eq)]
pub struct ReauthAccountResponse {
    /// The account (the same id as before).
    pub account_id: AccountId,
    /// The bank's sign-in page, in update mode; open it in the person's browser.
    pub url: String,
    /// When the link stops working (RFC 3339, UTC).
    pub expires_at: DateTime<Utc>,
}

/// What the person let the service read at the bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum AccountPermission {
    Balances,
    Cards,
    Transactions,
}

/// What kind of account the bank holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum AccountType {
    Checking,
    Savings,
}

/// A bank link: open `url` in the person's browser and follow `GET /account/{accountId}`.
#[apply(wire!)]
#[derive(Eq)]
pub struct EnrollAccountResponse {
    /// The account's id.
    pub account_id: AccountId,
    /// The bank's login page; open it in the person's browser.
    pub url: String,
    /// When the link stops working (RFC 3339, UTC).
    pub expires_at: DateTime<Utc>,
    /// `pending` at first.
    pub status: AccountStatus,
}

/// A bank account the caller linked, or is linking.
#[apply(with_labels!)]
#[apply(wire!)]
pub struct Account {
    /// The account's id.
    pub account_id: AccountId,
    /// The bank holding the account.
    pub bank: Bank,
    /// Where linking stands.
    pub status: AccountStatus,
    /// What the person let the service read.
    pub permissions: Vec<AccountPermission>,
    /// When the person finished linking it (RFC 3339, UTC); null before.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub linked_at: Option<DateTime<Utc>>,
    /// When the link was started (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// When a pending link stops working (RFC 3339, UTC).
    pub expires_at: DateTime<Utc>,
    /// When the person's consent runs out (RFC 3339, UTC): the account is then
    /// `reauth_required`, and `account.consent_expiring` is sent seven days before. Null until
    /// linked.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub consent_expires_at: Option<DateTime<Utc>>,
    /// When the service last fetched what is new at the bank (`POST
    /// /account/{accountId}/refresh`, RFC 3339, UTC); null before the first refresh.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub refreshed_at: Option<DateTime<Utc>>,
    /// The account's name at the bank ("Everyday Checking"), once linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub name: Option<String>,
    /// What kind of account it is, once linked.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub account_type: Option<AccountType>,
    /// The last four digits of the account's number, once linked: enough for the person to
    /// tell their accounts apart, never the whole number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub mask: Option<String>,
    /// Why linking failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub failure_reason: Option<String>,
    /// Present with the `balances` permission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub balance: Option<AccountBalance>,
    /// Last four digits of the cards the bank holds, with the `cards` permission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub cards: Option<Vec<u16>>,
}

/// An account's balance at the bank.
#[apply(wire!)]
pub struct AccountBalance {
    /// What can be spent now, major units.
    pub available: f64,
    /// The booked balance, major units.
    pub current: f64,
    /// ISO 4217 currency of the amounts.
    pub currency: String,
}

/// The caller's bank accounts, newest first.
#[apply(wire!)]
pub struct AccountList {
    /// Every account of the caller.
    pub accounts: Vec<Account>,
}

/// The query of `GET /account/<accountId>/transactions`: the card list's paging and filters.
pub type AccountTransactionQuery = crate::CardTransactionQuery;

/// A transaction on a linked bank account.
#[apply(wire!)]
pub struct AccountTransaction {
    /// The transaction's id.
    pub transaction_id: TransactionId,
    /// When it was booked (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// Not booked yet.
    pub pending: bool,
    /// Major units, two decimals; negative for money going out.
    pub amount: f64,
    /// ISO 4217 currency of `amount`.
    pub currency: String,
    /// The bank's text for it.
    pub description: String,
    /// Counterparty, channel, category and recurring stream.
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(value_type = crate::TransactionEnrichment))]
    pub enrichment: crate::Flat<crate::TransactionEnrichment>,
}

/// A page of an account's transactions, newest first.
#[apply(wire!)]
pub struct AccountTransactionPage {
    /// This page's transactions.
    pub transactions: Vec<AccountTransaction>,
    /// Pass it as `cursor` for the next page; null on the last page.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// The answer to `DELETE /account/{accountId}`.
#[apply(wire!)]
#[derive(Eq)]
pub struct RemoveAccountResponse {
    /// `Account removed`.
    pub message: String,
    /// The removed bank account's id (never given to another).
    pub account_id: AccountId,
}
