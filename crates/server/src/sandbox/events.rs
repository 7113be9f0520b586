//! `POST /sandbox/events`: any event of the catalogue, on request, so a subscriber can try its
//! webhook handler on every type without making each thing happen. The event goes through the
//! same log and webhooks as a real one, marked `sandbox: true`; no object changes. Its payload
//! is plausible: a transaction event shows the caller's transaction when `objectId` names one
//! (else a purchase made up as the sandbox makes them); every other type names `objectId` as its
//! object, with made-up values around it.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::{Duration, SubsecRound, Utc};
use rand::SeedableRng;
use rand::rngs::StdRng;
use subscriber_protocol::PersonId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{
    AccountEventData, AccountRemovedData, CardEnrolledData, CardRemovedData, CardSessionCompletedData,
    CardSessionExpiredData, CardSessionId, CardTransactionEventData, CoordinatesSource, ErrorBody, Event, EventData,
    EventType, LocationCreatedData, LocationId, LocationRemovedData, LocationUpdatedData, Metadata, PersonEventData,
    PersonRemovedData, PersonStatus, SandboxEventRequest, Success, TransactionDeclinedData, TransactionEventData,
    TransactionRemovedData, WebhookId, WebhookTestData,
};
use subscriber_protocol::{AccountId, ObjectId};
use subscriber_protocol::{CardId, MerchantId, SubscriberId, TransactionId};

use super::purchase::{Buyer, Sale, Shop};
use super::require_sandbox;
use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiJson, Auth};
use crate::state::AppState;
use crate::storage::events::StoredEvent;
use crate::storage::transactions::TransactionRow;

/// The id a made-up object gets when `objectId` names none.
const MADE_UP_ID: i64 = 1;

/// Sends any catalogue event now (sandbox only)
///
/// The event of `type` goes through the event log and to the caller's webhook endpoints that
/// want it, as a real one would, with `sandbox: true` at its top level; nothing else changes. A
/// transaction event shows the caller's transaction `objectId` (else a made-up purchase); any
/// other type names `objectId` as its object (else a made-up id), with plausible values around it.
#[utoipa::path(post, path = "/sandbox/events", tag = "sandbox", operation_id = "sendSandboxEvent",
    request_body = SandboxEventRequest,
    responses(
        (status = 201, description = "The event, as the log and the webhooks have it.", body = Success<Event>),
        (status = 400, description = "`type` is not a catalogue type, or `objectId` is not a positive id.",
            body = ErrorBody),
        (status = 404, description = "Not the sandbox, or `objectId` names no transaction of the caller's \
            cards or merchant (for a transaction event).", body = ErrorBody),
    ))]
pub async fn send_event(
    State(state): State<AppState>,
    auth: Auth,
    ApiJson(request): ApiJson<SandboxEventRequest>,
) -> Result<Response, ApiError> {
    require_sandbox(&state)?;
    let mut validation = Validation::new();
    let event_type = EventType::parse(request.event_type.trim());
    if event_type.is_none() {
        validation.reject("type", format!("must be one of {}", subscriber_protocol::EVENT_TYPES.join(", ")));
    }
    if request.object_id.is_some_and(|id| id.get() < 1) {
        validation.reject("objectId", "must be a positive id");
    }
    validation.finish(())?;
    let Some(event_type) = event_type else { return Err(ApiError::internal(anyhow::anyhow!("checked above"))) };
    let data = payload(&state, auth.subscriber_id, event_type, request.object_id).await?;
    let now = UnixSeconds::now();
    let id = state.db.record_event(auth.subscriber_id, StoredEvent::new(&data), now, true).await?;
    tracing::info!(event_id = id.get(), event_type = event_type.as_str(), "sandbox event sent");
    let event = state
        .db
        .event(auth.subscriber_id, id)
        .await?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("the event just recorded is not in the log")))?;
    let event = crate::event_log::render(&state, event).await?;
    Ok((axum::http::StatusCode::CREATED, axum::Json(Success::new(event))).into_response())
}

