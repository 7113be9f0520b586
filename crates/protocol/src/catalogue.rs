//! The event catalogue: every event type with its payload, named once. An event is built as an
//! [`EventData`] variant (the only way the service emits one), and its `type` string, the list of
//! types ([`EVENT_TYPES`]), the TypeScript union and the OpenAPI schemas all come from here.

use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

use crate::{
    AccountId, CardId, CardSessionId, CardTransaction, LocationId, LocationUpdatedData, MerchantId,
    MerchantTransaction, PersonId, PersonStatus, TransactionId, WebhookId,
};

/// Declares the catalogue: `Variant = "type.name" (Payload)`, each with its documentation.
macro_rules! event_catalogue {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal ($payload:ident), )+) => {
        /// An event type, as an event's `type` names it and webhook endpoints subscribe to it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        /// (OpenAPI: `components.schemas.EventType`, written by the service's rules.)
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        pub enum EventType {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant, )+
        }

        impl EventType {
            /// Every type, in the catalogue's order.
            pub const ALL: &'static [EventType] = &[$(Self::$variant),+];

            /// The `type` string (`card.enrolled`, …).
            pub const fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $name,)+ }
            }

            /// The type a `type` string names.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($name => Some(Self::$variant),)+ _ => None }
            }

            /// The name of the payload's schema (OpenAPI `components.schemas`, TypeScript type).
            pub const fn payload_name(self) -> &'static str {
                match self { $(Self::$variant => stringify!($payload),)+ }
            }

            /// The name of the whole event's schema (`CardEnrolledEvent`, …).
            pub const fn event_schema_name(self) -> &'static str {
                match self { $(Self::$variant => concat!(stringify!($variant), "Event"),)+ }
            }

            /// What the type means, for documentation.
            pub const fn description(self) -> &'static str {
                match self { $(Self::$variant => concat!($($doc, "\n",)*),)+ }
            }
        }

        /// Every event type's `type` string, in the catalogue's order.
        pub const EVENT_TYPES: &[&str] = &[$($name),+];

        /// What happened, by type: the event's `type` and its `data`, as the wire writes them
        /// (`{"type": "card.enrolled", "data": {…}}`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        #[serde(tag = "type", content = "data")]
        pub enum EventData {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant($payload), )+
        }

        impl EventData {
            /// The event's type.
            pub const fn event_type(&self) -> EventType {
                match self { $(Self::$variant(_) => EventType::$variant,)+ }
            }

            /// The `data` alone, as JSON text (how the event log stores it).
            pub fn data_json(&self) -> serde_json::Result<String> {
                match self { $(Self::$variant(data) => serde_json::to_string(data),)+ }
            }

            /// An event of `event_type` from its `data` (JSON text, as stored).
            pub fn from_parts(event_type: EventType, data: &str) -> serde_json::Result<Self> {
                match event_type { $(EventType::$variant => serde_json::from_str(data).map(Self::$variant),)+ }
            }
        }

        #[cfg(feature = "openapi")]
        impl EventData {
            /// Every payload's schema and the schemas they refer to, for `components.schemas`.
            pub fn payload_schemas(
                schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>,
            ) {
                use utoipa::{PartialSchema, ToSchema};
                $(
                    schemas.push((<$payload as ToSchema>::name().into_owned(), <$payload as PartialSchema>::schema()));
                    <$payload as ToSchema>::schemas(schemas);
                )+
            }
        }
    };
}

event_catalogue! {
    /// A card was enrolled.
    CardEnrolled = "card.enrolled" (CardEnrolledData),
    /// A card was removed (`DELETE /card/{cardId}`): its data is erased, only its id is left.
    CardRemoved = "card.removed" (CardRemovedData),
    /// A point-of-sale transaction happened (pending).
    TransactionCreated = "transaction.created" (TransactionEventData),
    /// A transaction changed: it settled (no longer pending) or its amount changed.
    TransactionUpdated = "transaction.updated" (TransactionEventData),
    /// A pending authorization was reversed (the sandbox's `POST
    /// /sandbox/transactions/{transactionId}/reverse`): it left the lists, and sync reports its
    /// id in `removed`. Its earlier events went with it.
    TransactionRemoved = "transaction.removed" (TransactionRemovedData),
    /// A purchase was declined (the sandbox's `POST /sandbox/transactions` with `declined`):
    /// it never enters the lists.
    TransactionDeclined = "transaction.declined" (TransactionDeclinedData),
    /// A merchant location was added.
    MerchantLocationCreated = "merchant.location.created" (LocationCreatedData),
    /// A merchant location changed (`PATCH /merchant/location/{locationId}`): the location as it is now.
    MerchantLocationUpdated = "merchant.location.updated" (LocationUpdatedData),
    /// A merchant location was removed: discovery no longer finds it, its past sales keep their address.
    MerchantLocationRemoved = "merchant.location.removed" (LocationRemovedData),
    /// A bank account was linked (the person consented).
    AccountLinked = "account.linked" (AccountEventData),
    /// A bank link failed.
    AccountFailed = "account.failed" (AccountEventData),
    /// A linked account's consent runs out in seven days (`consentExpiresAt`): ask the person
    /// to renew it (`POST /account/{accountId}/reauth`). Sent once per consent.
    AccountConsentExpiring = "account.consent_expiring" (AccountEventData),
    /// The service fetched what is new at the bank for the account (`POST
    /// /account/{accountId}/refresh`).
    AccountRefreshed = "account.refreshed" (AccountEventData),
    /// A bank account was removed (`DELETE /account/{accountId}`): the bank token is revoked
    /// and the account's data erased.
    AccountRemoved = "account.removed" (AccountRemovedData),
    /// A person answered the identity questions and is verified.
    PersonVerified = "person.verified" (PersonEventData),
    /// A person is locked: wrong answers, or question sets left unanswered, three times.
    PersonLocked = "person.locked" (PersonEventData),
    /// A person was removed (`DELETE /persons/{personId}`): their answers and signals erased.
    PersonRemoved = "person.removed" (PersonRemovedData),
    /// A card-entry page was completed: the person enrolled a card (`cardId`, new or already
    /// enrolled).
    CardSessionCompleted = "card_session.completed" (CardSessionCompletedData),
    /// A card-entry page expired unused (its time ran out, or too many rejected submissions
    /// closed it); recorded once, when the session is next read or its page opened.
    CardSessionExpired = "card_session.expired" (CardSessionExpiredData),
    /// A test event sent to one endpoint (`POST /webhooks/{id}/test`).
    WebhookTest = "webhook.test" (WebhookTestData),
}

