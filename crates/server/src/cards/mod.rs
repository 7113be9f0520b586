//! Cards: enrollment (test cards only in the sandbox, never a stored PAN), details, and the
//! transaction list.

pub mod session;
mod sync;
pub mod test_cards;
pub mod validation;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use std::sync::Arc;
use subscriber_protocol::CardId;
use subscriber_protocol::EventId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use axum::response::{IntoResponse, Response};
use chrono::Utc;
use subscriber_protocol::Metadata;
use subscriber_protocol::{CardEnrolledData, EventData};
use subscriber_protocol::{
    CardList, CardRecord, CardTransaction, CardTransactionPage, CardTransactionQuery, EnrollCardRequest,
    EnrollCardResponse, Environment, ErrorBody, RecurringStreams, RemoveCardResponse, SandboxCard, SandboxCardList,
    Success, TransactionEnrichment, UpdateMetadataRequest,
};
use utoipa_axum::routes;

use crate::card_rows::{CardLedger, ReadRow};
use crate::enrichment::history::{History, Item, Kind};
use crate::enrichment::stored::Enricher;
use crate::erasure;
use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiJson, ApiQuery, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::http::routes::Routes;
use crate::labels;
use crate::ledger;
use crate::paging;
use crate::reference::mcc;
use crate::simulation::history;
use crate::state::AppState;
use crate::storage::cards::{CardRow, EnrolledCard, Inserted, NewCard};
use crate::storage::events::REMOVED;
use crate::storage::events::StoredEvent;
use crate::storage::removals::UserObject;
use crate::storage::transactions::{ChangedRow, Owner, TransactionRow};
use crate::versions::{RequestVersion, Shaped};
use subscriber_protocol::rules::labels::Labels;
use validation::{CardInput, ValidCard};

pub fn routes(api: Routes) -> Routes {
    api.api_creating(routes!(enroll))
        .alias("/card/link", routes!(enroll), true)
        .api(routes!(list))
        .api(routes!(details))
        .api(routes!(update))
        .api(routes!(remove))
        .api(routes!(transactions))
        .api(routes!(sync::sync))
        .api(routes!(recurring))
        .api(routes!(sandbox_cards))
        .api_creating(routes!(session::create))
        .api(routes!(session::status))
}

pub const CARD_LINKED: &str = "Card linked";

/// Where a PAN may come from: the API (test cards only, in the sandbox) or the secure page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanChannel {
    Api,
    SecurePage,
}

/// Applies every enrollment rule of the environment to what was typed.
pub fn check_card(
    environment: Environment,
    channel: PanChannel,
    input: &CardInput<'_>,
) -> Result<(ValidCard, &'static str), ApiError> {
    if channel == PanChannel::Api && environment != Environment::Sandbox {
        return Err(ApiError::PanNotAccepted(
            "card numbers are not accepted through the API: enroll the card on the secure page \
             (POST /card/session returns its address)"
                .to_owned(),
        ));
    }
    let mut validation = Validation::new();
    let card = subscriber_protocol::rules::cards::card(input, Utc::now().date_naive(), &mut validation);
    validation.finish(())?;
    let card = card.ok_or_else(|| ApiError::invalid("the card is not valid"))?;
    if environment == Environment::Sandbox {
        let Some(test_card) = test_cards::find(&card.pan_digits) else {
            let listed = test_cards::TEST_CARDS.iter().map(|card| card.pan).collect::<Vec<_>>().join(", ");
            return Err(ApiError::invalid_field("pan", format!("the sandbox accepts only its test cards: {listed}")));
        };
        return Ok((card, test_card.brand));
    }
    Ok((card.pan_digits.clone(), card).1).map(|card| {
        let brand = test_cards::brand_of(&card.pan_digits);
        (card, brand)
    })
}

