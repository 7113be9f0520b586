//! Sandbox helpers: test cards, point-of-sale transactions on demand, the right answers.

use subscriber_protocol::{
    Answer, ClockAdvanceRequest, ClockAdvanced, MAX_CLOCK_ADVANCE_SECONDS, PersonId, SandboxAnswers, SandboxCard,
    SandboxCardList, SandboxEventRequest, SandboxRefundRequest, SandboxReset, SandboxReversal, SandboxSettleRequest,
    SandboxTransactionRequest, SandboxTransactionResponse, SnapshotId, TransactionId,
};
use subscriber_protocol::{Event, EventType, ObjectId};
use subscriber_protocol::{
    SNAPSHOT_NAME_MAX, SandboxRestored, SandboxSnapshot, SandboxSnapshotDeleted, SandboxSnapshotList,
    SandboxSnapshotRequest,
};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::routes;
use crate::transport::Call;
use crate::validate;

impl Client {
    /// `GET /sandbox/cards`: the test cards the sandbox accepts (sandbox only).
    pub async fn sandbox_cards(&self) -> Result<Vec<SandboxCard>> {
        let list: SandboxCardList = self.inner.call(Call::new(&routes::SANDBOX_CARDS, "/sandbox/cards")).await?;
        Ok(list.cards)
    }

    /// `POST /sandbox/transactions`: a point-of-sale purchase now, seen by the card and the
    /// merchant (lists and streams). Every field is optional.
    pub async fn create_sandbox_transaction(
        &self,
        request: &SandboxTransactionRequest,
    ) -> Result<SandboxTransactionResponse> {
        if let Some(card_id) = request.card_id {
            validate::positive_id("cardId", card_id)?;
        }
        if let Some(location_id) = request.location_id {
            validate::positive_id("locationId", location_id)?;
        }
        if let Some(amount) = request.amount
            && !amount.is_finite()
        {
            return Err(Error::invalid("amount", "must be a number"));
        }
        self.inner.call(Call::new(&routes::SANDBOX_TRANSACTION, "/sandbox/transactions").json(request)?).await
    }

    /// `POST /sandbox/transactions/{transaction_id}/settle`: settles a pending purchase of the
    /// caller's cards or merchant now (lists and streams see the settlement). One settled
    /// already is answered the same way.
    pub async fn settle_sandbox_transaction(
        &self,
        transaction_id: TransactionId,
    ) -> Result<SandboxTransactionResponse> {
        validate::positive_id("transactionId", transaction_id)?;
        self.inner
            .call(Call::new(
                &routes::SETTLE_SANDBOX_TRANSACTION,
                format!("/sandbox/transactions/{transaction_id}/settle"),
            ))
            .await
    }

    /// `POST /sandbox/transactions/{transaction_id}/settle` with an amount: settles a pending
    /// purchase at `amount` (major units, the purchase's sign: a tip); sync reports it in
    /// `modified`. One settled already at that amount is answered the same way.
    pub async fn settle_sandbox_transaction_at(
        &self,
        transaction_id: TransactionId,
        amount: f64,
    ) -> Result<SandboxTransactionResponse> {
        validate::positive_id("transactionId", transaction_id)?;
        if !amount.is_finite() || amount == 0.0 {
            return Err(Error::invalid("amount", "must be a non-zero number"));
        }
        let call =
            Call::new(&routes::SETTLE_SANDBOX_TRANSACTION, format!("/sandbox/transactions/{transaction_id}/settle"))
                .json(&SandboxSettleRequest { amount: Some(amount) })?;
        self.inner.call(call).await
    }

    /// `POST /sandbox/transactions/{transaction_id}/refund`: refunds `amount` (major units,
    /// positive) of a settled purchase, all that is left of it when `None`. The refund is a new
    /// transaction whose `enrichment.refundOf` is the purchase.
    pub async fn refund_sandbox_transaction(
        &self,
        transaction_id: TransactionId,
        amount: Option<f64>,
    ) -> Result<SandboxTransactionResponse> {
        validate::positive_id("transactionId", transaction_id)?;
        if let Some(amount) = amount
            && (!amount.is_finite() || amount <= 0.0)
        {
            return Err(Error::invalid("amount", "must be a positive number"));
        }
        let call =
            Call::new(&routes::REFUND_SANDBOX_TRANSACTION, format!("/sandbox/transactions/{transaction_id}/refund"))
                .json(&SandboxRefundRequest { amount })?;
        self.inner.call(call).await
    }

