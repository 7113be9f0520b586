//! The bank-link session's moves: a pending link is signed in at the bank (then asked for a
//! one-time code, or straight to consent), and ends linked with the permissions granted or
//! failed with a reason; wrong sign-ins are counted. Each move happens only while the link is
//! still pending (checked in the writing statement). The pages that drive them are views,
//! `crate::hosted::bank`.

use std::time::Duration;
use subscriber_protocol::AccountId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{AccountEventData, AccountPermission, EventData};

use super::banks::credentials::MAX_LOGIN_FAILURES;
use super::permission_name;
use crate::error::ApiError;
use crate::link_token;
use crate::paging;
use crate::state::AppState;
use crate::storage::bank_accounts::{BankAccountRow, Consent, LinkFailure, LinkStage, LinkStatus};
use crate::storage::events::StoredEvent;

/// The link a page's token names, in whatever state.
pub async fn find_by_link(state: &AppState, link_token: &str) -> Result<Option<BankAccountRow>, ApiError> {
    Ok(state.db.bank_link_by_token(link_token::hash(link_token)).await?)
}

/// Signed in at the bank as `username` in the browser holding `browser_nonce`; on to
/// `next_stage`. Only a keyed digest of the bank and the username is kept (`login_key`), to
/// find the account the same login already linked.
pub async fn sign_in(
    state: &AppState,
    link: &BankAccountRow,
    username: &str,
    browser_nonce: &str,
    next_stage: LinkStage,
) -> Result<bool, ApiError> {
    let now = UnixSeconds::now();
    let login_key = login_key(state, &link.bank_id, username);
    Ok(state.db.bank_sign_in(link.id, now, link_token::hash(browser_nonce), next_stage, login_key).await?)
}

/// HMAC of the bank and the username (as the bank compares it: any case) under the card
/// fingerprint key: equal for the same login, useless to recover the username.
fn login_key(state: &AppState, bank_id: &str, username: &str) -> Vec<u8> {
    let login = format!("bank-login\0{bank_id}\0{}", username.trim().to_lowercase());
    crate::cards::validation::fingerprint(&state.fingerprint_key, &login)
}

/// The one-time code was right: on to consent.
pub async fn pass_code(state: &AppState, account_id: AccountId) -> Result<bool, ApiError> {
    Ok(state.db.bank_pass_code(account_id, UnixSeconds::now()).await?)
}

/// Counts a wrong sign-in or code: the failures so far (the link fails with `reason` at
/// [`MAX_LOGIN_FAILURES`]), or `None` when the link is no longer pending.
pub async fn record_login_failure(
    state: &AppState,
    link: &BankAccountRow,
    reason: &'static str,
) -> Result<Option<u32>, ApiError> {
    let now = UnixSeconds::now();
    Ok(state.db.bank_login_failure(link.id, now, MAX_LOGIN_FAILURES, link_failure(link, reason)).await?)
}

/// The link ends failed, with the reason the subscriber is shown.
pub async fn fail(state: &AppState, link: &BankAccountRow, reason: &'static str) -> Result<bool, ApiError> {
    Ok(state.db.fail_bank_link(link.id, UnixSeconds::now(), link_failure(link, reason)).await?)
}

fn link_failure(link: &BankAccountRow, reason: &'static str) -> LinkFailure {
    let failed = EventData::AccountFailed(outcome(link, Some(reason)));
    LinkFailure { reason, event: StoredEvent::new(&failed) }
}

/// The person consented to share `granted`: the bank's scoped token (random, good only for
/// those permissions) is kept instead of any credential, and the consent runs for
/// [`CONSENT`]. A new link made with a bank login the subscriber already linked
/// re-links that account instead of adding a second one. The account linked, or `None` when
/// the link closed first.
pub async fn link(
    state: &AppState,
    link: &BankAccountRow,
    granted: &[AccountPermission],
) -> Result<Option<AccountId>, ApiError> {
    let now = UnixSeconds::now();
    let consent_expires_at = now.plus(CONSENT);
    let same_login = match (&link.login_key, link.status) {
        (Some(login_key), LinkStatus::Pending) => {
            state.db.bank_account_with_login(link.subscriber_id, login_key.clone(), link.id).await?
        }
        _ => None,
    };
    let account = same_login.as_ref().unwrap_or(link);
    let linked = EventData::AccountLinked(AccountEventData {
        consent_expires_at: paging::checked_time(consent_expires_at).ok(),
        ..outcome(account, None)
    });
    let consent = Consent {
        permissions: granted.iter().map(|permission| permission_name(*permission)).collect::<Vec<_>>().join(","),
        access_token: format!("sbx_{}", link_token::new_token()),
        consent_expires_at,
        event: StoredEvent::new(&linked),
    };
    let done = match &same_login {
        Some(existing) => state.db.merge_bank_link(link.id, existing.id, now, consent).await?,
        None => state.db.link_bank_account(link.id, now, consent).await?,
    };
    Ok(done.then_some(account.id))
}

/// How long a person's consent to share an account lasts (the sandbox's; a bank's own may be
/// shorter): 90 days.
pub const CONSENT: Duration = Duration::from_secs(90 * 86_400);

/// The data of an account's event.
pub fn outcome(link: &BankAccountRow, reason: Option<&str>) -> AccountEventData {
    AccountEventData {
        account_id: link.id,
        reason: reason.map(str::to_owned),
        consent_expires_at: None,
        client_user_id: link.labels.client_user_id.clone(),
        metadata: link.labels.metadata.clone(),
    }
}
