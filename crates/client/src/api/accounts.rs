//! Bank accounts: the banks, enrollment (a hosted bank login), records and transactions.

use subscriber_protocol::{
    Account, AccountList, AccountTransactionPage, Bank, BankList, EnrollAccountRequest, EnrollAccountResponse,
    PageQuery, RecurringStream, RecurringStreams,
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
    /// stays `pending` until they do.
    pub async fn enroll_account(&self, bank: &str) -> Result<EnrollAccountResponse> {
        validate::text("bank", bank, 200)?;
        let body = EnrollAccountRequest { bank: bank.to_owned() };
        self.inner.call(Call::new(&routes::ENROLL_ACCOUNT, "/account").json(&body)?).await
    }

    /// `GET /account`: the caller's accounts.
    pub async fn accounts(&self) -> Result<Vec<Account>> {
        let list: AccountList = self.inner.call(Call::new(&routes::ACCOUNTS, "/account")).await?;
        Ok(list.accounts)
    }

    /// `GET /account/{account_id}`.
    pub async fn account(&self, account_id: i64) -> Result<Account> {
        validate::positive_id("accountId", account_id)?;
        self.inner.call(Call::new(&routes::ACCOUNT, format!("/account/{account_id}"))).await
    }

    /// `GET /account/{account_id}/recurring`: pay, rent and bills found in the account's
    /// transactions (with the `transactions` permission).
    pub async fn account_recurring(&self, account_id: i64) -> Result<Vec<RecurringStream>> {
        validate::positive_id("accountId", account_id)?;
        let streams: RecurringStreams =
            self.inner.call(Call::new(&routes::ACCOUNT_RECURRING, format!("/account/{account_id}/recurring"))).await?;
        Ok(streams.streams)
    }

    /// `GET /account/{account_id}/transactions` (with the `transactions` permission).
    pub fn account_transactions(&self, account_id: i64) -> Paged<PageQuery, AccountTransactionPage> {
        Paged::new(
            self.clone(),
            &routes::ACCOUNT_TRANSACTIONS,
            format!("/account/{account_id}/transactions"),
            PageQuery::default(),
        )
    }
}
