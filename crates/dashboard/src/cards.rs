//! Cards: the list, test-card enrollment (sandbox), the secure card-entry page, transactions
//! (loaded page by page with progress), CSV export and sandbox purchases.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use subscriber_client::{Page, Paged, Paging};
use subscriber_protocol::{
    CardId, CardRecord, CardSession, CardSessionId, CardSessionStatus, CardTransaction, ClockAdvanced,
    EnrollCardRequest, EnrollCardResponse, Environment, ObjectId, RecurringStream, RemoveCardResponse, SandboxCard,
    SandboxReset, SandboxRestored, SandboxReversal, SandboxSnapshot, SandboxSnapshotDeleted, SandboxTransactionRequest,
    SandboxTransactionResponse, SnapshotId, TransactionId,
};

use crate::app::Dashboard;
use crate::error::{CommandError, codes};
use crate::export::{self, Exports, Listed};
use crate::views::{Batch, ExportResult, SecurePage};

/// Rows of the first page: small, so the table shows something at once.
pub const FIRST_PAGE: u32 = 500;
/// Rows of the pages after it (the contract's maximum).
pub const PAGE_LIMIT: u32 = 5000;
/// How often a page opened in the browser is asked for its outcome.
pub const POLL_EVERY: Duration = Duration::from_millis(1500);

impl Dashboard {
    pub async fn cards(&self) -> Result<Vec<CardRecord>, CommandError> {
        Ok(self.client().await?.cards().await?)
    }

    /// A card's subscriptions and bills, with what is due next.
    pub async fn card_recurring(&self, card_id: CardId) -> Result<Vec<RecurringStream>, CommandError> {
        Ok(self.client().await?.card_recurring(card_id).await?)
    }

    /// The sandbox's test cards, for the enrollment form.
    pub async fn test_cards(&self) -> Result<Vec<SandboxCard>, CommandError> {
        Ok(self.client().await?.sandbox_cards().await?)
    }

    /// Enrolls a card through the API: the sandbox's test cards only (elsewhere the service
    /// answers `pan_not_accepted`, and the secure page is the way).
    pub async fn enroll_card(&self, card: EnrollCardRequest) -> Result<EnrollCardResponse, CommandError> {
        if self.environment().await? != Environment::Sandbox {
            return Err(CommandError::new(
                subscriber_protocol::codes::PAN_NOT_ACCEPTED,
                "outside the sandbox cards are enrolled on the service's secure page only",
            ));
        }
        Ok(self.client().await?.enroll_card(&card).await?)
    }

    /// Removes a card: the service erases it and its transactions.
    pub async fn remove_card(&self, card_id: CardId) -> Result<RemoveCardResponse, CommandError> {
        Ok(self.client().await?.remove_card(card_id).await?)
    }

    /// Starts a secure card-entry page (`POST /card/session`); the caller opens its `url`.
    pub async fn start_card_session(&self) -> Result<SecurePage, CommandError> {
        let created = self.client().await?.create_card_session(&Default::default()).await?;
        self.check_own_url(&created.url).await?;
        Ok(SecurePage {
            id: ObjectId(created.session_id.get()),
            url: created.url,
            expires_at: created.expires_at,
            opened: false,
            open_problem: None,
            qr_code: Vec::new(),
        })
    }