    /// `POST /sandbox/transactions/{transaction_id}/reverse`: reverses a pending authorization:
    /// it leaves the lists, sync reports it in `removed`, each side gets `transaction.removed`.
    pub async fn reverse_sandbox_transaction(&self, transaction_id: TransactionId) -> Result<SandboxReversal> {
        validate::positive_id("transactionId", transaction_id)?;
        let path = format!("/sandbox/transactions/{transaction_id}/reverse");
        self.inner.call(Call::new(&routes::REVERSE_SANDBOX_TRANSACTION, path)).await
    }

    /// `POST /sandbox/events`: sends an event of `event_type` now, through the log and the
    /// webhooks, marked `sandbox: true`; about `object_id` when given (for a transaction
    /// event, one of the caller's transactions).
    pub async fn send_sandbox_event(&self, event_type: EventType, object_id: Option<ObjectId>) -> Result<Event> {
        if let Some(object_id) = object_id {
            validate::positive_id("objectId", object_id.get())?;
        }
        let request = SandboxEventRequest { event_type: event_type.as_str().to_owned(), object_id };
        self.inner.call(Call::new(&routes::SEND_SANDBOX_EVENT, "/sandbox/events").json(&request)?).await
    }

    /// `GET /sandbox/persons/{person_id}/answers`: the right answers to the questions last
    /// issued, in the shape [`verify_person`](Self::verify_person) takes.
    pub async fn sandbox_answers(&self, person_id: PersonId) -> Result<Vec<Answer>> {
        validate::positive_id("personId", person_id)?;
        let answers: SandboxAnswers = self
            .inner
            .call(Call::new(&routes::SANDBOX_ANSWERS, format!("/sandbox/persons/{person_id}/answers")))
            .await?;
        Ok(answers.answers)
    }

    /// `POST /sandbox/clock/advance`: moves the caller's sandbox clock `seconds` ahead (pending
    /// purchases settle, open pages and questions expire, as if that time had passed).
    pub async fn advance_sandbox_clock(&self, seconds: i64) -> Result<ClockAdvanced> {
        if !(1..=MAX_CLOCK_ADVANCE_SECONDS).contains(&seconds) {
            return Err(Error::invalid("seconds", format!("must be from 1 to {MAX_CLOCK_ADVANCE_SECONDS}")));
        }
        let call = Call::new(&routes::ADVANCE_SANDBOX_CLOCK, "/sandbox/clock/advance")
            .json(&ClockAdvanceRequest { seconds })?;
        self.inner.call(call).await
    }

    /// `POST /sandbox/reset`: deletes everything of the caller's but the account.
    pub async fn reset_sandbox(&self) -> Result<SandboxReset> {
        let call = Call::new(&routes::RESET_SANDBOX, "/sandbox/reset").json(&serde_json::json!({}))?;
        self.inner.call(call).await
    }

    /// `POST /sandbox/snapshots`: a snapshot of the caller's sandbox as it is now, to put back
    /// later (at most 20 kept).
    pub async fn take_sandbox_snapshot(&self, name: &str) -> Result<SandboxSnapshot> {
        validate::text("name", name, SNAPSHOT_NAME_MAX)?;
        let body = SandboxSnapshotRequest { name: name.to_owned() };
        let call = Call::new(&routes::TAKE_SANDBOX_SNAPSHOT, "/sandbox/snapshots").json(&body)?;
        self.inner.call(call).await
    }

    /// `GET /sandbox/snapshots`: the caller's snapshots, newest first.
    pub async fn sandbox_snapshots(&self) -> Result<Vec<SandboxSnapshot>> {
        let list: SandboxSnapshotList =
            self.inner.call(Call::new(&routes::SANDBOX_SNAPSHOTS, "/sandbox/snapshots")).await?;
        Ok(list.snapshots)
    }

    /// `POST /sandbox/snapshots/{snapshot_id}/restore`: the caller's sandbox put back as the
    /// snapshot held it (what was made since is gone; its open streams end).
    pub async fn restore_sandbox_snapshot(&self, snapshot_id: SnapshotId) -> Result<SandboxRestored> {
        validate::positive_id("snapshotId", snapshot_id)?;
        let path = format!("/sandbox/snapshots/{snapshot_id}/restore");
        let call = Call::new(&routes::RESTORE_SANDBOX_SNAPSHOT, path).json(&serde_json::json!({}))?;
        self.inner.call(call).await
    }

    /// `DELETE /sandbox/snapshots/{snapshot_id}`: forgets one snapshot.
    pub async fn delete_sandbox_snapshot(&self, snapshot_id: SnapshotId) -> Result<SandboxSnapshotDeleted> {
        validate::positive_id("snapshotId", snapshot_id)?;
        let path = format!("/sandbox/snapshots/{snapshot_id}");
        self.inner.call(Call::new(&routes::DELETE_SANDBOX_SNAPSHOT, path)).await
    }
}
