//! What the desktop tells a subscriber whose window is in the background: a sale at their
//! merchant's locations, a purchase on an enrolled card, a webhook endpoint failing or disabled,
//! a person verified or locked. Each kind can be switched off in the settings. The app asks
//! [`Dashboard::notices`] now and then while its window is not focused; each notice names the
//! screen a click opens ([`crate::links`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use subscriber_protocol::{
    CardId, DeliveryStatus, Event, EventData, EventType, TransactionEventData, WebhookId, WebhookStatus,
};

use crate::app::Dashboard;
use crate::error::CommandError;

/// How many events one look reads (newest first); more since the last look are not announced.
const EVENTS_PER_LOOK: u32 = 50;

/// Which notices the subscriber wants; every kind is on until switched off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase", default)]
pub struct NotificationSettings {
    /// A sale at one of the merchant's locations.
    pub sales: bool,
    /// A purchase on one of the subscriber's cards.
    pub purchases: bool,
    /// A webhook endpoint whose deliveries fail, or that the service disabled.
    pub webhooks: bool,
    /// A person verified, or locked after failed attempts.
    pub identity: bool,
}

impl Default for NotificationSettings {
    fn default() -> Self {
        Self { sales: true, purchases: true, webhooks: true, identity: true }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum NoticeKind {
    Sale,
    Purchase,
    Webhook,
    Identity,
}

/// One notification to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    pub kind: NoticeKind,
    /// Plain text (notification servers show a summary as it is).
    pub title: String,
    /// Plain text; shown through [`Notice::markup_body`].
    pub body: String,
    /// The screen a click opens (`card/12`).
    pub route: String,
}

impl Notice {
    /// The body as a notification server must receive it: freedesktop servers read a body as
    /// markup (`<b>`, `<a href>`, `<img src>`), and a body carries text from the service that
    /// someone else chose (another tenant's merchant name, an endpoint's URL).
    pub fn markup_body(&self) -> String {
        subscriber_protocol::markup::escaped(&self.body)
    }
}

/// Where the last look left off, for one session (service and e-mail).
#[derive(Debug, Default)]
pub(crate) struct NoticeWatch {
    session: String,
    /// The newest event seen; `None` before the first look.
    last_event: Option<u64>,
    endpoints: HashMap<WebhookId, EndpointSeen>,
}

#[derive(Debug, Clone, Copy)]
struct EndpointSeen {
    enabled: bool,
    failing: bool,
}

fn event_number(id: &str) -> Option<u64> {
    id.strip_prefix("evt_")?.parse().ok()
}

fn money(amount: f64, currency: &str) -> String {
    format!("{amount:.2} {currency}")
}

/// The notice an event makes, if the settings want it: a new purchase (the caller's card) or
/// sale (the caller's merchant), a person verified or locked. `last_fours` names cards.
fn notice_of(event: &Event, settings: &NotificationSettings, last_fours: &HashMap<CardId, u16>) -> Option<Notice> {
    match &event.payload {
        EventData::TransactionCreated(TransactionEventData::Merchant(sale)) if settings.sales => {
            let transaction = &sale.transaction;
            let place = format!("{} {}", transaction.street_no, transaction.street);
            Some(Notice {
                kind: NoticeKind::Sale,
                title: format!("A sale at {}", place.trim()),
                body: format!(
                    "{} with •••• {:04}, {}",
                    money(transaction.amount, &transaction.currency),
                    transaction.last_four,
                    transaction.city
                ),
                route: format!("merchant/location/{}", transaction.location_id),
            })
        }
        EventData::TransactionCreated(TransactionEventData::Card(purchase)) if settings.purchases => {
            let transaction = &purchase.transaction;
            let four = last_fours.get(&purchase.card_id).map(|four| format!(" •••• {four:04}")).unwrap_or_default();
            let paid = money(transaction.amount, &transaction.currency);
            let at = &transaction.merchant_name;
            Some(Notice {
                kind: NoticeKind::Purchase,
                title: format!("A purchase on your card{four}"),
                body: if at.is_empty() { paid } else { format!("{paid} at {at}") },
                route: format!("card/{}", purchase.card_id),
            })
        }
        EventData::PersonVerified(person) | EventData::PersonLocked(person) if settings.identity => {
            let verified = event.event_type() == EventType::PersonVerified;
            let person = person.person_id;
            Some(Notice {
                kind: NoticeKind::Identity,
                title: if verified { "Identity verified" } else { "Identity verification locked" }.to_owned(),
                body: if verified {
                    format!("Person {person} answered the questions.")
                } else {
                    format!("Person {person} failed three times and is locked for 24 hours.")
                },
                route: format!("person/{person}"),
            })
        }
        _ => None,
    }
}

impl Dashboard {
    pub async fn notification_settings(&self) -> NotificationSettings {
        self.state.lock().await.settings.notifications
    }

