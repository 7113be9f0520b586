//! Events for server integrations: the event log and incremental sync of a card's transactions.

use subscriber_protocol::rules::{Violations, webhooks as rules};
use subscriber_protocol::{
    CardId, CreateWebhookRequest, Event, EventPage, EventQuery, LoggedRequest, LoggedRequestDetail, PageQuery,
    RecoverWebhookRequest, RequestLogPage, RequestQuery, TransactionSync, UpdateWebhookRequest, Webhook,
    WebhookDeleted, WebhookDeliveryPage, WebhookId, WebhookList, WebhookQueued, WebhookRecovered,
};

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::paging::Paged;
use crate::routes;
use crate::transport::Call;
use crate::validate;

/// The most changes one sync call returns.
pub const MAX_SYNC_COUNT: u32 = 500;

impl Client {
    /// `GET /subscriber/requests`: the caller's last 100 API requests, newest first.
    pub async fn recent_requests(&self) -> Result<Vec<LoggedRequest>> {
        let page: RequestLogPage = self.inner.call(Call::new(&routes::REQUESTS, "/subscriber/requests")).await?;
        Ok(page.requests)
    }

    /// `GET /subscriber/requests`: the caller's request history (14 days), newest first:
    /// `.await` one page, `.stream()` them all, or `.export()` them with their bodies. Filters:
    /// `.status("4xx")`, `.route("/card/{card_id}")`, `.object_id("cardId:12")`, `.request_id(…)`,
    /// `.from(…)`, `.to(…)`.
    pub fn requests(&self) -> Paged<RequestQuery, RequestLogPage> {
        Paged::new(self.clone(), &routes::REQUESTS, "/subscriber/requests".to_owned(), RequestQuery::default())
    }

    /// `GET /subscriber/requests/{request_id}`: one request of the caller's history with its
    /// (masked) bodies.
    pub async fn request(&self, request_id: &str) -> Result<LoggedRequestDetail> {
        if request_id.is_empty() || request_id.len() > 200 || !request_id.bytes().all(|byte| byte.is_ascii_graphic()) {
            return Err(Error::invalid("requestId", "must be a request id (X-Request-Id)"));
        }
        let path = format!("/subscriber/requests/{}", utf8_percent_encode(request_id, NON_ALPHANUMERIC));
        self.inner.call(Call::new(&routes::REQUEST, path)).await
    }

    /// `GET /events`: the caller's events of the last 30 days, newest first: `.await` one page,
    /// or `.stream()` them all. Filters: `.event_type(EventType::TransactionCreated)` (or its string), `.since(date)`.
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
        card_id: CardId,
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

impl Client {
    /// `POST /webhooks`: adds an endpoint for these event types (`["*"]` for all). The answer's
    /// `secret` is shown only here: keep it for [`crate::webhooks::verify`].
    pub async fn create_webhook(&self, request: &CreateWebhookRequest) -> Result<Webhook> {
        let mut violations = Violations::new();
        rules::url(&mut violations, &request.url);
        rules::events(&mut violations, &request.events);
        if let Some(description) = &request.description {
            rules::description(&mut violations, description);
        }
        refuse(violations)?;
        self.inner.call(Call::new(&routes::CREATE_WEBHOOK, "/webhooks").json(request)?).await
    }

    /// `GET /webhooks`: the caller's endpoints (without secrets).
    pub async fn webhooks(&self) -> Result<Vec<Webhook>> {
        let list: WebhookList = self.inner.call(Call::new(&routes::WEBHOOKS, "/webhooks")).await?;
        Ok(list.webhooks)
    }

    /// `GET /webhooks/{webhook_id}`.
    pub async fn webhook(&self, webhook_id: WebhookId) -> Result<Webhook> {
        validate::positive_id("webhookId", webhook_id)?;
        self.inner.call(Call::new(&routes::WEBHOOK, format!("/webhooks/{webhook_id}"))).await
    }

