//! The bank-link session's moves: a pending link is signed in at the bank (then asked for a
//! one-time code, or straight to consent), and ends linked with the permissions granted or
//! failed with a reason; wrong sign-ins are counted. Each move happens only while the link is
//! still pending (checked in the writing statement). The pages that drive them are views,
//! `crate::hosted::bank`.

use chrono::Utc;
use subscriber_protocol::{AccountEventData, AccountPermission, EventData};

use super::banks::credentials::MAX_LOGIN_FAILURES;
use super::permission_name;
use crate::error::ApiError;
use crate::link_token;
use crate::state::AppState;
use crate::storage::bank_accounts::{BankAccountRow, Consent, LinkFailure, LinkStage};
use crate::storage::events::StoredEvent;

/// The link a page's token names, in whatever state.
pub async fn find_by_link(state: &AppState, link_token: &str) -> Result<Option<BankAccountRow>, ApiError> {
    Ok(state.db.bank_link_by_token(link_token::hash(link_token)).await?)
}

/// Signed in at the bank in the browser holding `browser_nonce`; on to `next_stage`.
pub async fn sign_in(
    state: &AppState,
    account_id: i64,
    browser_nonce: &str,
    next_stage: LinkStage,
) -> Result<bool, ApiError> {
    let now = Utc::now().timestamp();
    Ok(state.db.bank_sign_in(account_id, now, link_token::hash(browser_nonce), next_stage).await?)
}

/// The one-time code was right: on to consent.
pub async fn pass_code(state: &AppState, account_id: i64) -> Result<bool, ApiError> {
    Ok(state.db.bank_pass_code(account_id, Utc::now().timestamp()).await?)
}

/// Counts a wrong sign-in or code: the failures so far (the link fails with `reason` at
/// [`MAX_LOGIN_FAILURES`]), or `None` when the link is no longer pending.
pub async fn record_login_failure(
    state: &AppState,
    account_id: i64,
    reason: &'static str,
) -> Result<Option<u32>, ApiError> {
    let now = Utc::now().timestamp();
    Ok(state.db.bank_login_failure(account_id, now, MAX_LOGIN_FAILURES, link_failure(account_id, reason)).await?)
}

/// The link ends failed, with the reason the subscriber is shown.
pub async fn fail(state: &AppState, account_id: i64, reason: &'static str) -> Result<bool, ApiError> {
    Ok(state.db.fail_bank_link(account_id, Utc::now().timestamp(), link_failure(account_id, reason)).await?)
}

fn link_failure(account_id: i64, reason: &'static str) -> LinkFailure {
    let failed = EventData::AccountFailed(outcome(account_id, Some(reason)));
    LinkFailure { reason, event: StoredEvent::new(&failed) }
}

/// The person consented to share `granted`: the bank's scoped token (random, good only for
/// those permissions) is kept instead of any credential. `false` when the link closed first.
pub async fn link(state: &AppState, account_id: i64, granted: &[AccountPermission]) -> Result<bool, ApiError> {
    let linked = EventData::AccountLinked(outcome(account_id, None));
    let consent = Consent {
        permissions: granted.iter().map(|permission| permission_name(*permission)).collect::<Vec<_>>().join(","),
        access_token: format!("sbx_{}", link_token::new_token()),
        event: StoredEvent::new(&linked),
    };
    Ok(state.db.link_bank_account(account_id, Utc::now().timestamp(), consent).await?)
}

/// The data of an `account.linked` or `account.failed` event.
fn outcome(account_id: i64, reason: Option<&str>) -> AccountEventData {
    AccountEventData { account_id, reason: reason.map(str::to_owned) }
}
