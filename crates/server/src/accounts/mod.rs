//! Bank accounts: `POST /account` names a bank and gets a one-time link to the bank's
//! sign-in page, where the person signs in and chooses what to share. The service never
//! sees the bank credentials: it keeps only the bank's scoped token and the permissions the
//! person granted. Status: pending → linked | failed | expired.

pub mod bank_link;
pub mod banks;
pub mod consent;

use std::collections::BTreeSet;
use subscriber_protocol::AccountId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use chrono::Utc;
use subscriber_protocol::{
    Account, AccountBalance, AccountList, AccountPermission, AccountStatus, AccountTransaction, AccountTransactionPage,
    AccountTransactionQuery, AccountType, Bank, BankList, EnrollAccountRequest, EnrollAccountResponse, Environment,
    ErrorBody, Metadata, RecurringStreams, RemoveAccountResponse, Success, TransactionEnrichment,
    UpdateMetadataRequest,
};

use utoipa_axum::routes;

use crate::enrichment::history::{History, Item, Kind};
use crate::erasure;
use crate::error::ApiError;
use crate::http::extract::{ApiJson, ApiQuery, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::http::routes::Routes;
use crate::labels;
use crate::link_token::OpeningPage;
use crate::paging;
use crate::return_url;
use crate::simulation::bank;
use crate::state::AppState;
use crate::storage::bank_accounts::{BankAccountRow, LinkStatus};
use crate::storage::removals::UserObject;

fn no_such_account(account_id: AccountId) -> ApiError {
    ApiError::not_found(format!("no account {account_id} was enrolled by this subscriber"))
}
use banks::SandboxBank;

pub fn routes(api: Routes) -> Routes {
    api.api(routes!(list_banks))
        .api_creating(routes!(enroll))
        .api(routes!(list))
        .api(routes!(details))
        .api(routes!(update))
        .api(routes!(remove))
        .api(routes!(transactions))
        .api(routes!(recurring))
        .api(routes!(consent::reauth))
        .api(routes!(consent::refresh))
}

/// The bank's sign-in page; its link carries the account's token as `link`.
pub const LOGIN_PATH: &str = "/secure/bank/login";
pub const CONSENT_PATH: &str = "/secure/bank/consent";

pub const ALL_PERMISSIONS: [AccountPermission; 3] =
    [AccountPermission::Balances, AccountPermission::Cards, AccountPermission::Transactions];

pub fn permission_name(permission: AccountPermission) -> &'static str {
    match permission {
        AccountPermission::Balances => "balances",
        AccountPermission::Cards => "cards",
        AccountPermission::Transactions => "transactions",
    }
}

/// The stored comma-separated list, in a fixed order.
pub fn permissions_of(stored: &str) -> Vec<AccountPermission> {
    let granted: BTreeSet<&str> = stored.split(',').map(str::trim).collect();
    ALL_PERMISSIONS.into_iter().filter(|permission| granted.contains(permission_name(*permission))).collect()
}

pub fn status_of(row: &BankAccountRow, now: UnixSeconds) -> AccountStatus {
    match row.status {
        LinkStatus::Linked if row.consent_expires_at.is_some_and(|expires_at| now >= expires_at) => {
            AccountStatus::ReauthRequired
        }
        LinkStatus::Linked => AccountStatus::Linked,
        LinkStatus::Failed => AccountStatus::Failed,
        LinkStatus::Pending if now >= row.expires_at => AccountStatus::Expired,
        LinkStatus::Pending => AccountStatus::Pending,
    }
}

pub fn bank_of(row: &BankAccountRow) -> Result<&'static SandboxBank, ApiError> {
    banks::by_id(&row.bank_id)
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("account {} names an unknown bank", row.id)))
}

fn bank_entry(bank: &SandboxBank) -> Bank {
    Bank { id: bank.id.to_owned(), name: bank.name.to_owned() }
}

/// The banks this environment can link accounts at: the sandbox banks, which the service plays
/// itself with published test logins, exist only in the sandbox. Elsewhere no bank connection
/// is configured yet, so there are none (`None`).
pub fn linkable_banks(state: &AppState) -> Option<&'static [SandboxBank]> {
    (state.environment() == Environment::Sandbox).then_some(banks::BANKS)
}