/// Computes what enrolling `card` for the subscriber stores: its keyed fingerprint, its
/// sandbox history (off the async threads: tens of thousands of rows) and its event; the card
/// number itself is no longer kept.
pub async fn prepare_card(
    state: &AppState,
    subscriber_id: SubscriberId,
    card: ValidCard,
    brand: &'static str,
    labels: Labels,
) -> Result<NewCard, ApiError> {
    let fingerprint = validation::fingerprint(&state.fingerprint_key, &card.pan_digits);
    let enrolled_at = UnixSeconds::now();
    let last_four = card.last_four();
    let history = if state.environment() == Environment::Sandbox {
        let input = history::HistoryInput {
            seed: state.config.sandbox_seed,
            fingerprint: fingerprint.clone(),
            last_four,
            country_code: card.country_code.clone(),
            enrolled_at,
        };
        let directory = state.directory.get().await.map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(move || history::generate(&directory, &input)).await.map_err(ApiError::internal)?
    } else {
        Vec::new()
    };
    let ValidCard { first_name, last_name, exp_month, exp_year, country_code, .. } = card;
    let Labels { client_user_id, metadata } = labels.clone();
    Ok(NewCard {
        subscriber_id,
        fingerprint,
        enrolled: EnrolledCard {
            last_four,
            brand: brand.to_owned(),
            first_name,
            last_name,
            exp_month,
            exp_year,
            country_code,
            enrolled_at,
        },
        labels,
        history,
        event_data: Box::new(move |card_id| {
            StoredEvent::new(&EventData::CardEnrolled(CardEnrolledData {
                card_id,
                last_four,
                brand: brand.to_owned(),
                client_user_id,
                metadata,
            }))
        }),
    })
}

/// Enrolls a checked card for a subscriber, with its sandbox history; a card the subscriber
/// already has is a conflict naming it. Returns the new card id.
pub async fn enroll_card(
    state: &AppState,
    subscriber_id: SubscriberId,
    card: ValidCard,
    brand: &'static str,
    labels: Labels,
    idempotent: Idempotent,
) -> Result<CardId, ApiError> {
    let prepared = prepare_card(state, subscriber_id, card, brand, labels).await?;
    let last_four = prepared.enrolled.last_four;
    let replay = idempotent.replay(|card_id| EnrollCardResponse { message: CARD_LINKED.to_owned(), card_id });
    let inserted = state.db.enroll_card(prepared, replay).await?;
    match inserted {
        Inserted::Created(card_id) => {
            tracing::info!(card_id = card_id.get(), last_four, "card enrolled");
            Ok(card_id)
        }
        Inserted::Duplicate(card_id) => Err(ApiError::Conflict {
            message: format!("this card is already enrolled as card {card_id}"),
            card_id: Some(card_id),
            merchant_id: None,
        }),
    }
}

/// Enrolls a card
///
/// The sandbox takes only its test cards (`GET /sandbox/cards`) and gives each a deterministic 36-month
/// history; other environments take card numbers only on the secure page (`POST /card/session`).
#[utoipa::path(post, path = "/card", tag = "cards", operation_id = "enrollCard",
    request_body = EnrollCardRequest,
    responses(
        (status = 201, description = "The card is linked.", body = Success<EnrollCardResponse>),
        (status = 403, description = "Card numbers are not accepted through the API in this environment \
            (`pan_not_accepted`).", body = ErrorBody),
        (status = 409, description = "The card is already enrolled (`cardId` names it), or the \
            Idempotency-Key was used with another body.", body = ErrorBody),
    ))]
async fn enroll(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    ApiJson(request): ApiJson<EnrollCardRequest>,
) -> Result<Response, ApiError> {
    let (card, brand) = check_card(state.environment(), PanChannel::Api, &CardInput::from(&request))?;
    let labels = labels::sent(request.client_user_id.as_deref(), request.metadata.as_ref())?;
    let card_id = enroll_card(&state, auth.subscriber_id, card, brand, labels, idempotent.clone()).await?;
    Ok(idempotent.created(EnrollCardResponse { message: CARD_LINKED.to_owned(), card_id }))
}