    pub async fn set_notification_settings(&self, settings: NotificationSettings) -> Result<(), CommandError> {
        let mut state = self.state.lock().await;
        state.settings.notifications = settings;
        state.settings.save(self.data_dir())
    }

    /// Forgets where the last look left off: the next look notes where things stand (the window
    /// was in front meanwhile: what happened was on screen).
    pub async fn restart_notices(&self) {
        self.notice_watch.lock().await.last_event = None;
    }

    /// What happened since the last look that the settings want told. The first look of a
    /// session only notes where things stand: nothing that happened before is announced.
    pub async fn notices(&self) -> Result<Vec<Notice>, CommandError> {
        let status = self.status().await;
        let (Some(connection), Some(session)) = (status.connection, status.session) else {
            return Ok(Vec::new());
        };
        let settings = self.notification_settings().await;
        let client = self.client().await?;
        let mut watch = self.notice_watch.lock().await;
        let key = format!("{} {}", connection.base_url, session.email);
        if watch.session != key {
            *watch = NoticeWatch { session: key, ..NoticeWatch::default() };
        }
        let first_look = watch.last_event.is_none();
        let mut notices = Vec::new();

        let events = client.events().limit(EVENTS_PER_LOOK).await?.events;
        let newest = events.iter().filter_map(|event| event_number(&event.id)).max();
        let fresh: Vec<_> = match watch.last_event {
            None => Vec::new(),
            Some(last) => events
                .iter()
                .rev()
                .filter(|event| event_number(&event.id).is_some_and(|number| number > last))
                .collect(),
        };
        watch.last_event = newest.max(watch.last_event).or(Some(0));
        if !fresh.is_empty() {
            let needs_cards = fresh.iter().any(|event| event.event_type() == EventType::TransactionCreated);
            let last_fours: HashMap<CardId, u16> = if needs_cards {
                self.cards().await?.into_iter().map(|card| (card.card_id, card.last_four)).collect()
            } else {
                HashMap::new()
            };
            notices.extend(fresh.into_iter().filter_map(|event| notice_of(event, &settings, &last_fours)));
        }

        if settings.webhooks {
            for endpoint in client.webhooks().await? {
                let enabled = endpoint.status == WebhookStatus::Enabled;
                let failing = enabled
                    && client
                        .webhook_deliveries(endpoint.webhook_id)
                        .limit(1)
                        .await?
                        .deliveries
                        .first()
                        .is_some_and(|delivery| delivery.status == DeliveryStatus::Failed);
                let seen = watch.endpoints.insert(endpoint.webhook_id, EndpointSeen { enabled, failing });
                let route = format!("developers/webhook/{}", endpoint.webhook_id);
                match seen {
                    Some(before) if before.enabled && !enabled && endpoint.disabled_reason.is_some() => {
                        notices.push(Notice {
                            kind: NoticeKind::Webhook,
                            title: "Webhook endpoint disabled".to_owned(),
                            body: format!("{}: {}", endpoint.url, endpoint.disabled_reason.unwrap_or_default()),
                            route,
                        });
                    }
                    Some(before) if !before.failing && failing && !first_look => {
                        notices.push(Notice {
                            kind: NoticeKind::Webhook,
                            title: "Webhook deliveries are failing".to_owned(),
                            body: format!("{} does not answer 2xx; the service retries.", endpoint.url),
                            route,
                        });
                    }
                    None if failing && !first_look => {
                        notices.push(Notice {
                            kind: NoticeKind::Webhook,
                            title: "Webhook deliveries are failing".to_owned(),
                            body: format!("{} does not answer 2xx; the service retries.", endpoint.url),
                            route,
                        });
                    }
                    _ => {}
                }
            }
        }
        Ok(notices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subscriber_protocol::{LocationId, MerchantId, PersonId, TransactionId};

    fn event(payload: EventData) -> Event {
        let created_at = chrono::DateTime::from_timestamp(1_795_400_000, 0).unwrap_or_default();
        Event { id: "evt_9".to_owned(), created_at, payload, sandbox: None }
    }

    fn purchase(amount: f64, merchant_name: &str) -> EventData {
        let transaction = subscriber_protocol::CardTransaction {
            transaction_id: TransactionId(4),
            created_at: chrono::DateTime::from_timestamp(1_795_400_000, 0).unwrap_or_default(),
            pending: true,
            amount,
            currency: "USD".to_owned(),
            merchant_name: merchant_name.to_owned(),
            street: String::new(),
            street_no: String::new(),
            city: String::new(),
            country: "USA".to_owned(),
            zip: String::new(),
            category: String::new(),
            descriptor: String::new(),
            card_id: CardId(2),
            merchant_id: None,
            location_id: None,
            enrichment: Default::default(),
        };
        EventData::TransactionCreated(TransactionEventData::Card(subscriber_protocol::CardTransactionEventData {
            transaction_id: TransactionId(4),
            card_id: CardId(2),
            merchant_id: None,
            transaction,
        }))
    }

    fn sale() -> EventData {
        let transaction = subscriber_protocol::MerchantTransaction {
            transaction_id: TransactionId(5),
            amount: 12.5,
            currency: "USD".to_owned(),
            created_at: chrono::DateTime::from_timestamp(1_795_400_000, 0).unwrap_or_default(),
            pending: true,
            location_id: LocationId(3),
            street: "Valencia St".to_owned(),
            street_no: "1022".to_owned(),
            city: "San Francisco".to_owned(),
            country: "USA".to_owned(),
            zip: "94110".to_owned(),
            last_four: 5556,
        };
        EventData::TransactionCreated(TransactionEventData::Merchant(
            subscriber_protocol::MerchantTransactionEventData {
                transaction_id: TransactionId(5),
                merchant_id: Some(MerchantId(1)),
                transaction,
            },
        ))
    }

    #[test]
    fn a_purchase_names_the_card_and_opens_it() {
        let purchase = event(purchase(4.2, "Blue Heron"));
        let notice = notice_of(&purchase, &NotificationSettings::default(), &HashMap::from([(CardId(2), 4242)]));
        assert_eq!(
            notice,
            Some(Notice {
                kind: NoticeKind::Purchase,
                title: "A purchase on your card •••• 4242".to_owned(),
                body: "4.20 USD at Blue Heron".to_owned(),
                route: "card/2".to_owned(),
            })
        );
        let off = NotificationSettings { purchases: false, ..NotificationSettings::default() };
        assert_eq!(notice_of(&purchase, &off, &HashMap::new()), None);
    }

    #[test]
    fn a_sale_names_the_location_and_opens_it() {
        let sale = event(sale());
        let notice = notice_of(&sale, &NotificationSettings::default(), &HashMap::new()).expect("a notice");
        assert_eq!(notice.kind, NoticeKind::Sale);
        assert_eq!(notice.title, "A sale at 1022 Valencia St");
        assert_eq!(notice.body, "12.50 USD with •••• 5556, San Francisco");
        assert_eq!(notice.route, "merchant/location/3");
        let off = NotificationSettings { sales: false, ..NotificationSettings::default() };
        assert_eq!(notice_of(&sale, &off, &HashMap::new()), None, "a sale to another's card is no purchase");
    }

    #[test]
    fn markup_in_a_body_is_shown_as_text() {
        let hostile = r#"Caf<b>é</b> & <a href="https://evil.example">pay</a> <img src='x'>"#;
        let purchase = event(purchase(1.0, hostile));
        let notice = notice_of(&purchase, &NotificationSettings::default(), &HashMap::new()).expect("a notice");
        assert_eq!(notice.body, format!("1.00 USD at {hostile}"), "the notice itself keeps the text");
        assert_eq!(
            notice.markup_body(),
            "1.00 USD at Caf&lt;b&gt;é&lt;/b&gt; &amp; &lt;a href=&quot;https://evil.example&quot;&gt;pay&lt;/a&gt; \
             &lt;img src=&#39;x&#39;&gt;"
        );
    }

    #[test]
    fn identity_outcomes_and_nothing_else() {
        let verified = event(EventData::PersonVerified(subscriber_protocol::PersonEventData {
            person_id: PersonId(7),
            status: subscriber_protocol::PersonStatus::Verified,
            locked_until: None,
            client_user_id: None,
            metadata: subscriber_protocol::Metadata::new(),
        }));
        assert_eq!(
            notice_of(&verified, &NotificationSettings::default(), &HashMap::new()).map(|notice| notice.title),
            Some("Identity verified".to_owned())
        );
        let off = NotificationSettings { identity: false, ..NotificationSettings::default() };
        assert_eq!(notice_of(&verified, &off, &HashMap::new()), None);
        let test = event(EventData::WebhookTest(subscriber_protocol::WebhookTestData {
            webhook_id: WebhookId(1),
            message: "test".to_owned(),
        }));
        assert_eq!(notice_of(&test, &NotificationSettings::default(), &HashMap::new()), None);
    }
}