/// The banks an account can be enrolled at
///
/// Outside the sandbox the list is empty until a bank connection is configured.
#[utoipa::path(get, path = "/banks", tag = "accounts", operation_id = "listBanks",
    responses((status = 200, description = "The banks (none outside the sandbox yet).", body = Success<BankList>)))]
async fn list_banks(State(state): State<AppState>, _auth: Auth) -> Json<Success<BankList>> {
    let banks = linkable_banks(&state).unwrap_or_default();
    Json(Success::new(BankList { banks: banks.iter().map(bank_entry).collect() }))
}

/// Starts linking a bank account
///
/// Open `url` in the person's browser to sign in at the bank and choose what to share. The service
/// never sees the bank credentials.
#[utoipa::path(post, path = "/account", tag = "accounts", operation_id = "enrollAccount",
    request_body = EnrollAccountRequest,
    responses(
        (status = 201, description = "The account is pending until the person signs in at `url`.",
            body = Success<EnrollAccountResponse>),
        (status = 400, description = "No such bank, or `returnUrl` begins with none of the registered return URLs.",
            body = ErrorBody),
        (status = 409, description = "The Idempotency-Key was used with another body.", body = ErrorBody),
        (status = 501, description = "No bank connection is configured in this environment (`not_configured`): \
            the sandbox banks exist only in the sandbox.", body = ErrorBody),
    ))]
async fn enroll(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    ApiJson(request): ApiJson<EnrollAccountRequest>,
) -> Result<Response, ApiError> {
    let linkable = linkable_banks(&state).ok_or_else(|| {
        ApiError::NotConfigured(format!(
            "no bank connection is configured in the {} environment: the sandbox banks and their test logins \
             exist only in the sandbox",
            state.environment().as_str()
        ))
    })?;
    let bank = banks::find(linkable, &request.bank).ok_or_else(|| {
        let known = linkable.iter().map(|bank| format!("{} ({})", bank.id, bank.name)).collect::<Vec<_>>();
        ApiError::invalid_field(
            "bank",
            format!("no bank is named {:?}: use an id or a name from GET /banks: {}", request.bank, known.join(", ")),
        )
    })?;
    let labels = labels::sent(request.client_user_id.as_deref(), request.metadata.as_ref())?;
    let return_url = return_url::for_page(&state, auth.subscriber_id, request.return_url.as_deref()).await?;
    let opening = OpeningPage::new(UnixSeconds::now(), state.config.hosted_session_seconds);
    let expires_at_time = paging::checked_time(opening.expires_at)?;
    let url = opening.url(&state.public_url(), LOGIN_PATH, "link");
    let subscriber_id = auth.subscriber_id;
    let response_url = url.clone();
    let replay = idempotent.replay(move |account_id| EnrollAccountResponse {
        account_id,
        url: response_url.clone(),
        expires_at: expires_at_time,
        status: AccountStatus::Pending,
    });
    let page = opening.into_token_page(subscriber_id, return_url, labels);
    let account_id = state.db.open_bank_link(page, bank.id, replay).await?;
    tracing::info!(account_id = account_id.get(), bank = bank.id, "bank link opened");
    let body = EnrollAccountResponse { account_id, url, expires_at: expires_at_time, status: AccountStatus::Pending };
    Ok(idempotent.created(body))
}

