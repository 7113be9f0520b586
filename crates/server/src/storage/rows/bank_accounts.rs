//! Bank accounts' rows: being linked or linked.

use super::{Column, Columns, FromRow};
use crate::storage::sql::{Param, Sql};
use crate::storage::{StorageError, StorageResult};
use subscriber_protocol::AccountId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

/// Where the person is in the bank's pages (the table's CHECK holds the same four names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkStage {
    /// The bank's sign-in form.
    Login,
    /// Password right, the one-time code asked.
    Mfa,
    /// Signed in: the consent page.
    Consent,
    /// Linked or failed: no step moves it any more.
    Done,
}

/// What the link came to (the table's CHECK holds the same three names). A pending link past
/// `expires_at` reads as expired; that is not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkStatus {
    Pending,
    Linked,
    Failed,
}

impl LinkStage {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Login => "login",
            Self::Mfa => "mfa",
            Self::Consent => "consent",
            Self::Done => "done",
        }
    }

    fn parse(text: &str) -> StorageResult<Self> {
        match text {
            "login" => Ok(Self::Login),
            "mfa" => Ok(Self::Mfa),
            "consent" => Ok(Self::Consent),
            "done" => Ok(Self::Done),
            other => Err(StorageError::Corrupt(format!("unknown bank link stage {other:?}"))),
        }
    }
}

impl LinkStatus {
    fn parse(text: &str) -> StorageResult<Self> {
        match text {
            "pending" => Ok(Self::Pending),
            "linked" => Ok(Self::Linked),
            "failed" => Ok(Self::Failed),
            other => Err(StorageError::Corrupt(format!("unknown bank link status {other:?}"))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct BankAccountRow {
    pub id: AccountId,
    pub subscriber_id: SubscriberId,
    pub bank_id: String,
    pub stage: LinkStage,
    pub browser_hash: Option<Vec<u8>>,
    pub status: LinkStatus,
    pub login_failures: u32,
    pub failure_reason: Option<String>,
    /// Comma-separated: `balances,cards,transactions`.
    pub permissions: String,
    pub created_at: UnixSeconds,
    pub expires_at: UnixSeconds,
    pub linked_at: Option<UnixSeconds>,
    /// Where the browser goes back to when the person is done (`POST /account` `returnUrl`).
    pub return_url: Option<String>,
    pub labels: super::labels::Labels,
    /// When the person's consent runs out (set at consent, moved by each re-consent).
    pub consent_expires_at: Option<UnixSeconds>,
    /// The last `POST /account/{id}/refresh`.
    pub refreshed_at: Option<UnixSeconds>,
    /// The account this link re-linked (the same bank login): this one is read as that one.
    pub merged_into: Option<AccountId>,
    /// The HMAC of the bank and the username that signed in (never the username).
    pub login_key: Option<Vec<u8>>,
}

pub(in crate::storage) const COLUMNS: &str = "id, subscriber_id, bank_id, stage, browser_hash, status, login_failures, \
     failure_reason, permissions, created_at, expires_at, linked_at, return_url, client_user_id, metadata, \
     consent_expires_at, refreshed_at, merged_into, login_key";

/// What a step of the link records when it ends the link: `account.linked` or `account.failed`.
pub type Outcome = super::events::StoredEvent;

/// What a link keeps when the person consents: the permissions granted (comma-separated), the
/// bank's token scoped to them, when the consent runs out, and the `account.linked` event.
pub struct Consent {
    pub permissions: String,
    pub access_token: String,
    pub consent_expires_at: UnixSeconds,
    pub event: Outcome,
}

/// How a link fails: the reason the subscriber is shown, and the `account.failed` event that
/// says so.
pub struct LinkFailure {
    pub reason: &'static str,
    pub event: Outcome,
}

impl Column for LinkStage {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.text(index)?.map(Self::parse).transpose()
    }
}

impl Column for LinkStatus {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.text(index)?.map(Self::parse).transpose()
    }
}

impl FromRow for BankAccountRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            bank_id: row.column(2)?,
            stage: row.column(3)?,
            browser_hash: row.column(4)?,
            status: row.column(5)?,
            login_failures: row.column(6)?,
            failure_reason: row.column(7)?,
            permissions: row.column(8)?,
            created_at: row.column(9)?,
            expires_at: row.column(10)?,
            linked_at: row.column(11)?,
            return_url: row.column(12)?,
            labels: super::labels::read(row, 13)?,
            consent_expires_at: row.column(15)?,
            refreshed_at: row.column(16)?,
            merged_into: row.column(17)?,
            login_key: row.column(18)?,
        })
    }
}

/// A step that may end a link (a failed sign-in, a failure, the consent), run in one write.
pub struct LinkStep {
    pub id: AccountId,
    /// Changes link `$1` when the step applies to it, returning the subscriber who opened it
    /// and the failures so far.
    pub update: &'static Sql,
    pub args: Vec<Param<'static>>,
    pub now: UnixSeconds,
    /// Recorded, for that subscriber, when the step ended the link.
    pub outcome: Outcome,
    /// Whether the step ended the link, given the failures so far.
    pub ends: Box<dyn FnOnce(u32) -> bool + Send>,
    /// Run after `update`, in the same write, when it applied (another account the step
    /// changes too).
    pub then: Option<(&'static Sql, Vec<Param<'static>>)>,
}