impl std::fmt::Display for EventType {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A type where a type string is asked for (`GET /events?type=`, an endpoint's `events`).
impl From<EventType> for String {
    fn from(event_type: EventType) -> Self {
        event_type.as_str().to_owned()
    }
}

/// The data of `card.enrolled`.
#[apply(with_labels!)]
#[apply(wire!)]
pub struct CardEnrolledData {
    /// The new card.
    pub card_id: CardId,
    /// The card number's last four digits.
    pub last_four: u16,
    /// The card's brand (`visa`, `mastercard`, …).
    pub brand: String,
}

/// The data of `card.removed`: the id alone (everything else of the card is erased).
#[apply(wire!)]
pub struct CardRemovedData {
    /// The removed card (ids are never given again).
    pub card_id: CardId,
}

/// The data of `transaction.created` and `transaction.updated`: the transaction as it was at
/// the event (pending when created, settled once updated), as the recipient's card list shows
/// it, else as its merchant's list does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
// The card's side carries the transaction's enrichment; an event is built once and moved
// whole, so the unequal sizes cost nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum TransactionEventData {
    /// Seen from the recipient's card.
    Card(CardTransactionEventData),
    /// Seen from the recipient's merchant.
    Merchant(MerchantTransactionEventData),
}

impl TransactionEventData {
    /// The transaction's id.
    pub fn transaction_id(&self) -> TransactionId {
        match self {
            Self::Card(card) => card.transaction_id,
            Self::Merchant(merchant) => merchant.transaction_id,
        }
    }
}

/// A transaction event of the recipient's card.
#[apply(wire!)]
pub struct CardTransactionEventData {
    /// The transaction.
    pub transaction_id: TransactionId,
    /// The recipient's card.
    pub card_id: CardId,
    /// The merchant, when it is enrolled; null otherwise.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub merchant_id: Option<MerchantId>,
    /// The transaction as the card's list shows it.
    pub transaction: CardTransaction,
}

/// A transaction event of the recipient's merchant.
#[apply(wire!)]
pub struct MerchantTransactionEventData {
    /// The transaction.
    pub transaction_id: TransactionId,
    /// The recipient's merchant.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub merchant_id: Option<MerchantId>,
    /// The transaction as the merchant's list shows it.
    pub transaction: MerchantTransaction,
}

/// The data of `merchant.location.created`: the location.
#[apply(wire!)]
pub struct LocationCreatedData {
    /// The merchant the location belongs to.
    pub merchant_id: MerchantId,
    /// The new location.
    pub location_id: LocationId,
    /// The street, without the number.
    pub street: String,
    /// The street number.
    pub street_no: String,
    /// The city.
    pub city: String,
    /// The postal code.
    pub zip: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    /// The subscriber's own notes (`{}` when none).
    #[serde(default)]
    pub metadata: crate::Metadata,
}

/// The data of `merchant.location.removed`: the id alone.
#[apply(wire!)]
pub struct LocationRemovedData {
    /// The removed location.
    pub location_id: LocationId,
}

/// The data of `account.linked`, `account.failed`, `account.consent_expiring` and
/// `account.refreshed`.
#[apply(with_labels!)]
#[apply(wire!)]
pub struct AccountEventData {
    /// The bank account.
    pub account_id: AccountId,
    /// Why the link failed (`account.failed` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reason: Option<String>,
    /// When the person's consent runs out (RFC 3339, UTC): with `account.linked`,
    /// `account.consent_expiring` and `account.refreshed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub consent_expires_at: Option<DateTime<Utc>>,
}

/// The data of `account.removed`: the id alone.
#[apply(wire!)]
pub struct AccountRemovedData {
    /// The removed bank account.
    pub account_id: AccountId,
}

/// The data of `transaction.removed`: the id, and the recipient's card or merchant it was on.
#[apply(wire!)]
pub struct TransactionRemovedData {
    /// The transaction that is gone (ids are never given again).
    pub transaction_id: TransactionId,
    /// The recipient's card it was on; null when the card is not the recipient's.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub card_id: Option<CardId>,
    /// The recipient's merchant it was at; null when the merchant is not the recipient's.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub merchant_id: Option<MerchantId>,
}

/// The data of `transaction.declined`: the attempt, as the recipient's card or merchant saw it.
#[apply(wire!)]
pub struct TransactionDeclinedData {
    /// The attempt's id (never in a list; ids are never given again).
    pub transaction_id: TransactionId,
    /// The card that tried to pay; null for a card nobody here enrolled.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub card_id: Option<CardId>,
    /// The recipient's merchant it was at; null when none of the recipient's.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub merchant_id: Option<MerchantId>,
    /// The merchant's location; null when none of the recipient's.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub location_id: Option<LocationId>,
    /// What was asked, in major units.
    pub amount: f64,
    /// ISO 4217.
    pub currency: String,
    /// Where it was tried, by the merchant's name.
    pub merchant_name: String,
    /// Why the issuer declined (`insufficient_funds`).
    pub reason: String,
    /// When it was tried (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
}

/// The data of `person.removed`: the id alone.
#[apply(wire!)]
pub struct PersonRemovedData {
    /// The removed person.
    pub person_id: PersonId,
}

/// The data of `person.verified` and `person.locked`.
#[apply(with_labels!)]
#[apply(wire!)]
pub struct PersonEventData {
    /// The person.
    pub person_id: PersonId,
    /// `verified` or `locked`.
    pub status: PersonStatus,
    /// Until when the person is locked (`person.locked` only; RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub locked_until: Option<DateTime<Utc>>,
}

/// The data of `card_session.completed`.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct CardSessionCompletedData {
    /// The card-entry session.
    pub session_id: CardSessionId,
    /// The card the person enrolled on the page.
    pub card_id: Option<CardId>,
}