/// The account as the subscriber sees it: bank data only when linked and granted (and the
/// consent not run out: what was granted is still listed then).
pub fn account_view(seed: u64, row: &BankAccountRow, now: UnixSeconds) -> Result<Account, ApiError> {
    let bank = bank_of(row)?;
    let status = status_of(row, now);
    let granted = matches!(status, AccountStatus::Linked | AccountStatus::ReauthRequired);
    let permissions = if granted { permissions_of(&row.permissions) } else { Vec::new() };
    let readable = |permission| status == AccountStatus::Linked && permissions.contains(&permission);
    let balance = readable(AccountPermission::Balances).then(|| {
        let balance = bank::balance(seed, row.id);
        AccountBalance {
            available: paging::amount(balance.available_minor),
            current: paging::amount(balance.current_minor),
            currency: bank.currency.to_owned(),
        }
    });
    let cards = readable(AccountPermission::Cards).then(|| bank::cards(seed, row.id));
    // The bank names the account the person chose once they linked it.
    let naming = granted.then(|| bank::naming(seed, row.id));
    Ok(Account {
        account_id: row.id,
        bank: bank_entry(bank),
        status,
        permissions,
        linked_at: row.linked_at.map(paging::checked_time).transpose()?,
        created_at: paging::checked_time(row.created_at)?,
        expires_at: paging::checked_time(row.expires_at)?,
        consent_expires_at: row.consent_expires_at.filter(|_| granted).map(paging::checked_time).transpose()?,
        refreshed_at: row.refreshed_at.map(paging::checked_time).transpose()?,
        name: naming.as_ref().map(|naming| naming.name.to_owned()),
        account_type: naming.as_ref().map(|_| AccountType::Checking),
        mask: naming.map(|naming| naming.mask),
        failure_reason: row.failure_reason.clone().filter(|_| status == AccountStatus::Failed),
        balance,
        cards,
        client_user_id: row.labels.client_user_id.clone(),
        metadata: row.labels.metadata.clone(),
    })
}

/// The caller's account `account_id`; a link that re-linked another account with the same
/// bank login is read as that account.
async fn owned_account(
    state: &AppState,
    subscriber_id: SubscriberId,
    account_id: AccountId,
) -> Result<BankAccountRow, ApiError> {
    let row = state.db.bank_account(subscriber_id, account_id).await?.ok_or_else(|| no_such_account(account_id))?;
    match row.merged_into {
        Some(into) => state.db.bank_account(subscriber_id, into).await?.ok_or_else(|| no_such_account(account_id)),
        None => Ok(row),
    }
}

/// The caller's bank accounts
///
/// Every account the caller linked or started linking, newest first, each with its status and what
/// its permissions let the service read.
#[utoipa::path(get, path = "/account", tag = "accounts", operation_id = "listAccounts",
    responses((status = 200, description = "The caller's accounts.", body = Success<AccountList>)))]
async fn list(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<AccountList>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let rows = state.db.bank_accounts(subscriber_id).await?;
    let now = UnixSeconds::now();
    let seed = state.config.sandbox_seed;
    let accounts = rows.iter().map(|row| account_view(seed, row, now)).collect::<Result<_, _>>()?;
    Ok(Json(Success::new(AccountList { accounts })))
}

/// A bank account of the caller, with what its permissions let the service read
///
/// Follow this after `POST /account` until `status` leaves `pending`: the person signs in at the
/// bank on the page of `url`. A linked account shows its balance and the cards the bank holds when
/// the person allowed it.
#[utoipa::path(get, path = "/account/{account_id}", tag = "accounts", operation_id = "getAccount",
    params(("account_id" = i64, Path, description = "An accountId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The account.", body = Success<Account>),
        (status = 404, description = "No such account of the caller.", body = ErrorBody),
    ))]
async fn details(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(account_id): IdPath<AccountId>,
) -> Result<Json<Success<Account>>, ApiError> {
    let row = owned_account(&state, auth.subscriber_id, account_id).await?;
    Ok(Json(Success::new(account_view(state.config.sandbox_seed, &row, UnixSeconds::now())?)))
}

/// Sets notes on a bank account of the caller
///
/// Keys merge with those set before; a key sent with "" is removed. At most 20 pairs in all
/// (key at most 40 characters, value at most 500).
#[utoipa::path(patch, path = "/account/{account_id}", tag = "accounts", operation_id = "updateAccount",
    params(("account_id" = i64, Path, description = "An accountId of the caller.", minimum = 1)),
    request_body = UpdateMetadataRequest,
    responses(
        (status = 200, description = "The account as it is now.", body = Success<Account>),
        (status = 400, description = "A pair is past its limits: nothing changed.", body = ErrorBody),
        (status = 404, description = "No such account of the caller.", body = ErrorBody),
    ))]
