//! Typed events: a webhook delivery's body, or an item of `GET /events`, as the event
//! catalogue's types. Match on [`Event::payload`] ([`EventData`]) to get each type's data.
//!
//! ```
//! use subscriber_client::events::{self, EventData};
//! use subscriber_client::protocol::CardId;
//!
//! let body = br#"{"id":"evt_7","type":"card.enrolled","createdAt":"2026-01-01T00:00:00Z",
//!     "data":{"cardId":3,"lastFour":4242,"brand":"visa"}}"#;
//! // After `webhooks::verify` accepted the raw body:
//! let event = events::parse_delivery(body).expect("an event of the catalogue");
//! match event.payload {
//!     EventData::CardEnrolled(card) => assert_eq!((card.card_id, card.last_four), (CardId(3), 4242)),
//!     other => panic!("not a card: {other:?}"),
//! }
//! ```

pub use subscriber_protocol::{
    AccountEventData, CardEnrolledData, CardSessionCompletedData, CardSessionExpiredData, CardTransactionEventData,
    EVENT_TYPES, Event, EventData, EventType, LocationCreatedData, MerchantTransactionEventData, PersonEventData,
    TransactionDeclinedData, TransactionEventData, TransactionRemovedData, WebhookTestData,
};

/// A delivery's raw body as a typed [`Event`]. Verify the signature on these same bytes first
/// (`webhooks::verify`). An endpoint receives events in its API version; this reads the newest
/// version's events (the same as every earlier one so far).
pub fn parse_delivery(body: &[u8]) -> Result<Event, serde_json::Error> {
    serde_json::from_slice(body)
}