/// The event's data: the caller's transaction for a transaction event, else made-up values
/// around `object_id`.
async fn payload(
    state: &AppState,
    subscriber_id: SubscriberId,
    event_type: EventType,
    object_id: Option<ObjectId>,
) -> Result<EventData, ApiError> {
    // The event's type says what kind of object `object_id` is.
    let id = object_id.map_or(MADE_UP_ID, ObjectId::get);
    // Whole seconds, as every time the service writes.
    let now = Utc::now().trunc_subsecs(0);
    let shop = Shop::generated(&mut StdRng::from_os_rng(), None);
    let no_metadata = Metadata::default;
    Ok(match event_type {
        EventType::CardEnrolled => EventData::CardEnrolled(CardEnrolledData {
            card_id: CardId(id),
            last_four: 4242,
            brand: "visa".to_owned(),
            client_user_id: None,
            metadata: no_metadata(),
        }),
        EventType::CardRemoved => EventData::CardRemoved(CardRemovedData { card_id: CardId(id) }),
        EventType::TransactionCreated | EventType::TransactionUpdated => {
            let row = match object_id {
                Some(transaction_id) => {
                    super::callers_purchase(state, subscriber_id, TransactionId(transaction_id.get())).await?
                }
                None => made_up_purchase(shop, event_type == EventType::TransactionCreated),
            };
            let data = TransactionEventData::Card(CardTransactionEventData {
                transaction_id: row.id,
                card_id: row.card_id.unwrap_or(CardId(MADE_UP_ID)),
                merchant_id: row.merchant_id,
                transaction: crate::cards::kept_card_transaction(state, &state.enricher().await?, row)?,
            });
            if event_type == EventType::TransactionCreated {
                EventData::TransactionCreated(data)
            } else {
                EventData::TransactionUpdated(data)
            }
        }
        EventType::TransactionRemoved => EventData::TransactionRemoved(TransactionRemovedData {
            transaction_id: TransactionId(id),
            card_id: Some(CardId(MADE_UP_ID)),
            merchant_id: None,
        }),
        EventType::TransactionDeclined => EventData::TransactionDeclined(TransactionDeclinedData {
            transaction_id: TransactionId(id),
            card_id: Some(CardId(MADE_UP_ID)),
            merchant_id: None,
            location_id: None,
            amount: 12.5,
            currency: shop.currency,
            merchant_name: shop.merchant_name,
            reason: super::DECLINE_REASON.to_owned(),
            created_at: now,
        }),
        EventType::MerchantLocationCreated => EventData::MerchantLocationCreated(LocationCreatedData {
            merchant_id: MerchantId(MADE_UP_ID),
            location_id: LocationId(id),
            street: shop.street,
            street_no: shop.street_no,
            city: shop.city,
            zip: shop.zip,
            country_code: shop.country,
            metadata: no_metadata(),
        }),
        EventType::MerchantLocationUpdated => EventData::MerchantLocationUpdated(LocationUpdatedData {
            merchant_id: MerchantId(MADE_UP_ID),
            location_id: LocationId(id),
            country_code: shop.country,
            street: shop.street,
            street_no: shop.street_no,
            city: shop.city,
            zip: shop.zip,
            latitude: None,
            longitude: None,
            coordinates_source: CoordinatesSource::Unknown,
            descriptor: shop.descriptor,
            created_at: now - Duration::days(30),
            metadata: no_metadata(),
        }),
        EventType::MerchantLocationRemoved => {
            EventData::MerchantLocationRemoved(LocationRemovedData { location_id: LocationId(id) })
        }
        EventType::AccountLinked | EventType::AccountRefreshed => {
            let data = account(AccountId(id), None, Some(now + Duration::days(90)));
            if event_type == EventType::AccountLinked {
                EventData::AccountLinked(data)
            } else {
                EventData::AccountRefreshed(data)
            }
        }
        EventType::AccountFailed => {
            EventData::AccountFailed(account(AccountId(id), Some("the bank refused the credentials".to_owned()), None))
        }
        EventType::AccountConsentExpiring => {
            EventData::AccountConsentExpiring(account(AccountId(id), None, Some(now + Duration::days(7))))
        }
        EventType::AccountRemoved => EventData::AccountRemoved(AccountRemovedData { account_id: AccountId(id) }),
        EventType::PersonVerified => EventData::PersonVerified(person(PersonId(id), PersonStatus::Verified, None)),
        EventType::PersonLocked => {
            EventData::PersonLocked(person(PersonId(id), PersonStatus::Locked, Some(now + Duration::hours(24))))
        }
        EventType::PersonRemoved => EventData::PersonRemoved(PersonRemovedData { person_id: PersonId(id) }),
        EventType::CardSessionCompleted => EventData::CardSessionCompleted(CardSessionCompletedData {
            session_id: CardSessionId(id),
            card_id: Some(CardId(MADE_UP_ID)),
        }),
        EventType::CardSessionExpired => {
            EventData::CardSessionExpired(CardSessionExpiredData { session_id: CardSessionId(id) })
        }
        EventType::WebhookTest => EventData::WebhookTest(WebhookTestData {
            webhook_id: WebhookId(id),
            message: "A test event sent from the sandbox".to_owned(),
        }),
    })
}

/// A purchase as the sandbox makes them, made up and never stored: pending when `created`.
fn made_up_purchase(shop: Shop, created: bool) -> TransactionRow {
    let buyer = Buyer { card_id: Some(CardId(MADE_UP_ID)), last_four: 4242 };
    let row = Sale::now(buyer, shop, 1_250)
        .row(UnixSeconds::now(), std::time::Duration::from_secs(if created { 60 } else { 0 }));
    TransactionRow { id: TransactionId(MADE_UP_ID), ..row }
}

fn account(
    account_id: AccountId,
    reason: Option<String>,
    consent_expires_at: Option<chrono::DateTime<Utc>>,
) -> AccountEventData {
    AccountEventData { account_id, reason, consent_expires_at, client_user_id: None, metadata: Metadata::default() }
}

fn person(person_id: PersonId, status: PersonStatus, locked_until: Option<chrono::DateTime<Utc>>) -> PersonEventData {
    PersonEventData { person_id, status, locked_until, client_user_id: None, metadata: Metadata::default() }
}
