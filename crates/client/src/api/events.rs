//! Events for server integrations: the event log and incremental sync of a card's transactions.

use subscriber_protocol::{Event, EventPage, EventQuery, TransactionSync};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::paging::Paged;
use crate::routes;
use crate::transport::Call;
use crate::validate;

/// The most changes one sync call returns.
pub const MAX_SYNC_COUNT: u32 = 500;

impl Client {
    /// `GET /events`: the caller's events of the last 30 days, newest first: `.await` one page,
    /// or `.stream()` them all. Filters: `.event_type("transaction.created")`, `.since(date)`.
    pub fn events(&self) -> Paged<EventQuery, EventPage> {
        Paged::new(self.clone(), &routes::EVENTS, "/events".to_owned(), EventQuery::default())
    }

    /// `GET /events/{event_id}`: one of the caller's events (`evt_…`).
    pub async fn event(&self, event_id: &str) -> Result<Event> {
        event_path_id(event_id)?;
        self.inner.call(Call::new(&routes::EVENT, format!("/events/{event_id}"))).await
    }

    /// `GET /card/{card_id}/transactions/sync`: what changed since `cursor` (the whole history,
    /// in pages, from none). Call again with `next_cursor` while `has_more`; keep the last one.
    pub async fn sync_card_transactions(
        &self,
        card_id: i64,
        cursor: Option<&str>,
        count: Option<u32>,
    ) -> Result<TransactionSync> {
        validate::positive_id("cardId", card_id)?;
        if count.is_some_and(|count| !(1..=MAX_SYNC_COUNT).contains(&count)) {
            return Err(Error::invalid("count", format!("must be from 1 to {MAX_SYNC_COUNT}")));
        }
        #[derive(serde::Serialize)]
        struct Query<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            cursor: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            count: Option<u32>,
        }
        let call = Call::new(&routes::CARD_TRANSACTION_SYNC, format!("/card/{card_id}/transactions/sync"))
            .query(&Query { cursor, count })?;
        self.inner.call(call).await
    }
}

/// An event id as the service writes them: `evt_` and digits (nothing else goes in the path).
fn event_path_id(event_id: &str) -> Result<()> {
    let digits = event_id.strip_prefix("evt_").unwrap_or_default();
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(Error::invalid("eventId", "must be an event id (evt_ and digits)"));
    }
    Ok(())
}
