//! Bank accounts being linked or linked. Every step of the link is an update that holds only
//! while the link is pending and unexpired, so a late or repeated step changes nothing.

use super::rows::bank_accounts::COLUMNS;
use super::rows::card_sessions::NewTokenPage;
use super::rows::idempotency::Replay;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::AccountId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use super::rows::bank_accounts::LinkStep;

pub use super::rows::bank_accounts::{BankAccountRow, Consent, LinkFailure, LinkStage, LinkStatus, Outcome};

/// A step applies only to a link still open at `$2`: a new link, or a linked account's
/// update mode (`reopen_bank_link`), before it ends or expires.
const STILL_PENDING: &str = "stage <> 'done' AND expires_at > $2";

/// Not an account re-linked into another one (those are read as the other).
const NOT_MERGED: &str = "merged_into IS NULL";

impl Store {
    /// Opens the link's page, to `bank_id`, for the subscriber (and keeps the request's replay);
    /// the account's id.
    pub async fn open_bank_link(
        &self,
        page: NewTokenPage,
        bank_id: &'static str,
        replay: Option<Replay>,
    ) -> StorageResult<AccountId> {
        let NewTokenPage { subscriber_id, token_hash, created_at, expires_at, return_url, labels } = page;
        let sql = sql!(
            "INSERT INTO bank_accounts (subscriber_id, bank_id, link_token_hash, stage, status, created_at,
                 expires_at, return_url, client_user_id, metadata)
             VALUES ($1, $2, $3, 'login', 'pending', $4, $5, $6, $7, $8) RETURNING id"
        );
        let [client_user_id, metadata] = super::rows::labels::args(&labels);
        let args =
            args![subscriber_id, bank_id, token_hash, created_at, expires_at, return_url, client_user_id, metadata];
        self.insert_keeping_replay(sql, args, created_at, replay).await.map(AccountId)
    }

    /// The account when it belongs to the subscriber.
    pub async fn bank_account(
        &self,
        subscriber_id: SubscriberId,
        id: AccountId,
    ) -> StorageResult<Option<BankAccountRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM bank_accounts WHERE id = $1 AND subscriber_id = $2");
        self.fetch_one(Read::ByKey, sql, args![id, subscriber_id]).await
    }

    /// The subscriber's accounts, newest first.
    pub async fn bank_accounts(&self, subscriber_id: SubscriberId) -> StorageResult<Vec<BankAccountRow>> {
        let sql =
            sql!("SELECT {COLUMNS} FROM bank_accounts WHERE subscriber_id = $1 AND {NOT_MERGED} ORDER BY id DESC");
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
        id: AccountId,
        now: UnixSeconds,
        browser_hash: Vec<u8>,
        next_stage: LinkStage,
        login_key: Vec<u8>,
    ) -> StorageResult<bool> {
        let sql = sql!(
            "UPDATE bank_accounts SET stage = $4, browser_hash = $3, login_key = $5
             WHERE id = $1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}"
        );
        Ok(self.execute(sql, args![id, now, browser_hash, next_stage.as_str(), login_key]).await? == 1)
    }

    /// The one-time code was right: on to consent.
    pub async fn bank_pass_code(&self, id: AccountId, now: UnixSeconds) -> StorageResult<bool> {
        let sql =
            sql!("UPDATE bank_accounts SET stage = 'consent' WHERE id = $1 AND stage = 'mfa' AND {STILL_PENDING}");
        Ok(self.execute(sql, args![id, now]).await? == 1)
    }

    /// Counts a failed sign-in (or one-time code); at `max_failures` the link fails with
    /// `reason` and records `failed`'s event. The failures so far, or `None` when the link was
    /// no longer pending.
    pub async fn bank_login_failure(
        &self,
        id: AccountId,
        now: UnixSeconds,
        max_failures: u32,
        failure: LinkFailure,
    ) -> StorageResult<Option<u32>> {
        // A linked account in update mode stays as it was (its consent still the old one):
        // only a new link fails.
        let sql = sql!(
            "UPDATE bank_accounts SET login_failures = login_failures + 1,
                 status = CASE WHEN login_failures + 1 >= $3 AND status = 'pending' THEN 'failed' ELSE status END,
                 stage = CASE WHEN login_failures + 1 >= $3 THEN 'done' ELSE stage END,
                 failure_reason = CASE WHEN login_failures + 1 >= $3 AND status = 'pending' THEN $4
                     ELSE failure_reason END
             WHERE id = $1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}
             RETURNING subscriber_id, login_failures"
        );
        let args = args![id, now, max_failures, failure.reason].into();
        let ends = Box::new(move |failures| failures >= max_failures);
        self.link_step(LinkStep { id, update: sql, args, now, outcome: failure.event, ends, then: None }).await
    }

    /// Ends the link with `reason` (a new link fails; a linked account in update mode stays as
    /// it was), recording `failed`'s event; `false` when it was closed.
    pub async fn fail_bank_link(&self, id: AccountId, now: UnixSeconds, failure: LinkFailure) -> StorageResult<bool> {
        let sql = sql!(
            "UPDATE bank_accounts SET stage = 'done',
                 status = CASE WHEN status = 'pending' THEN 'failed' ELSE status END,
                 failure_reason = CASE WHEN status = 'pending' THEN $3 ELSE failure_reason END
             WHERE id = $1 AND {STILL_PENDING} RETURNING subscriber_id, login_failures"
        );
        let args = args![id, now, failure.reason].into();
        let step =
            LinkStep { id, update: sql, args, now, outcome: failure.event, ends: Box::new(|_| true), then: None };
        let failed = self.link_step(step).await?;
        Ok(failed.is_some())
    }

    /// The person consented: the bank's scoped token and the permissions it grants are kept,
    /// the consent runs until `consent.consent_expires_at`, and the consent's event recorded.
    /// A linked account in update mode keeps its id and first `linkedAt`. `false` when the
    /// link closed first.
    pub async fn link_bank_account(&self, id: AccountId, now: UnixSeconds, consent: Consent) -> StorageResult<bool> {
        let sql = sql!(
            "UPDATE bank_accounts SET status = 'linked', stage = 'done', permissions = $3, access_token = $4,
                 refreshed_at = CASE WHEN linked_at IS NULL THEN refreshed_at ELSE $2 END,
                 linked_at = COALESCE(linked_at, $2), consent_expires_at = $5, consent_warned_at = NULL,
                 failure_reason = NULL
             WHERE id = $1 AND stage = 'consent' AND {STILL_PENDING} RETURNING subscriber_id, login_failures"
        );
        let args = args![id, now, consent.permissions, consent.access_token, consent.consent_expires_at].into();
        let step =
            LinkStep { id, update: sql, args, now, outcome: consent.event, ends: Box::new(|_| true), then: None };
        let linked = self.link_step(step).await?;
        Ok(linked.is_some())
    }

    /// The person consented on new link `id` with the bank login account `into` already has:
    /// `into` takes the new consent (token, permissions, expiry), and `id` ends, read from
    /// then on as `into` and listed nowhere. `consent.event` names `into`. `false` when the
    /// link closed first.
    pub async fn merge_bank_link(
        &self,
        id: AccountId,
        into: AccountId,
        now: UnixSeconds,
        consent: Consent,
    ) -> StorageResult<bool> {
        let ended = sql!(
            "UPDATE bank_accounts SET status = 'linked', stage = 'done', merged_into = $3, linked_at = $2
             WHERE id = $1 AND stage = 'consent' AND status = 'pending' AND {STILL_PENDING}
             RETURNING subscriber_id, login_failures"
        );
        let relinked = sql!(
            "UPDATE bank_accounts SET permissions = $2, access_token = $3, consent_expires_at = $4,
                 consent_warned_at = NULL, refreshed_at = $5
             WHERE id = $1 AND status = 'linked'"
        );
        let then = args![into, consent.permissions, consent.access_token, consent.consent_expires_at, now].into();
        let step = LinkStep {
            id,
            update: ended,
            args: args![id, now, into].into(),
            now,
            outcome: consent.event,
            ends: Box::new(|_| true),
            then: Some((relinked, then)),
        };
        Ok(self.link_step(step).await?.is_some())
    }

    /// The subscriber's linked account, other than `id`, that the same bank login linked.
    pub async fn bank_account_with_login(
        &self,
        subscriber_id: SubscriberId,
        login_key: Vec<u8>,
        id: AccountId,
    ) -> StorageResult<Option<BankAccountRow>> {
        let sql = sql!(
            "SELECT {COLUMNS} FROM bank_accounts
             WHERE subscriber_id = $1 AND login_key = $2 AND id <> $3 AND status = 'linked' AND {NOT_MERGED}
             ORDER BY id LIMIT 1"
        );
        self.fetch_one(Read::ByKey, sql, args![subscriber_id, login_key, id]).await
    }

    /// Opens linked account `id`'s update mode: a new one-time link to the bank's pages (the
    /// old one no longer works), which re-consents the same account. `false` when it is not
    /// the subscriber's linked account.
    pub async fn reopen_bank_link(
        &self,
        subscriber_id: SubscriberId,
        id: AccountId,
        page: NewTokenPage,
    ) -> StorageResult<bool> {
        let NewTokenPage { token_hash, expires_at, return_url, .. } = page;
        let sql = sql!(
            "UPDATE bank_accounts SET link_token_hash = $3, stage = 'login', browser_hash = NULL,
                 login_failures = 0, expires_at = $4, return_url = $5
             WHERE id = $1 AND subscriber_id = $2 AND status = 'linked' AND {NOT_MERGED}"
        );
        Ok(self.execute(sql, args![id, subscriber_id, token_hash, expires_at, return_url]).await? == 1)
    }

    /// Records a refresh of linked account `id` at `now` with its event; `false` when it is not
    /// linked with an unexpired consent.
    pub async fn refresh_bank_account(&self, id: AccountId, now: UnixSeconds, event: Outcome) -> StorageResult<bool> {
        let sql = sql!(
            "UPDATE bank_accounts SET refreshed_at = $2
             WHERE id = $1 AND status = 'linked' AND consent_expires_at > $2 AND {NOT_MERGED}
             RETURNING subscriber_id, login_failures"
        );
        let step = LinkStep {
            id,
            update: sql,
            args: args![id, now].into(),
            now,
            outcome: event,
            ends: Box::new(|_| true),
            then: None,
        };
        Ok(self.link_step(step).await?.is_some())
    }

    /// Linked accounts whose consent runs out by `by` and whose expiring event was not
    /// recorded yet, oldest consent first (at most `limit`).
    pub async fn consents_to_warn(&self, by: UnixSeconds, limit: u32) -> StorageResult<Vec<BankAccountRow>> {
        let sql = sql!(
            "SELECT {COLUMNS} FROM bank_accounts
             WHERE consent_warned_at IS NULL AND consent_expires_at IS NOT NULL AND consent_expires_at <= $1
               AND status = 'linked' AND {NOT_MERGED}
             ORDER BY consent_expires_at LIMIT $2"
        );
        self.fetch_all(sql, args![by, limit]).await
    }

    /// Records account `id`'s expiring event once per consent: `false` when it was recorded
    /// already (by another instance too) or the consent moved past `by`.
    pub async fn warn_consent(
        &self,
        id: AccountId,
        now: UnixSeconds,
        by: UnixSeconds,
        event: Outcome,
    ) -> StorageResult<bool> {
        let sql = sql!(
            "UPDATE bank_accounts SET consent_warned_at = $2
             WHERE id = $1 AND consent_warned_at IS NULL AND consent_expires_at <= $3 AND status = 'linked'
             RETURNING subscriber_id, login_failures"
        );
        let step = LinkStep {
            id,
            update: sql,
            args: args![id, now, by].into(),
            now,
            outcome: event,
            ends: Box::new(|_| true),
            then: None,
        };
        Ok(self.link_step(step).await?.is_some())
    }

    /// Runs a step that may end the link: its failures so far, `None` when it did not apply.
    async fn link_step(&self, step: LinkStep) -> StorageResult<Option<u32>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::bank_accounts::step(connection, step)).await,
            db => postgres::bank_accounts::step(db, step).await,
        )
    }
}