async fn update(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(account_id): IdPath<AccountId>,
    ApiJson(request): ApiJson<UpdateMetadataRequest>,
) -> Result<Json<Success<Account>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let read = || owned_account(&state, subscriber_id, account_id);
    let metadata_of: fn(&BankAccountRow) -> &Metadata = |row| &row.labels.metadata;
    let object = UserObject::Account(account_id);
    let row = labels::patch_metadata(&state, subscriber_id, object, &request.metadata, read, metadata_of).await?;
    Ok(Json(Success::new(account_view(state.config.sandbox_seed, &row, UnixSeconds::now())?)))
}

/// Removes a bank account: the bank's access is revoked and the account's data erased
///
/// The bank's token goes with the account (nothing can read the bank with it again), and so
/// do its events but one `account.removed` with the id alone. Every read of the account is
/// 404 from then on.
#[utoipa::path(delete, path = "/account/{account_id}", tag = "accounts", operation_id = "removeAccount",
    params(("account_id" = i64, Path, description = "An accountId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The account is removed.", body = Success<RemoveAccountResponse>),
        (status = 404, description = "No such account of the caller (or it was removed already).", body = ErrorBody),
    ))]
async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(account_id): IdPath<AccountId>,
) -> Result<Json<Success<RemoveAccountResponse>>, ApiError> {
    if !erasure::erase(&state, auth.subscriber_id, UserObject::Account(account_id)).await? {
        return Err(no_such_account(account_id));
    }
    tracing::info!(account_id = account_id.get(), "bank account removed; its bank token revoked");
    Ok(Json(Success::new(RemoveAccountResponse { message: "Account removed".to_owned(), account_id })))
}

/// A bank account's transactions, newest first
///
/// 403 unless the account is linked with the `transactions` permission.
#[utoipa::path(get, path = "/account/{account_id}/transactions", tag = "accounts",
    operation_id = "listAccountTransactions",
    params(("account_id" = i64, Path, description = "An accountId of the caller.", minimum = 1),
        AccountTransactionQuery),
    responses(
        (status = 200, description = "A page of the account's transactions; `nextCursor` is null on the last.",
            body = Success<AccountTransactionPage>),
        (status = 403, description = "The account is not linked, or the person did not grant the \
            transactions permission.", body = ErrorBody),
        (status = 404, description = "No such account of the caller.", body = ErrorBody),
        (status = 409, description = "The person's consent ran out (`reauth_required`): renew it with \
            `POST /account/{accountId}/reauth`.", body = ErrorBody),
    ))]
async fn transactions(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(account_id): IdPath<AccountId>,
    ApiQuery(query): ApiQuery<AccountTransactionQuery>,
) -> Result<Json<Success<AccountTransactionPage>>, ApiError> {
    let (filter, limit) = crate::paging::transaction_filter(
        query.limit,
        query.cursor.as_deref(),
        query.from.as_deref(),
        query.to.as_deref(),
    )?;
    let readable = readable_history(&state, auth.subscriber_id, account_id).await?;
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut page: Vec<AccountTransaction> = Vec::new();
    let mut next_cursor = None;
    for (item, enrichment) in readable.transactions.into_iter().zip(readable.enrichments) {
        let in_range = filter.from.is_none_or(|from| item.created_at >= from)
            && filter.to.is_none_or(|to| item.created_at <= to)
            && query.pending.is_none_or(|pending| item.pending == pending)
            && filter.after.is_none_or(|after| (item.created_at, item.id.get()) < after);
        if !in_range {
            continue;
        }
        if page.len() == limit {
            next_cursor =
                page.last().map(|last| paging::encode_cursor(last.created_at.timestamp(), last.transaction_id));
            break;
        }
        page.push(AccountTransaction {
            transaction_id: item.id,
            created_at: paging::checked_time(item.created_at)?,
            pending: item.pending,
            amount: paging::amount(item.amount_minor),
            currency: readable.currency.to_owned(),
            description: item.description,
            enrichment: enrichment.into(),
        });
    }
    Ok(Json(Success::new(AccountTransactionPage { transactions: page, next_cursor })))
}