pub fn card_record(row: CardRow) -> Result<CardRecord, ApiError> {
    let card = row.enrolled;
    Ok(CardRecord {
        card_id: row.id,
        last_four: card.last_four,
        first_name: card.first_name,
        last_name: card.last_name,
        exp_month: card.exp_month,
        exp_year: card.exp_year,
        enrolled_at: paging::checked_time(card.enrolled_at)?,
        brand: card.brand,
        country_code: card.country_code,
        client_user_id: row.labels.client_user_id,
        metadata: row.labels.metadata,
    })
}

/// The caller's cards
///
/// Every card the caller enrolled, newest first. Only the last four digits of a number are kept.
#[utoipa::path(get, path = "/card", tag = "cards", operation_id = "listCards",
    responses((status = 200, description = "The caller's cards.", body = Success<CardList>)))]
async fn list(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<CardList>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let rows = state.db.cards(subscriber_id).await?;
    let cards = rows.into_iter().map(card_record).collect::<Result<_, _>>()?;
    Ok(Json(Success::new(CardList { cards })))
}

/// The caller's card, or 404: another subscriber's card does not exist for this caller.
pub async fn owned_card(state: &AppState, subscriber_id: SubscriberId, card_id: CardId) -> Result<CardRow, ApiError> {
    state.db.card(subscriber_id, card_id).await?.ok_or_else(|| no_such_card(card_id))
}

/// A card of the caller's as a read finds it: its `GET /card/{id}` body and the id of its
/// newest event (what its kept rows are checked against).
pub(crate) struct ReadableCard {
    pub body: Bytes,
    pub event: EventId,
}

/// The caller's card, or 404. A card changes only by its notes (`PATCH`, which forgets the
/// body here), so its body is rendered once and kept, the owner checked on every hit. It can only be removed: on SQLite this
/// instance did it and forgot the body then; on a shared database another instance may have,
/// a moment ago, so the card's newest event (read anyway, before its rows) says whether it
/// is still there, and no instance answers for a removed card once `DELETE` has answered.
pub(crate) async fn readable_card(
    state: &AppState,
    subscriber_id: SubscriberId,
    card_id: CardId,
    shown: Shown,
) -> Result<ReadableCard, ApiError> {
    // A card changes only by its notes (`PATCH`, which forgets the body here). Through another
    // instance of a shared database a kept body may hold older notes, so a read that shows the
    // body reads the row there, beside the newest-event look-up (at once, not after it).
    let fresh = shown == Shown::Body && state.db.is_shared();
    let newest = state.events.newest_event_of(&state.db, Owner::Card(card_id));
    let (event, read) = if fresh {
        let (event, row) = tokio::join!(newest, owned_card(state, subscriber_id, card_id));
        (event?, Some(row))
    } else {
        (newest.await?, None)
    };
    if event == REMOVED {
        forget_card(state, card_id);
        return Err(no_such_card(card_id));
    }
    if !fresh && let Some(body) = state.card_bodies.get(card_id, subscriber_id) {
        return Ok(ReadableCard { body, event });
    }
    let row = match read {
        Some(row) => row?,
        None => owned_card(state, subscriber_id, card_id).await?,
    };
    let body = Bytes::from(serde_json::to_vec(&Success::new(card_record(row)?)).map_err(ApiError::internal)?);
    state.card_bodies.insert(card_id, subscriber_id, body.clone());
    Ok(ReadableCard { body, event })
}

/// What a read of a card shows of it: its body (`GET /card/{id}`), or only its rows (the
/// body then only says the card is the caller's, which never changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    Body,
    Rows,
}

fn no_such_card(card_id: CardId) -> ApiError {
    ApiError::not_found(format!("no card {card_id} is enrolled by this subscriber"))
}

/// What this instance keeps of a removed card goes, and its open streams end (the card was
/// removed here, or through another instance: `instances`).
pub fn forget_card(state: &AppState, card_id: CardId) {
    state.card_bodies.forget(card_id);
    state.card_rows.forget(card_id);
    state.events.removed(Owner::Card(card_id));
}

