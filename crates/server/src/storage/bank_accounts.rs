//! Bank accounts being linked or linked. Every step of the link is an update that holds only
//! while the link is pending and unexpired, so a late or repeated step changes nothing.

use super::rows::bank_accounts::COLUMNS;
use super::rows::card_sessions::NewTokenPage;
use super::rows::idempotency::Replay;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

use super::rows::bank_accounts::LinkStep;

pub use super::rows::bank_accounts::{BankAccountRow, Consent, LinkFailure, LinkStage, LinkStatus, Outcome};

/// A step applies only to a link still pending at `$2`.
const STILL_PENDING: &str = "status = 'pending' AND expires_at > $2";

impl Store {
    /// Opens the link's page, to `bank_id`, for the subscriber (and keeps the request's replay);
    /// the account's id.
    pub async fn open_bank_link(
        &self,
        page: NewTokenPage,
        bank_id: &'static str,
        replay: Option<Replay>,
    ) -> StorageResult<i64> {
        let NewTokenPage { subscriber_id, token_hash, created_at, expires_at } = page;
        let sql = sql!(
            "INSERT INTO bank_accounts (subscriber_id, bank_id, link_token_hash, stage, status, created_at, expires_at)
             VALUES ($1, $2, $3, 'login', 'pending', $4, $5) RETURNING id"
        );
        let args = args![subscriber_id, bank_id, token_hash, created_at, expires_at];
        self.insert_keeping_replay(sql, args, created_at, replay).await
    }

    /// The account when it belongs to the subscriber.
    pub async fn bank_account(&self, subscriber_id: i64, id: i64) -> StorageResult<Option<BankAccountRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM bank_accounts WHERE id = $1 AND subscriber_id = $2");
        self.fetch_one(Read::ByKey, sql, args![id, subscriber_id]).await
    }

    /// The subscriber's accounts, newest first.
    pub async fn bank_accounts(&self, subscriber_id: i64) -> StorageResult<Vec<BankAccountRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM bank_accounts WHERE subscriber_id = $1 ORDER BY id DESC");
        self.fetch_all(sql, args![subscriber_id]).await
    }

    pub async fn bank_link_by_token(&self, token_hash: Vec<u8>) -> StorageResult<Option<BankAccountRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM bank_accounts WHERE link_token_hash = $1");
        self.fetch_one(Read::ByKey, sql, args![token_hash]).await
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
        let sql = sql!(
            "UPDATE bank_accounts SET stage = $4, browser_hash = $3
             WHERE id = $1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}"
        );
        Ok(self.execute(sql, args![id, now, browser_hash, next_stage.as_str()]).await? == 1)
    }

    /// The one-time code was right: on to consent.
    pub async fn bank_pass_code(&self, id: i64, now: i64) -> StorageResult<bool> {
        let sql =
            sql!("UPDATE bank_accounts SET stage = 'consent' WHERE id = $1 AND stage = 'mfa' AND {STILL_PENDING}");
        Ok(self.execute(sql, args![id, now]).await? == 1)
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
        let sql = sql!(
            "UPDATE bank_accounts SET login_failures = login_failures + 1,
                 status = CASE WHEN login_failures + 1 >= $3 THEN 'failed' ELSE status END,
                 stage = CASE WHEN login_failures + 1 >= $3 THEN 'done' ELSE stage END,
                 failure_reason = CASE WHEN login_failures + 1 >= $3 THEN $4 ELSE failure_reason END
             WHERE id = $1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}
             RETURNING subscriber_id, login_failures"
        );
        let args = args![id, now, max_failures, failure.reason].into();
        let ends = Box::new(move |failures| failures >= max_failures);
        self.link_step(LinkStep { id, update: sql, args, now, outcome: failure.event, ends }).await
    }

    /// Ends the link failed with `reason`, recording `failed`'s event; `false` when it was closed.
    pub async fn fail_bank_link(&self, id: i64, now: i64, failure: LinkFailure) -> StorageResult<bool> {
        let sql = sql!(
            "UPDATE bank_accounts SET status = 'failed', stage = 'done', failure_reason = $3
             WHERE id = $1 AND {STILL_PENDING} RETURNING subscriber_id, login_failures"
        );
        let args = args![id, now, failure.reason].into();
        let step = LinkStep { id, update: sql, args, now, outcome: failure.event, ends: Box::new(|_| true) };
        let failed = self.link_step(step).await?;
        Ok(failed.is_some())
    }

    /// The person consented: the bank's scoped token and the permissions it grants are kept,
    /// and the consent's event recorded. `false` when the link closed first.
    pub async fn link_bank_account(&self, id: i64, now: i64, consent: Consent) -> StorageResult<bool> {
        let sql = sql!(
            "UPDATE bank_accounts SET status = 'linked', stage = 'done', permissions = $3, access_token = $4,
                 linked_at = $2
             WHERE id = $1 AND stage = 'consent' AND {STILL_PENDING} RETURNING subscriber_id, login_failures"
        );
        let args = args![id, now, consent.permissions, consent.access_token].into();
        let step = LinkStep { id, update: sql, args, now, outcome: consent.event, ends: Box::new(|_| true) };
        let linked = self.link_step(step).await?;
        Ok(linked.is_some())
    }

    /// Runs a step that may end the link: its failures so far, `None` when it did not apply.
    async fn link_step(&self, step: LinkStep) -> StorageResult<Option<u32>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::step(connection, step)).await,
            db => postgres::bank_accounts::step(db, step).await,
        )
    }
}
