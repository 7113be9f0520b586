//! Bank accounts: the banks, linking (the bank's sign-in page opens in the browser, the app
//! waits for the outcome), the accounts and, when granted, their transactions.

use subscriber_protocol::{
    Account, AccountId, AccountPermission, AccountStatus, AccountTransaction, Bank, EnrollAccountRequest, ObjectId,
    RemoveAccountResponse,
};

use crate::app::Dashboard;
use crate::cards::POLL_EVERY;
use crate::error::{CommandError, codes};
use crate::views::SecurePage;

impl Dashboard {
    pub async fn banks(&self) -> Result<Vec<Bank>, CommandError> {
        Ok(self.client().await?.banks().await?)
    }

    /// Starts linking an account at `bank` (`POST /account`); the caller opens its `url`.
    pub async fn link_account(&self, bank: &str) -> Result<SecurePage, CommandError> {
        let bank = bank.trim();
        if bank.is_empty() {
            return Err(CommandError::invalid_input("bank", "choose a bank"));
        }
        let created = self.client().await?.enroll_account(&EnrollAccountRequest::at(bank)).await?;
        self.check_own_url(&created.url).await?;
        Ok(SecurePage {
            id: ObjectId(created.account_id.get()),
            url: created.url,
            expires_at: created.expires_at,
            opened: false,
            open_problem: None,
            qr_code: Vec::new(),
        })
    }

    /// Opens a linked account's renewal (`POST /account/{id}/reauth`): the bank's pages in
    /// update mode, for the person to consent again; the caller opens its `url`. The account
    /// keeps its id, so the app follows it as before.
    pub async fn renew_account(&self, account_id: AccountId) -> Result<SecurePage, CommandError> {
        let renewal = self.client().await?.reauth_account(account_id, None).await?;
        self.check_own_url(&renewal.url).await?;
        Ok(SecurePage {
            id: ObjectId(renewal.account_id.get()),
            url: renewal.url,
            expires_at: renewal.expires_at,
            opened: false,
            open_problem: None,
            qr_code: Vec::new(),
        })
    }

    /// Fetches what is new at the bank for a linked account; the account as it is then.
    pub async fn refresh_account(&self, account_id: AccountId) -> Result<Account, CommandError> {
        Ok(self.client().await?.refresh_account(account_id).await?)
    }

    /// The caller's accounts, newest first.
    pub async fn accounts(&self) -> Result<Vec<Account>, CommandError> {
        let mut accounts = self.client().await?.accounts().await?;
        accounts.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.account_id.cmp(&a.account_id)));
        Ok(accounts)
    }

    /// Removes a bank account: the bank's access is revoked and the account erased.
    pub async fn remove_account(&self, account_id: AccountId) -> Result<RemoveAccountResponse, CommandError> {
        Ok(self.client().await?.remove_account(account_id).await?)
    }

    /// Asks for the account every [`POLL_EVERY`] until it is no longer pending (linked, failed
    /// or expired), handing every answer to `on_update` (which returns `false` to stop).
    pub async fn wait_for_account(
        &self,
        account_id: AccountId,
        mut on_update: impl FnMut(&Account) -> bool,
    ) -> Result<Account, CommandError> {
        let client = self.client().await?;
        loop {
            let account = client.account(account_id).await?;
            if !on_update(&account) {
                return Err(CommandError::new(codes::CANCELLED, "stopped waiting for the bank"));
            }
            if account.status != AccountStatus::Pending {
                return Ok(account);
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
    }

    /// A linked account's transactions (the 90 days before linking), when `transactions` was
    /// granted; otherwise the service's refusal says why.
    pub async fn account_transactions(&self, account_id: AccountId) -> Result<Vec<AccountTransaction>, CommandError> {
        let client = self.client().await?;
        let account = client.account(account_id).await?;
        if account.status == AccountStatus::Linked && !account.permissions.contains(&AccountPermission::Transactions) {
            return Err(CommandError::new(
                subscriber_protocol::codes::FORBIDDEN,
                "the account holder did not share transactions with this link",
            ));
        }
        Ok(client.account_transactions(account_id).limit(5000).collect_all().await?)
    }
}