/// A card of the caller
///
/// Another subscriber's card answers 404, as a card that does not exist.
#[utoipa::path(get, path = "/card/{card_id}", tag = "cards", operation_id = "getCard",
    params(("card_id" = i64, Path, description = "A cardId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The card.", body = Success<CardRecord>),
        (status = 404, description = "No such card of the caller.", body = ErrorBody),
    ))]
async fn details(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(card_id): IdPath<CardId>,
) -> Result<Response, ApiError> {
    Ok(ledger::json(readable_card(&state, auth.subscriber_id, card_id, Shown::Body).await?.body))
}

/// Sets notes on a card of the caller
///
/// Keys merge with those set before; a key sent with "" is removed. At most 20 pairs in all
/// (key at most 40 characters, value at most 500). The card itself never changes.
#[utoipa::path(patch, path = "/card/{card_id}", tag = "cards", operation_id = "updateCard",
    params(("card_id" = i64, Path, description = "A cardId of the caller.", minimum = 1)),
    request_body = UpdateMetadataRequest,
    responses(
        (status = 200, description = "The card as it is now.", body = Success<CardRecord>),
        (status = 400, description = "A pair is past its limits: nothing changed.", body = ErrorBody),
        (status = 404, description = "No such card of the caller.", body = ErrorBody),
    ))]
async fn update(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(card_id): IdPath<CardId>,
    ApiJson(request): ApiJson<UpdateMetadataRequest>,
) -> Result<Json<Success<CardRecord>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let read = || owned_card(&state, subscriber_id, card_id);
    let metadata_of: fn(&CardRow) -> &Metadata = |row| &row.labels.metadata;
    let row =
        labels::patch_metadata(&state, subscriber_id, UserObject::Card(card_id), &request.metadata, read, metadata_of)
            .await?;
    state.card_bodies.forget(card_id);
    Ok(Json(Success::new(card_record(row)?)))
}

pub const CARD_REMOVED: &str = "Card removed";

/// Removes a card: its data is erased
///
/// The card's transactions, recurring streams and events go from the database, with the
/// stored replays of the request that enrolled it; its open streams end; every read of it is
/// 404 from then on, on every instance. One `card.removed` event with the id alone is left.
/// The same card number can be enrolled again and gets a new `cardId` (ids are never given
/// again). A purchase the card made at an enrolled merchant stays in that merchant's sales as
/// the merchant saw it (the last four digits).
#[utoipa::path(delete, path = "/card/{card_id}", tag = "cards", operation_id = "removeCard",
    params(("card_id" = i64, Path, description = "A cardId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The card is removed.", body = Success<RemoveCardResponse>),
        (status = 404, description = "No such card of the caller (or it was removed already).", body = ErrorBody),
    ))]
async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(card_id): IdPath<CardId>,
) -> Result<Json<Success<RemoveCardResponse>>, ApiError> {
    if !erasure::erase(&state, auth.subscriber_id, UserObject::Card(card_id)).await? {
        return Err(no_such_card(card_id));
    }
    forget_card(&state, card_id);
    tracing::info!(card_id = card_id.get(), "card removed");
    Ok(Json(Success::new(RemoveCardResponse { message: CARD_REMOVED.to_owned(), card_id })))
}

/// A stored card transaction with its enrichment, as every answer shows it.
pub fn card_transaction(row: TransactionRow, enrichment: TransactionEnrichment) -> Result<CardTransaction, ApiError> {
    Ok(CardTransaction {
        transaction_id: row.id,
        created_at: paging::checked_time(row.created_at)?,
        pending: row.pending,
        amount: paging::amount(row.amount_minor),
        currency: row.currency,
        merchant_name: row.merchant_name,
        street: row.street,
        street_no: row.street_no,
        city: row.city,
        country: row.country,
        zip: row.zip,
        category: mcc::label(&row.category),
        descriptor: row.descriptor,
        card_id: row.card_id.unwrap_or(CardId(0)),
        merchant_id: row.merchant_id,
        location_id: row.location_id,
        enrichment: enrichment.into(),
    })
}