    /// Asks for the outcome of a card-entry page every [`POLL_EVERY`] until it is completed or
    /// expired, handing every answer to `on_update` (which returns `false` to stop waiting).
    pub async fn wait_for_card_session(
        &self,
        session_id: CardSessionId,
        mut on_update: impl FnMut(&CardSession) -> bool,
    ) -> Result<CardSession, CommandError> {
        let client = self.client().await?;
        loop {
            let session = client.card_session(session_id).await?;
            if !on_update(&session) {
                return Err(CommandError::new(codes::CANCELLED, "stopped waiting for the card"));
            }
            if session.status != CardSessionStatus::Pending {
                return Ok(session);
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
    }

    /// Every transaction of a card, newest first, handed to `on_batch` page by page so a long
    /// history shows progress; returns how many were read.
    pub async fn load_transactions(
        &self,
        card_id: CardId,
        on_batch: impl FnMut(Batch<CardTransaction>) -> bool,
    ) -> Result<u32, CommandError> {
        let client = self.client().await?;
        let rows = load_pages(|| client.card_transactions(card_id), on_batch).await?;
        let count = u32::try_from(rows.len()).unwrap_or(u32::MAX);
        self.exports.lock().cards.entry(card_id).or_default().replace(rows);
        Ok(count)
    }

    /// Keeps a live arrival for export.
    pub fn remember_transaction(&self, transaction: CardTransaction) {
        self.exports.lock().cards.entry(transaction.card_id).or_default().upsert(transaction);
    }

    /// Writes the listed transactions (as the table shows them, in its order) to `path`.
    pub fn export_csv(
        &self,
        card_id: CardId,
        transaction_ids: &[TransactionId],
        path: &Path,
    ) -> Result<ExportResult, CommandError> {
        let rows =
            self.exports.lock().cards.get(&card_id).map(|table| table.select(transaction_ids)).unwrap_or_default();
        export::write_csv(path, &rows)
    }

    /// A sandbox point-of-sale purchase on the card, now.
    pub async fn simulate_transaction(&self, card_id: CardId) -> Result<CardTransaction, CommandError> {
        let request = SandboxTransactionRequest { card_id: Some(card_id), ..Default::default() };
        Ok(self.simulate_purchase(request).await?.transaction)
    }

    /// A sandbox purchase as asked: by a card, at a location (of the caller's merchant or any).
    pub async fn simulate_purchase(
        &self,
        request: SandboxTransactionRequest,
    ) -> Result<SandboxTransactionResponse, CommandError> {
        Ok(self.client().await?.create_sandbox_transaction(&request).await?)
    }

    /// Settles a pending sandbox purchase now, at `amount` when given (a tip).
    pub async fn settle_transaction(
        &self,
        transaction_id: TransactionId,
        amount: Option<f64>,
    ) -> Result<CardTransaction, CommandError> {
        let client = self.client().await?;
        let settled = match amount {
            Some(amount) => client.settle_sandbox_transaction_at(transaction_id, amount).await?,
            None => client.settle_sandbox_transaction(transaction_id).await?,
        };
        Ok(settled.transaction)
    }

    /// Refunds `amount` of a settled sandbox purchase, all that is left of it when `None`.
    pub async fn refund_transaction(
        &self,
        transaction_id: TransactionId,
        amount: Option<f64>,
    ) -> Result<CardTransaction, CommandError> {
        Ok(self.client().await?.refund_sandbox_transaction(transaction_id, amount).await?.transaction)
    }

    /// Moves the account's sandbox clock `seconds` ahead.
    pub async fn advance_sandbox_clock(&self, seconds: i64) -> Result<ClockAdvanced, CommandError> {
        Ok(self.client().await?.advance_sandbox_clock(seconds).await?)
    }

    /// Deletes everything of the account's sandbox but the account; what the app keeps of the
    /// deleted cards' transactions (for export) goes too.
    pub async fn reset_sandbox(&self) -> Result<SandboxReset, CommandError> {
        let reset = self.client().await?.reset_sandbox().await?;
        self.forget_sandbox_rows();
        Ok(reset)
    }

    /// The account's sandbox snapshots, newest first.
    pub async fn sandbox_snapshots(&self) -> Result<Vec<SandboxSnapshot>, CommandError> {
        Ok(self.client().await?.sandbox_snapshots().await?)
    }

    /// A snapshot of the account's sandbox as it is now, under the person's `name`, to come back
    /// to later.
    pub async fn take_sandbox_snapshot(&self, name: String) -> Result<SandboxSnapshot, CommandError> {
        Ok(self.client().await?.take_sandbox_snapshot(&name).await?)
    }

    /// Puts the account's sandbox back as the snapshot held it: what was made since is gone, so
    /// what the app keeps of the transactions it had loaded (for export) goes too, as after a
    /// reset.
    pub async fn restore_sandbox_snapshot(&self, snapshot_id: SnapshotId) -> Result<SandboxRestored, CommandError> {
        let restored = self.client().await?.restore_sandbox_snapshot(snapshot_id).await?;
        self.forget_sandbox_rows();
        Ok(restored)
    }

    /// Deletes one snapshot; the sandbox itself stays as it is.
    pub async fn delete_sandbox_snapshot(
        &self,
        snapshot_id: SnapshotId,
    ) -> Result<SandboxSnapshotDeleted, CommandError> {
        Ok(self.client().await?.delete_sandbox_snapshot(snapshot_id).await?)
    }

    /// After the sandbox's data was replaced (a reset, a restore), the rows loaded before it, of
    /// the cards and of the merchant, describe what is no longer there: an export waits for the
    /// tables to load again.
    fn forget_sandbox_rows(&self) {
        *self.exports.lock() = Exports::default();
    }

    /// Reverses a pending sandbox purchase: it leaves the lists (the live list drops it).
    pub async fn reverse_transaction(&self, transaction_id: TransactionId) -> Result<SandboxReversal, CommandError> {
        Ok(self.client().await?.reverse_sandbox_transaction(transaction_id).await?)
    }
}

/// Reads a paged list to the end: a small first page, then the largest pages, each handed to
/// `on_batch` as it arrives. `request` makes the list's request afresh (with its filters).
pub(crate) async fn load_pages<Q, P>(
    request: impl Fn() -> Paged<Q, P>,
    mut on_batch: impl FnMut(Batch<P::Item>) -> bool,
) -> Result<Vec<P::Item>, CommandError>
where
    Q: Paging,
    P: Page,
    P::Item: Listed,
{
    let mut all: Vec<P::Item> = Vec::new();
    let first = request().limit(FIRST_PAGE).send().await?;
    let mut next = first.next_cursor().map(str::to_owned);
    let mut send = |rows: Vec<P::Item>, all: &mut Vec<P::Item>, done: bool| {
        all.extend(rows.iter().cloned());
        let loaded = u32::try_from(all.len()).unwrap_or(u32::MAX);
        on_batch(Batch { rows, loaded, done })
    };
    if !send(first.into_items(), &mut all, next.is_none()) {
        return Err(cancelled());
    }
    if let Some(cursor) = next.take() {
        let mut pages = std::pin::pin!(request().limit(PAGE_LIMIT).cursor(cursor).pages());
        let mut finished = false;
        while let Some(page) = pages.next().await {
            let page = page?;
            finished = page.next_cursor().is_none();
            if !send(page.into_items(), &mut all, finished) {
                return Err(cancelled());
            }
        }
        // The client stops at a cursor the service repeats: the list ends there too.
        if !finished && !send(Vec::new(), &mut all, true) {
            return Err(cancelled());
        }
    }
    Ok(all)
}

fn cancelled() -> CommandError {
    CommandError::new(codes::CANCELLED, "loading stopped")
}
