//! Bank accounts being linked or linked. Every step of the link is an update that holds only
//! while the link is pending and unexpired, so a late or repeated step changes nothing.

use super::card_sessions::NewTokenPage;
use super::idempotency::Replay;
use super::{StorageError, StorageResult, Store, dispatch, postgres, sqlite};

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

    pub(super) fn parse(text: &str) -> StorageResult<Self> {
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
    pub(super) fn parse(text: &str) -> StorageResult<Self> {
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
    pub id: i64,
    pub subscriber_id: i64,
    pub bank_id: String,
    pub stage: LinkStage,
    pub browser_hash: Option<Vec<u8>>,
    pub status: LinkStatus,
    pub login_failures: u32,
    pub failure_reason: Option<String>,
    /// Comma-separated: `balances,cards,transactions`.
    pub permissions: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub linked_at: Option<i64>,
}

pub(super) const COLUMNS: &str = "id, subscriber_id, bank_id, stage, browser_hash, status, login_failures, \
     failure_reason, permissions, created_at, expires_at, linked_at";

/// What a step of the link records when it ends the link: `account.linked` or `account.failed`.
pub type Outcome = super::events::StoredEvent;

/// What a link keeps when the person consents: the permissions granted (comma-separated), the
/// bank's token scoped to them, and the `account.linked` event.
pub struct Consent {
    pub permissions: String,
    pub access_token: String,
    pub event: Outcome,
}

/// How a link fails: the reason the subscriber is shown, and the `account.failed` event that
/// says so.
pub struct LinkFailure {
    pub reason: &'static str,
    pub event: Outcome,
}

impl Store {
    /// Opens the link's page, to `bank_id`, for the subscriber (and keeps the request's replay);
    /// the account's id.
    pub async fn open_bank_link(
        &self,
        page: NewTokenPage,
        bank_id: &'static str,
        replay: Option<Replay>,
    ) -> StorageResult<i64> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::insert(connection, &page, bank_id, replay)).await,
            db => postgres::bank_accounts::insert(db, page, bank_id, replay).await,
        )
    }

    /// The account when it belongs to the subscriber.
    pub async fn bank_account(&self, subscriber_id: i64, id: i64) -> StorageResult<Option<BankAccountRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::bank_accounts::get(connection, subscriber_id, id)).await,
            db => postgres::bank_accounts::get(db, subscriber_id, id).await,
        )
    }

    /// The subscriber's accounts, newest first.
    pub async fn bank_accounts(&self, subscriber_id: i64) -> StorageResult<Vec<BankAccountRow>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::bank_accounts::list(connection, subscriber_id)).await,
            db => postgres::bank_accounts::list(db, subscriber_id).await,
        )
    }

    pub async fn bank_link_by_token(&self, token_hash: Vec<u8>) -> StorageResult<Option<BankAccountRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::bank_accounts::find_by_token(connection, &token_hash)).await,
            db => postgres::bank_accounts::find_by_token(db, &token_hash).await,
        )
    }

    /// The person signed in at the bank in the browser whose nonce hashes to `browser_hash`
    /// (again, perhaps in another browser, before consenting); `next_stage` is `Mfa` when the
    /// bank asks for a one-time code first, else `Consent`. `false` when the link is closed.
    pub async fn bank_sign_in(
        &self,
        id: i64,
        now: i64,
        browser_hash: Vec<u8>,
        next_stage: LinkStage,
    ) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::sign_in(connection, id, now, &browser_hash, next_stage)).await,
            db => postgres::bank_accounts::sign_in(db, id, now, &browser_hash, next_stage).await,
        )
    }

    /// The one-time code was right: on to consent.
    pub async fn bank_pass_code(&self, id: i64, now: i64) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::pass_code(connection, id, now)).await,
            db => postgres::bank_accounts::pass_code(db, id, now).await,
        )
    }

    /// Counts a failed sign-in (or one-time code); at `max_failures` the link fails with
    /// `reason` and records `failed`'s event. The failures so far, or `None` when the link was
    /// no longer pending.
    pub async fn bank_login_failure(
        &self,
        id: i64,
        now: i64,
        max_failures: u32,
        failure: LinkFailure,
    ) -> StorageResult<Option<u32>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::record_login_failure(connection, id, now, max_failures, &failure)).await,
            db => postgres::bank_accounts::record_login_failure(db, id, now, max_failures, failure).await,
        )
    }

    /// Ends the link failed with `reason`, recording `failed`'s event; `false` when it was closed.
    pub async fn fail_bank_link(&self, id: i64, now: i64, failure: LinkFailure) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::fail(connection, id, now, &failure)).await,
            db => postgres::bank_accounts::fail(db, id, now, failure).await,
        )
    }

    /// The person consented: the bank's scoped token and the permissions it grants are kept,
    /// and the consent's event recorded. `false` when the link closed first.
    pub async fn link_bank_account(&self, id: i64, now: i64, consent: Consent) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::link(connection, id, now, &consent)).await,
            db => postgres::bank_accounts::link(db, id, now, consent).await,
        )
    }
}