/// A stored card transaction shown alone (an event, a stream): enriched, with what its card's
/// history says of it (the history kept, else read now).
pub(crate) async fn shown_card_transaction(state: &AppState, row: TransactionRow) -> Result<CardTransaction, ApiError> {
    if let Some(card_id) = row.card_id.filter(|card_id| card_id.get() > 0)
        && state.card_rows.any(card_id).is_none()
    {
        card_rows(state, card_id).await?;
    }
    kept_card_transaction(state, &state.enricher().await?, row)
}

/// A stored card transaction enriched, with what its card's history says of it when the
/// card's rows are kept.
pub(crate) fn kept_card_transaction(
    state: &AppState,
    enricher: &Enricher,
    row: TransactionRow,
) -> Result<CardTransaction, ApiError> {
    let mut enrichment = enricher.card_row(&row);
    if let Some(ledger) =
        row.card_id.filter(|card_id| card_id.get() > 0).and_then(|card_id| state.card_rows.any(card_id))
    {
        enrichment = ledger.history.placed(Kind::Card, &history_item(&row, &enrichment)?);
    }
    card_transaction(row, enrichment)
}

/// A card row as its history reads it.
fn history_item<'a>(row: &'a TransactionRow, enrichment: &'a TransactionEnrichment) -> Result<Item<'a>, ApiError> {
    Ok(Item {
        id: row.id,
        date: paging::checked_time(row.created_at)?.date_naive(),
        amount_minor: row.amount_minor,
        currency: &row.currency,
        description: &row.descriptor,
        enrichment,
    })
}

/// A card's transactions, newest first, at most 36 months back
///
/// Paged with `limit` and `cursor`; filtered by `from`, `to` (days or times) and `pending`. In the
/// sandbox every card comes with a generated history whose last few days are still pending.
#[utoipa::path(get, path = "/card/{card_id}/transactions", tag = "cards", operation_id = "listCardTransactions",
    params(("card_id" = i64, Path, description = "A cardId of the caller.", minimum = 1), CardTransactionQuery),
    responses(
        (status = 200, description = "A page of transactions; `nextCursor` is null on the last.",
            body = Success<CardTransactionPage>),
        (status = 404, description = "No such card of the caller.", body = ErrorBody),
    ))]
async fn transactions(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(card_id): IdPath<CardId>,
    version: RequestVersion,
    ApiQuery(query): ApiQuery<CardTransactionQuery>,
) -> Result<Response, ApiError> {
    let (mut filter, limit) =
        paging::transaction_filter(query.limit, query.cursor.as_deref(), query.from.as_deref(), query.to.as_deref())?;
    filter.pending = query.pending;
    // Who may read comes first: kept rows hold no permissions.
    let card = readable_card(&state, auth.subscriber_id, card_id, Shown::Rows).await?;
    let rows = card_rows_at(&state, card_id, card.event).await?;
    let cut = rows.page(&filter, limit);
    let next_cursor = cut.next.map(|(created_at, id)| paging::encode_cursor(created_at, id));
    let shell = CardTransactionPage { transactions: Vec::new(), next_cursor };
    let body =
        ledger::filled::<CardTransactionPage, CardTransaction>(&state, version.version, shell, &[&cut.rows_json])?;
    Ok((axum::Extension(Shaped), ledger::json(body)).into_response())
}

/// A card's recurring streams: subscriptions, bills and memberships
///
/// Payments to one counterparty at a steady rhythm, found in the card's last 36 months, each
/// with its frequency, amounts, dates, the date the next one is due and its transactions (whose
/// `recurringStreamId` names the stream). The latest paid first.
#[utoipa::path(get, path = "/card/{card_id}/recurring", tag = "cards", operation_id = "listCardRecurring",
    params(("card_id" = i64, Path, description = "A cardId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The card's streams.", body = Success<RecurringStreams>),
        (status = 404, description = "No such card of the caller.", body = ErrorBody),
    ))]
