//! Bank accounts: the banks, enrollment (a hosted bank login), records and transactions.

use subscriber_protocol::{
    Account, AccountId, AccountList, AccountTransactionPage, Bank, BankList, EnrollAccountRequest,
    EnrollAccountResponse, Metadata, PageQuery, ReauthAccountRequest, ReauthAccountResponse, RecurringStream,
    RecurringStreams, RemoveAccountResponse, UpdateMetadataRequest,
};

use crate::client::Client;
use crate::error::Result;
use crate::paging::Paged;
use crate::routes;
use crate::transport::Call;
use crate::validate;

impl Client {
    /// `GET /banks`: the banks an account can be enrolled at.
    pub async fn banks(&self) -> Result<Vec<Bank>> {
        let list: BankList = self.inner.call(Call::new(&routes::BANKS, "/banks")).await?;
        Ok(list.banks)
    }

    /// `POST /account`: starts linking an account at `bank` (an id or a name of
    /// [`banks`](Self::banks)). Send the person to `url` to log in at the bank; the account
    /// stays `pending` until they do. With `return_url` (beginning with a registered return
    /// URL), the bank's last page links back to it with `accountId` and `status`.
    pub async fn enroll_account(&self, request: &EnrollAccountRequest) -> Result<EnrollAccountResponse> {
        validate::text("bank", &request.bank, 200)?;
        validate::labels(request.client_user_id.as_deref(), request.metadata.as_ref())?;
        self.inner.call(Call::new(&routes::ENROLL_ACCOUNT, "/account").json(request)?).await
    }

    /// `GET /account`: the caller's accounts.
    pub async fn accounts(&self) -> Result<Vec<Account>> {
        let list: AccountList = self.inner.call(Call::new(&routes::ACCOUNTS, "/account")).await?;
        Ok(list.accounts)
    }

    /// `GET /account/{account_id}`.
    pub async fn account(&self, account_id: AccountId) -> Result<Account> {
        validate::positive_id("accountId", account_id)?;
        self.inner.call(Call::new(&routes::ACCOUNT, format!("/account/{account_id}"))).await
    }

    /// `PATCH /account/{account_id}`: sets notes on the account (keys merge; a key with "" is
    /// removed).
    pub async fn update_account(&self, account_id: AccountId, metadata: &Metadata) -> Result<Account> {
        validate::positive_id("accountId", account_id)?;
        validate::metadata_patch(metadata)?;
        let body = UpdateMetadataRequest { metadata: metadata.clone() };
        self.inner.call(Call::new(&routes::UPDATE_ACCOUNT, format!("/account/{account_id}")).json(&body)?).await
    }

    /// `DELETE /account/{account_id}`: the bank's access is revoked and the account erased.
    pub async fn remove_account(&self, account_id: AccountId) -> Result<RemoveAccountResponse> {
        validate::positive_id("accountId", account_id)?;
        self.inner.call(Call::new(&routes::REMOVE_ACCOUNT, format!("/account/{account_id}"))).await
    }

    /// `POST /account/{account_id}/reauth`: the bank's pages in update mode, to renew the
    /// person's consent (the account keeps its id). `return_url` as `POST /account` takes it.
    pub async fn reauth_account(
        &self,
        account_id: AccountId,
        return_url: Option<&str>,
    ) -> Result<ReauthAccountResponse> {
        validate::positive_id("accountId", account_id)?;
        let body = ReauthAccountRequest { return_url: return_url.map(str::to_owned) };
        self.inner.call(Call::new(&routes::REAUTH_ACCOUNT, format!("/account/{account_id}/reauth")).json(&body)?).await
    }

    /// `POST /account/{account_id}/refresh`: fetches what is new at the bank; the account as
    /// it is then.
    pub async fn refresh_account(&self, account_id: AccountId) -> Result<Account> {
        validate::positive_id("accountId", account_id)?;
        self.inner.call(Call::new(&routes::REFRESH_ACCOUNT, format!("/account/{account_id}/refresh"))).await
    }

    /// `GET /account/{account_id}/recurring`: pay, rent and bills found in the account's
    /// transactions (with the `transactions` permission).
    pub async fn account_recurring(&self, account_id: AccountId) -> Result<Vec<RecurringStream>> {
        validate::positive_id("accountId", account_id)?;
        let streams: RecurringStreams =
            self.inner.call(Call::new(&routes::ACCOUNT_RECURRING, format!("/account/{account_id}/recurring"))).await?;
        Ok(streams.streams)
    }

    /// `GET /account/{account_id}/transactions` (with the `transactions` permission).
    pub fn account_transactions(&self, account_id: AccountId) -> Paged<PageQuery, AccountTransactionPage> {
        Paged::new(
            self.clone(),
            &routes::ACCOUNT_TRANSACTIONS,
            format!("/account/{account_id}/transactions"),
            PageQuery::default(),
        )
    }
}
