//! The Developers area: webhook endpoints (add, change, rotate, test, delete), their delivery
//! attempts with a resend, and the event log.

use subscriber_protocol::rules::{Violations, webhooks as rules};
use subscriber_protocol::{
    CreateWebhookRequest, Event, LoggedRequest, UpdateWebhookRequest, Webhook, WebhookDeleted, WebhookDelivery,
    WebhookId, WebhookQueued, WebhookRecovered,
};

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::views::FieldErrors;

/// Attempts and events the screens show (the newest).
const SHOWN: u32 = 200;

impl Dashboard {
    /// The endpoints, as added (secrets are never shown again).
    pub async fn webhooks(&self) -> Result<Vec<Webhook>, CommandError> {
        Ok(self.client().await?.webhooks().await?)
    }

    /// The endpoint form checked by the service's own rules (`url`, `events`, `description`).
    pub fn check_webhook(&self, request: &CreateWebhookRequest) -> FieldErrors {
        let mut violations = Violations::new();
        rules::url(&mut violations, &request.url);
        rules::events(&mut violations, &request.events);
        if let Some(description) = &request.description {
            rules::description(&mut violations, description);
        }
        violations.into_details()
    }

    /// Adds an endpoint; the answer holds its secret, shown once.
    pub async fn create_webhook(&self, request: CreateWebhookRequest) -> Result<Webhook, CommandError> {
        Ok(self.client().await?.create_webhook(&request).await?)
    }

    pub async fn update_webhook(
        &self,
        webhook_id: WebhookId,
        change: UpdateWebhookRequest,
    ) -> Result<Webhook, CommandError> {
        Ok(self.client().await?.update_webhook(webhook_id, &change).await?)
    }

    pub async fn delete_webhook(&self, webhook_id: WebhookId) -> Result<WebhookDeleted, CommandError> {
        Ok(self.client().await?.delete_webhook(webhook_id).await?)
    }

    /// A new secret, shown once; the previous one signs beside it for 24 hours.
    pub async fn rotate_webhook_secret(&self, webhook_id: WebhookId) -> Result<Webhook, CommandError> {
        Ok(self.client().await?.rotate_webhook_secret(webhook_id).await?)
    }

    pub async fn test_webhook(&self, webhook_id: WebhookId) -> Result<WebhookQueued, CommandError> {
        Ok(self.client().await?.test_webhook(webhook_id).await?)
    }

    /// The endpoint's newest delivery attempts, newest first.
    pub async fn webhook_deliveries(&self, webhook_id: WebhookId) -> Result<Vec<WebhookDelivery>, CommandError> {
        Ok(self.client().await?.webhook_deliveries(webhook_id).limit(SHOWN).await?.deliveries)
    }

    pub async fn resend_webhook_delivery(
        &self,
        webhook_id: WebhookId,
        event_id: String,
    ) -> Result<WebhookQueued, CommandError> {
        Ok(self.client().await?.resend_webhook_delivery(webhook_id, &event_id).await?)
    }

    /// One endpoint with its delivery queue (length, next attempt, last error).
    pub async fn webhook(&self, webhook_id: WebhookId) -> Result<Webhook, CommandError> {
        Ok(self.client().await?.webhook(webhook_id).await?)
    }

    /// Queues again every delivery to the endpoint that failed for good since `since` (RFC 3339).
    pub async fn recover_webhook_deliveries(
        &self,
        webhook_id: WebhookId,
        since: String,
    ) -> Result<WebhookRecovered, CommandError> {
        let since = chrono::DateTime::parse_from_rfc3339(&since)
            .map_err(|_| CommandError::invalid_input("since", "is not a time"))?
            .with_timezone(&chrono::Utc);
        Ok(self.client().await?.recover_webhook_deliveries(webhook_id, since).await?)
    }

    /// The subscriber's last API requests (of every client it has), newest first.
    pub async fn recent_requests(&self) -> Result<Vec<LoggedRequest>, CommandError> {
        Ok(self.client().await?.recent_requests().await?)
    }

    /// The newest events (of one type, or all), newest first.
    /// Sends an event of `event_type` now (sandbox only): through the log and the webhooks,
    /// marked as the sandbox's.
    pub async fn send_sandbox_event(&self, event_type: String) -> Result<Event, CommandError> {
        let Some(typed) = subscriber_client::events::EventType::parse(event_type.trim()) else {
            return Err(CommandError::invalid_input("eventType", "is not an event type of the catalogue"));
        };
        Ok(self.client().await?.send_sandbox_event(typed, None).await?)
    }

    pub async fn events(&self, event_type: Option<String>) -> Result<Vec<Event>, CommandError> {
        let client = self.client().await?;
        let mut events = client.events().limit(SHOWN);
        if let Some(event_type) = event_type.filter(|event_type| !event_type.is_empty()) {
            events = events.event_type(event_type);
        }
        Ok(events.await?.events)
    }
}