/// The data of `card_session.expired`.
#[apply(wire!)]
pub struct CardSessionExpiredData {
    /// The card-entry session.
    pub session_id: CardSessionId,
}

/// The data of `webhook.test`.
#[apply(wire!)]
pub struct WebhookTestData {
    /// The endpoint tested.
    pub webhook_id: WebhookId,
    /// `A test event from Subscriber Data`.
    pub message: String,
}

/// The list of types as a value the dashboard can iterate (ts-rs writes types only): written
/// with the bindings (`make bindings` runs every `export_bindings` test).
#[cfg(all(test, feature = "ts"))]
mod bindings {
    use super::EventType;

    #[test]
    fn export_bindings_event_types() {
        let directory = std::env::var("TS_RS_EXPORT_DIR").unwrap_or_else(|_| "./bindings".to_owned());
        let names: Vec<String> =
            EventType::ALL.iter().map(|event_type| format!("\"{}\"", event_type.as_str())).collect();
        let text = format!(
            "// This file was generated by the event catalogue (crates/protocol/src/catalogue.rs). Do not edit this file manually.\n\
             import type {{ EventType }} from \"./EventType\";\n\n\
             /**\n * Every event type, in the catalogue's order.\n */\n\
             export const EVENT_TYPES: readonly EventType[] = [{}];\n",
            names.join(", ")
        );
        std::fs::create_dir_all(&directory).expect("the bindings directory");
        std::fs::write(std::path::Path::new(&directory).join("EventTypes.ts"), text).expect("EventTypes.ts written");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_string_is_the_wire_tag() {
        for event_type in EventType::ALL {
            let written = serde_json::to_value(event_type).expect("serializes");
            assert_eq!(written, event_type.as_str());
            assert_eq!(EventType::parse(event_type.as_str()), Some(*event_type));
        }
        assert_eq!(EVENT_TYPES.len(), EventType::ALL.len());
        assert_eq!(EventType::parse("card.deleted"), None);
    }

    #[test]
    fn an_event_is_its_type_and_data() {
        let event = EventData::AccountFailed(AccountEventData {
            consent_expires_at: None,
            account_id: AccountId(7),
            reason: Some("locked".into()),
            client_user_id: None,
            metadata: crate::Metadata::new(),
        });
        let written = serde_json::to_value(&event).expect("serializes");
        assert_eq!(
            written,
            serde_json::json!({"type": "account.failed",
                "data": {"accountId": 7, "reason": "locked", "clientUserId": null, "metadata": {}}})
        );
        let stored = event.data_json().expect("data");
        assert_eq!(EventData::from_parts(EventType::AccountFailed, &stored).expect("parses"), event);
        assert!(EventData::from_parts(EventType::CardEnrolled, &stored).is_err());
    }
}