/// A linked account's transactions the caller may read, newest first, each enriched and placed
/// in the account's recurring streams.
struct ReadableHistory {
    transactions: Vec<bank::BankTransaction>,
    enrichments: Vec<TransactionEnrichment>,
    currency: &'static str,
    history: History,
}

/// The account's history, or 403 unless it is linked with the `transactions` permission (409
/// `reauth_required` once the person's consent ran out).
async fn readable_history(
    state: &AppState,
    subscriber_id: SubscriberId,
    account_id: AccountId,
) -> Result<ReadableHistory, ApiError> {
    let row = owned_account(state, subscriber_id, account_id).await?;
    let now = UnixSeconds::now();
    let status = status_of(&row, now);
    if status == AccountStatus::ReauthRequired {
        return Err(consent::reauth_required(account_id));
    }
    if status != AccountStatus::Linked {
        let status = serde_json::to_value(status).ok().and_then(|value| value.as_str().map(str::to_owned));
        return Err(ApiError::Forbidden(format!(
            "account {account_id} is {}: transactions can be read once the person has linked it and granted the transactions permission",
            status.unwrap_or_default()
        )));
    }
    if !permissions_of(&row.permissions).contains(&AccountPermission::Transactions) {
        return Err(ApiError::Forbidden(format!(
            "the person did not grant the transactions permission for account {account_id}"
        )));
    }
    let bank = bank_of(&row)?;
    // What the bank had when the account was linked, or last refreshed.
    let linked_at = row.linked_at.unwrap_or(row.created_at);
    let until = row.refreshed_at.unwrap_or(linked_at);
    let transactions = bank::transactions(state.config.sandbox_seed, row.id, linked_at, until);
    let enricher = state.enricher().await?;
    let found: Vec<TransactionEnrichment> =
        transactions.iter().map(|item| enricher.bank_text(&item.description)).collect();
    let items = transactions
        .iter()
        .zip(&found)
        .map(|(item, enrichment)| {
            Ok(Item {
                id: item.id,
                date: paging::checked_time(item.created_at)?.date_naive(),
                amount_minor: item.amount_minor,
                currency: bank.currency,
                description: &item.description,
                enrichment,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let history = History::of(&format!("account {account_id}"), Kind::Account, &items, Utc::now().date_naive());
    let enrichments = items.iter().map(|item| history.placed(Kind::Account, item)).collect();
    drop(items);
    Ok(ReadableHistory { transactions, enrichments, currency: bank.currency, history })
}

/// A bank account's recurring streams: pay, rent, bills
///
/// Payments to or from one counterparty at a steady rhythm, found in the account's
/// transactions. 403 unless the account is linked with the `transactions` permission.
#[utoipa::path(get, path = "/account/{account_id}/recurring", tag = "accounts",
    operation_id = "listAccountRecurring",
    params(("account_id" = i64, Path, description = "An accountId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The account's streams, the latest paid first.", body = Success<RecurringStreams>),
        (status = 403, description = "The account is not linked, or the person did not grant the \
            transactions permission.", body = ErrorBody),
        (status = 404, description = "No such account of the caller.", body = ErrorBody),
        (status = 409, description = "The person's consent ran out (`reauth_required`): renew it with \
            `POST /account/{accountId}/reauth`.", body = ErrorBody),
    ))]
async fn recurring(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(account_id): IdPath<AccountId>,
) -> Result<Json<Success<RecurringStreams>>, ApiError> {
    let readable = readable_history(&state, auth.subscriber_id, account_id).await?;
    Ok(Json(Success::new(RecurringStreams { streams: readable.history.streams_on(Utc::now().date_naive()) })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_read_back_in_a_fixed_order() {
        assert_eq!(
            permissions_of("transactions,balances"),
            [AccountPermission::Balances, AccountPermission::Transactions]
        );
        assert!(permissions_of("").is_empty());
    }
}