async fn recurring(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(card_id): IdPath<CardId>,
) -> Result<Json<Success<RecurringStreams>>, ApiError> {
    let card = readable_card(&state, auth.subscriber_id, card_id, Shown::Rows).await?;
    let rows = card_rows_at(&state, card_id, card.event).await?;
    Ok(Json(Success::new(RecurringStreams { streams: rows.history.streams_on(Utc::now().date_naive()) })))
}

/// The card's rows in the 36-month window, each with its JSON: kept while no event of the card
/// came since (`card_rows`), else read whole and kept.
pub(crate) async fn card_rows(state: &AppState, card_id: CardId) -> Result<Arc<CardLedger>, ApiError> {
    // Read before the rows: a change committed meanwhile announces a newer event.
    let event = state.events.newest_event_of(&state.db, Owner::Card(card_id)).await?;
    card_rows_at(state, card_id, event).await
}

/// As [`card_rows`], with the card's newest event already read (before the rows).
pub(crate) async fn card_rows_at(
    state: &AppState,
    card_id: CardId,
    event: EventId,
) -> Result<Arc<CardLedger>, ApiError> {
    if let Some(rows) = state.card_rows.get(card_id, event) {
        return Ok(rows);
    }
    let from = paging::history_start(Utc::now());
    let changed = state.db.changed_after(card_id, (-1, -1), from, u32::MAX).await?;
    let enricher = state.enricher().await?;
    let read = tokio::task::spawn_blocking(move || ledger_of(card_id, event, changed, &enricher))
        .await
        .map_err(ApiError::internal)??;
    Ok(state.card_rows.insert(card_id, read))
}

/// A card's rows enriched, with its history's streams and refunds, and written as JSON.
fn ledger_of(
    card_id: CardId,
    event: EventId,
    changed: Vec<ChangedRow>,
    enricher: &Enricher,
) -> Result<CardLedger, ApiError> {
    let enrichments: Vec<TransactionEnrichment> =
        changed.iter().map(|changed| enricher.card_row(&changed.row)).collect();
    let items = changed
        .iter()
        .zip(&enrichments)
        .map(|(changed, enrichment)| history_item(&changed.row, enrichment))
        .collect::<Result<Vec<_>, ApiError>>()?;
    let history = History::of(&format!("card {card_id}"), Kind::Card, &items, Utc::now().date_naive());
    let placed: Vec<TransactionEnrichment> = items.iter().map(|item| history.placed(Kind::Card, item)).collect();
    drop(items);
    let read = changed
        .into_iter()
        .zip(placed)
        .map(|(changed, enrichment)| {
            let (created_at, id, pending) = (changed.row.created_at, changed.row.id, changed.row.pending);
            let json = serde_json::to_vec(&card_transaction(changed.row, enrichment)?).map_err(ApiError::internal)?;
            Ok(ReadRow {
                created_at,
                id,
                created_seq: changed.created_seq,
                change_seq: changed.change_seq,
                pending,
                json,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(CardLedger::new(event, read, history))
}

/// The test cards, for a dashboard's enrollment form
///
/// Sandbox only.
#[utoipa::path(get, path = "/sandbox/cards", tag = "sandbox", operation_id = "listSandboxCards",
    responses(
        (status = 200, description = "The sandbox test cards.", body = Success<SandboxCardList>),
        (status = 404, description = "Not the sandbox environment.", body = ErrorBody),
    ))]
async fn sandbox_cards(State(state): State<AppState>, _auth: Auth) -> Result<Json<Success<SandboxCardList>>, ApiError> {
    if state.environment() != Environment::Sandbox {
        return Err(ApiError::not_found("sandbox helpers exist only in the sandbox environment"));
    }
    let cards = test_cards::TEST_CARDS
        .iter()
        .map(|card| SandboxCard {
            pan: card.pan.to_owned(),
            brand: card.brand.to_owned(),
            country_code: card.country_code.to_owned(),
            funding: card.funding,
            description: card.description.to_owned(),
        })
        .collect();
    Ok(Json(Success::new(SandboxCardList { cards })))
}