    /// `PATCH /webhooks/{webhook_id}`: changes what is set (URL, events, description, enabled).
    pub async fn update_webhook(&self, webhook_id: WebhookId, change: &UpdateWebhookRequest) -> Result<Webhook> {
        validate::positive_id("webhookId", webhook_id)?;
        let mut violations = Violations::new();
        if let Some(url) = &change.url {
            rules::url(&mut violations, url);
        }
        if let Some(events) = &change.events {
            rules::events(&mut violations, events);
        }
        if let Some(description) = &change.description {
            rules::description(&mut violations, description);
        }
        refuse(violations)?;
        self.inner.call(Call::new(&routes::UPDATE_WEBHOOK, format!("/webhooks/{webhook_id}")).json(change)?).await
    }

    /// `DELETE /webhooks/{webhook_id}`: what was queued for it is not sent.
    pub async fn delete_webhook(&self, webhook_id: WebhookId) -> Result<WebhookDeleted> {
        validate::positive_id("webhookId", webhook_id)?;
        self.inner.call(Call::new(&routes::DELETE_WEBHOOK, format!("/webhooks/{webhook_id}"))).await
    }

    /// `POST /webhooks/{webhook_id}/secret/rotate`: a new secret (shown once); the previous one
    /// keeps signing beside it for 24 hours.
    pub async fn rotate_webhook_secret(&self, webhook_id: WebhookId) -> Result<Webhook> {
        validate::positive_id("webhookId", webhook_id)?;
        let path = format!("/webhooks/{webhook_id}/secret/rotate");
        self.inner.call(Call::new(&routes::ROTATE_WEBHOOK_SECRET, path)).await
    }

    /// `POST /webhooks/{webhook_id}/test`: queues a `webhook.test` event for this endpoint.
    pub async fn test_webhook(&self, webhook_id: WebhookId) -> Result<WebhookQueued> {
        validate::positive_id("webhookId", webhook_id)?;
        self.inner.call(Call::new(&routes::TEST_WEBHOOK, format!("/webhooks/{webhook_id}/test"))).await
    }

    /// `GET /webhooks/{webhook_id}/deliveries`: every attempt, newest first.
    pub fn webhook_deliveries(&self, webhook_id: WebhookId) -> Paged<PageQuery, WebhookDeliveryPage> {
        Paged::new(
            self.clone(),
            &routes::WEBHOOK_DELIVERIES,
            format!("/webhooks/{webhook_id}/deliveries"),
            PageQuery::default(),
        )
    }

    /// `POST /webhooks/{webhook_id}/deliveries/{event_id}/resend`: sends the event again.
    pub async fn resend_webhook_delivery(&self, webhook_id: WebhookId, event_id: &str) -> Result<WebhookQueued> {
        validate::positive_id("webhookId", webhook_id)?;
        event_path_id(event_id)?;
        let path = format!("/webhooks/{webhook_id}/deliveries/{event_id}/resend");
        self.inner.call(Call::new(&routes::RESEND_WEBHOOK_DELIVERY, path)).await
    }

    /// `POST /webhooks/{webhook_id}/recover`: queues again every delivery to the endpoint that
    /// failed for good since `since`.
    pub async fn recover_webhook_deliveries(
        &self,
        webhook_id: WebhookId,
        since: chrono::DateTime<chrono::Utc>,
    ) -> Result<WebhookRecovered> {
        validate::positive_id("webhookId", webhook_id)?;
        let request = RecoverWebhookRequest { since: since.to_rfc3339_opts(chrono::SecondsFormat::Millis, true) };
        let path = format!("/webhooks/{webhook_id}/recover");
        self.inner.call(Call::new(&routes::RECOVER_WEBHOOK_DELIVERIES, path).json(&request)?).await
    }
}

/// The first rule a request breaks, as the error the client returns.
fn refuse(violations: Violations) -> Result<()> {
    match violations.details().first() {
        Some(first) => Err(Error::invalid(&first.field, first.message.clone())),
        None => Ok(()),
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
