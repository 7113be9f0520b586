//! Cards: enrollment (API and secure page), records, transactions, the real-time stream.

use subscriber_protocol::{
    CardId, CardList, CardRecord, CardSession, CardSessionCreated, CardSessionId, CardTransaction, CardTransactionPage,
    CardTransactionQuery, CreateCardSessionRequest, EnrollCardRequest, EnrollCardResponse, Metadata, RecurringStream,
    RecurringStreams, RemoveCardResponse, UpdateMetadataRequest,
};

use crate::client::Client;
use crate::error::Result;
use crate::paging::Paged;
use crate::routes;
use crate::sse::TransactionStream;
use crate::transport::Call;
use crate::validate;

impl Client {
    /// `POST /card`: enrolls a card. Checked first (16 digits, Luhn, names, month 1-12, expiry
    /// not past, three-letter country). In the sandbox only the test cards are accepted
    /// ([`sandbox_cards`](Self::sandbox_cards)); elsewhere cards go through
    /// [`create_card_session`](Self::create_card_session).
    pub async fn enroll_card(&self, card: &EnrollCardRequest) -> Result<EnrollCardResponse> {
        validate::card(card)?;
        validate::labels(card.client_user_id.as_deref(), card.metadata.as_ref())?;
        self.inner.call(Call::new(&routes::ENROLL_CARD, "/card").json(card)?).await
    }

    /// `POST /card/session`: a one-time secure page (15 minutes) where a person types the card.
    /// Open `url` in their browser, then poll [`card_session`](Self::card_session). With
    /// `return_url` (beginning with a registered return URL, see
    /// [`update_subscriber`](Self::update_subscriber)), the page ends with a link back to it
    /// carrying `sessionId` and `status`. The card enrolled there takes `client_user_id` and
    /// `metadata`.
    pub async fn create_card_session(&self, request: &CreateCardSessionRequest) -> Result<CardSessionCreated> {
        validate::labels(request.client_user_id.as_deref(), request.metadata.as_ref())?;
        let call = Call::new(&routes::CREATE_CARD_SESSION, "/card/session").json(request)?;
        self.inner.call(call).await
    }

    /// `GET /card/session/{session_id}`: `pending`, `completed` (with the `card_id`) or `expired`.
    pub async fn card_session(&self, session_id: CardSessionId) -> Result<CardSession> {
        validate::positive_id("sessionId", session_id)?;
        self.inner.call(Call::new(&routes::CARD_SESSION, format!("/card/session/{session_id}"))).await
    }

    /// `GET /card`: the caller's cards.
    pub async fn cards(&self) -> Result<Vec<CardRecord>> {
        let list: CardList = self.inner.call(Call::new(&routes::CARDS, "/card")).await?;
        Ok(list.cards)
    }

    /// `GET /card/{card_id}`.
    pub async fn card(&self, card_id: CardId) -> Result<CardRecord> {
        validate::positive_id("cardId", card_id)?;
        self.inner.call(Call::new(&routes::CARD, format!("/card/{card_id}"))).await
    }

    /// `PATCH /card/{card_id}`: sets notes on the card (keys merge; a key with "" is removed).
    pub async fn update_card(&self, card_id: CardId, metadata: &Metadata) -> Result<CardRecord> {
        validate::positive_id("cardId", card_id)?;
        validate::metadata_patch(metadata)?;
        let body = UpdateMetadataRequest { metadata: metadata.clone() };
        self.inner.call(Call::new(&routes::UPDATE_CARD, format!("/card/{card_id}")).json(&body)?).await
    }

    /// `DELETE /card/{card_id}`: the card's data is erased; the same number enrolls again
    /// with a new id.
    pub async fn remove_card(&self, card_id: CardId) -> Result<RemoveCardResponse> {
        validate::positive_id("cardId", card_id)?;
        self.inner.call(Call::new(&routes::REMOVE_CARD, format!("/card/{card_id}"))).await
    }

    /// `GET /card/{card_id}/recurring`: the card's subscriptions, bills and memberships, the
    /// latest paid first.
    pub async fn card_recurring(&self, card_id: CardId) -> Result<Vec<RecurringStream>> {
        validate::positive_id("cardId", card_id)?;
        let streams: RecurringStreams =
            self.inner.call(Call::new(&routes::CARD_RECURRING, format!("/card/{card_id}/recurring"))).await?;
        Ok(streams.streams)
    }

    /// `GET /card/{card_id}/transactions`, newest first: `.await` one page, or `.stream()`
    /// every transaction. Filters: `.from(date)`, `.to(date)`, `.pending(bool)`, `.limit(n)`.
    pub fn card_transactions(&self, card_id: CardId) -> Paged<CardTransactionQuery, CardTransactionPage> {
        Paged::new(
            self.clone(),
            &routes::CARD_TRANSACTIONS,
            format!("/card/{card_id}/transactions"),
            CardTransactionQuery::default(),
        )
    }

    /// `GET /card/{card_id}/transactions/stream`: the card's point-of-sale transactions as they
    /// happen (a settling transaction comes again with `pending: false`). Reconnects by itself.
    pub fn card_transaction_stream(&self, card_id: CardId) -> TransactionStream<CardTransaction> {
        self.card_transaction_stream_after(card_id, None)
    }

    /// Like [`card_transaction_stream`](Self::card_transaction_stream), resuming after the event
    /// with this id (`Last-Event-ID`).
    pub fn card_transaction_stream_after(
        &self,
        card_id: CardId,
        last_event_id: Option<String>,
    ) -> TransactionStream<CardTransaction> {
        TransactionStream::open(
            self,
            &routes::CARD_TRANSACTION_STREAM,
            format!("/card/{card_id}/transactions/stream"),
            last_event_id,
        )
    }
}
