//! Sandbox point-of-sale: `POST /sandbox/transactions` makes a purchase now, and the
//! background [`simulator`] makes them at a steady rate. Sandbox helpers do not exist in the
//! other environments (404).

pub mod events;
pub mod purchase;
pub mod simulator;
pub mod snapshots;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use rand::SeedableRng;
use rand::rngs::StdRng;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, DirectoryEntryId, LocationId, SubscriberId, TransactionId};
use subscriber_protocol::{
    ClockAdvanceRequest, ClockAdvanced, Environment, ErrorBody, MAX_CLOCK_ADVANCE_SECONDS, SandboxRefundRequest,
    SandboxReset, SandboxReversal, SandboxSettleRequest, SandboxTransactionRequest, SandboxTransactionResponse,
    Success,
};

use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiJson, ApiJsonOrEmpty, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::http::routes::Routes;
use crate::state::AppState;
use crate::storage::merchants::{LocationRow, MerchantRow};
use crate::storage::transactions::TransactionRow;
use purchase::{Buyer, Sale, Shop};
use subscriber_protocol::rules::merchants::NAME_MAX;
use subscriber_protocol::rules::required_text;

pub const TRANSACTION_CREATED: &str = "Transaction created";

/// The largest amount a sandbox purchase may have, in major units.
pub const MAX_AMOUNT: f64 = 1_000_000.0;

pub fn routes(api: Routes) -> Routes {
    api.api_creating(utoipa_axum::routes!(create_transaction))
        .api(utoipa_axum::routes!(settle_transaction))
        .api_creating(utoipa_axum::routes!(refund_transaction))
        .api(utoipa_axum::routes!(reverse_transaction))
        .api(utoipa_axum::routes!(events::send_event))
        .api(utoipa_axum::routes!(advance_clock))
        .api(utoipa_axum::routes!(reset))
        .api_creating(utoipa_axum::routes!(snapshots::take))
        .api(utoipa_axum::routes!(snapshots::list))
        .api(utoipa_axum::routes!(snapshots::restore))
        .api(utoipa_axum::routes!(snapshots::delete))
}

pub const TRANSACTION_SETTLED: &str = "Transaction settled";
pub const REFUND_CREATED: &str = "Refund created";
pub const TRANSACTION_REVERSED: &str = "Transaction reversed";
pub const TRANSACTION_DECLINED: &str = "Transaction declined";

pub fn require_sandbox(state: &AppState) -> Result<(), ApiError> {
    if state.environment() == Environment::Sandbox {
        Ok(())
    } else {
        Err(ApiError::not_found("sandbox helpers exist only in the sandbox environment"))
    }
}

struct Checked {
    amount_minor: Option<i64>,
    merchant_name: Option<String>,
    created_at: Option<UnixSeconds>,
}

/// An amount in major units as minor units: non-zero, at most [`MAX_AMOUNT`] either way, two
/// decimals at most; `None` (and the field rejected) otherwise.
fn amount_minor(validation: &mut Validation, amount: f64) -> Option<i64> {
    let cents = (amount * 100.0).round();
    if amount == 0.0 || !amount.is_finite() || amount.abs() > MAX_AMOUNT {
        validation.reject("amount", format!("must be non-zero and at most {MAX_AMOUNT:.0} either way"));
        None
    } else if ((amount * 100.0) - cents).abs() > 1e-6 {
        validation.reject("amount", "must have at most 2 decimals (major units, e.g. 12.34)");
        None
    } else {
        Some(cents as i64)
    }
}

fn check(request: &SandboxTransactionRequest) -> Result<Checked, ApiError> {
    let mut validation = Validation::new();
    let amount_minor = request.amount.and_then(|amount| amount_minor(&mut validation, amount));
    let merchant_name = request
        .merchant_name
        .as_deref()
        .filter(|name| !name.trim().is_empty())
        .and_then(|name| required_text(&mut validation, "merchantName", Some(name), NAME_MAX));
    let created_at = request.created_at.as_deref().and_then(|text| {
        let now = Utc::now();
        let at = chrono::DateTime::parse_from_rfc3339(text.trim()).ok().map(|at| UnixSeconds::from(at.to_utc()));
        match at {
            Some(at) if (crate::paging::history_start(now)..=UnixSeconds::from(now)).contains(&at) => Some(at),
            _ => {
                validation.reject(
                    "createdAt",
                    "must be a time (RFC 3339, e.g. 2026-01-31T12:00:00Z) from 36 months ago to now",
                );
                None
            }
        }
    });
    Ok(validation.finish(Checked { amount_minor, merchant_name, created_at })?)
}

/// Makes a point-of-sale purchase now (sandbox only)
///
/// Every field is optional: the service picks one of the caller's cards, a location and an amount.
/// Both sides see the purchase: the card's list and the merchant's, and their streams.
#[utoipa::path(post, path = "/sandbox/transactions", tag = "sandbox", operation_id = "createSandboxTransaction",
    request_body(content = Option<SandboxTransactionRequest>, description = "May be empty."),
    responses(
        (status = 201, description = "The purchase.", body = Success<SandboxTransactionResponse>),
        (status = 404, description = "Not the sandbox, no such card of the caller, or no such location \
            of the caller or of the directory (another subscriber's is not one).",
            body = ErrorBody),
        (status = 409, description = "The caller has no card and no location to buy with, or the \
            Idempotency-Key was used with another body.", body = ErrorBody),
    ))]
async fn create_transaction(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    ApiJsonOrEmpty(request): ApiJsonOrEmpty<SandboxTransactionRequest>,
) -> Result<Response, ApiError> {
    require_sandbox(&state)?;
    let checked = check(&request)?;
    let subscriber_id = auth.subscriber_id;
    let mut rng = StdRng::from_os_rng();

    // The card, the merchant and the location named at once: one round trip to a database on
    // another host, then the sale, one more.
    let card = async {
        match request.card_id {
            Some(card_id) => Ok(Some(crate::cards::owned_card(&state, subscriber_id, card_id).await?)),
            // The caller's newest card.
            None => Ok::<_, ApiError>(state.db.cards(subscriber_id).await?.into_iter().next()),
        }
    };
    let named_location = async {
        match request.location_id {
            Some(location_id) => state.db.subscribers_location(subscriber_id, location_id).await,
            None => Ok(None),
        }
    };
    let (card, own_merchant, named_location) =
        futures::join!(card, state.db.merchant_of(subscriber_id), named_location);
    let (card, own_merchant, named_location) = (card?, own_merchant?, named_location?);
    let own_location = |pick: u64| {
        let merchant = own_merchant.clone();
        let state = state.clone();
        async move {
            let Some(merchant) = merchant else { return Ok::<_, ApiError>(None) };
            let merchant_id = merchant.id;
            let location = state.db.pick_location(merchant_id, pick).await?;
            Ok(location.map(|location| Shop::at_location(&location, &merchant)))
        }
    };
    let no_card_no_place = || {
        ApiError::conflict(
            "a sandbox purchase needs a card of yours (enroll one with POST /card) or one of your merchant's \
             locations (POST /merchant/location) to happen at",
        )
    };

    let mut shop = match request.location_id {
        Some(location_id) => {
            let shop = shop_at(&state, own_merchant.as_ref(), named_location, location_id).await?;
            if card.is_none() && shop.merchant_id.is_none() {
                // A synthetic card at a directory merchant: nobody here would see it.
                return Err(no_card_no_place());
            }
            shop
        }
        None if card.is_none() => own_location(rand::Rng::random(&mut rng)).await?.ok_or_else(no_card_no_place)?,
        None if checked.merchant_name.is_some() => Shop::generated(&mut rng, checked.merchant_name.as_deref()),
        None => match state.directory.get().await.map_err(ApiError::internal)?.random_merchant(&mut rng) {
            Some(merchant) => Shop::from_directory(merchant),
            None => match own_location(rand::Rng::random(&mut rng)).await? {
                Some(shop) => shop,
                None => Shop::generated(&mut rng, None),
            },
        },
    };
    if let Some(name) = checked.merchant_name {
        shop.merchant_name = name;
    }
    let buyer = card.as_ref().map_or_else(|| Buyer::synthetic(&mut rng), Buyer::card);
    let amount_minor = checked.amount_minor.unwrap_or_else(|| purchase::random_amount_minor(&mut rng));

    let enricher = state.enricher().await?;
    let sale = Sale { created_at: checked.created_at, ..Sale::now(buyer, shop, amount_minor) };
    if request.declined == Some(true) {
        return decline(&state, subscriber_id, &enricher, sale).await;
    }
    let respond = {
        let (state, enricher) = (state.clone(), enricher.clone());
        move |row: &TransactionRow| response(&state, &enricher, row.clone())
    };
    let row = purchase::record(&state, sale, idempotent.clone(), respond).await?;
    tracing::info!(
        transaction_id = row.id.get(),
        card_id = row.card_id.map(CardId::get),
        location_id = row.location_id.map(LocationId::get),
        "sandbox purchase"
    );
    Ok(idempotent.created(response(&state, &enricher, row)?))
}

/// Why the sandbox's issuer declines a purchase.
pub(crate) const DECLINE_REASON: &str = "insufficient_funds";

/// A purchase the issuer declines: it gets an id of its own (never given again) and one
/// `transaction.declined` event for the caller (whose card it is, or whose merchant), and is
/// stored in no list. Answered as a purchase with `declined: true`; with an `Idempotency-Key`
/// the answer is kept as any other (no replay is stored with a row: there is none).
async fn decline(
    state: &AppState,
    subscriber_id: SubscriberId,
    enricher: &crate::enrichment::stored::Enricher,
    sale: Sale,
) -> Result<Response, ApiError> {
    let now = UnixSeconds::now();
    let id = state.db.next_transaction_id().await?;
    let row = TransactionRow { id, pending: false, settles_at: None, ..sale.row(now, std::time::Duration::ZERO) };
    let data = subscriber_protocol::TransactionDeclinedData {
        transaction_id: id,
        card_id: row.card_id,
        merchant_id: row.merchant_id,
        location_id: row.location_id,
        amount: crate::paging::amount(row.amount_minor),
        currency: row.currency.clone(),
        merchant_name: row.merchant_name.clone(),
        reason: DECLINE_REASON.to_owned(),
        created_at: crate::paging::checked_time(row.created_at)?,
    };
    let event = crate::storage::events::StoredEvent::new(&subscriber_protocol::EventData::TransactionDeclined(data));
    state.db.record_event(subscriber_id, event, now, false).await?;
    tracing::info!(transaction_id = id.get(), card_id = row.card_id.map(CardId::get), "sandbox purchase declined");
    let answer = SandboxTransactionResponse {
        message: TRANSACTION_DECLINED.to_owned(),
        declined: Some(true),
        ..response(state, enricher, row)?
    };
    Ok((axum::http::StatusCode::CREATED, Json(Success::new(answer))).into_response())
}

/// Where the caller may buy by naming a `locationId`: a location of its own merchant, or a
/// merchant of the generated directory (the `locationId` discovery shows). Another
/// subscriber's location is as unknown as one that does not exist: the caller must not be
/// able to write into someone else's merchant list.
async fn shop_at(
    state: &AppState,
    own_merchant: Option<&MerchantRow>,
    own_location: Option<LocationRow>,
    location_id: LocationId,
) -> Result<Shop, ApiError> {
    if let (Some(merchant), Some(location)) = (own_merchant, own_location) {
        return Ok(Shop::at_location(&location, merchant));
    }
    state
        .directory
        .get()
        .await
        .map_err(ApiError::internal)?
        // A `locationId` names a merchant of the directory too (as discovery shows it).
        .generated_merchant(DirectoryEntryId(location_id.get()))
        .map(Shop::from_directory)
        .ok_or_else(|| ApiError::not_found(format!("no location {location_id} of yours or of the directory")))
}

/// Settles a pending purchase now (sandbox only)
///
/// A purchase by one of the caller's cards or at the caller's merchant settles at once instead
/// of when it is due, at another `amount` when one is sent (a tip): both sides' lists, streams
/// and sync (`modified`) see the settlement, with a `transaction.updated` event. One that has
/// settled already is answered the same way, so a retry changes nothing.
#[utoipa::path(post, path = "/sandbox/transactions/{transaction_id}/settle", tag = "sandbox",
    operation_id = "settleSandboxTransaction",
    params(("transaction_id" = i64, Path, description = "The purchase to settle.")),
    request_body(content = Option<SandboxSettleRequest>, description = "May be empty."),
    responses(
        (status = 200, description = "The purchase, settled.", body = Success<SandboxTransactionResponse>),
        (status = 400, description = "The amount is zero, of the other sign, too large or has more than 2 \
            decimals.", body = ErrorBody),
        (status = 404, description = "Not the sandbox, or no purchase of the caller's cards or merchant has \
            this id (another subscriber's is not one).", body = ErrorBody),
        (status = 409, description = "It settled already at another amount.", body = ErrorBody),
    ))]
async fn settle_transaction(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(transaction_id): IdPath<TransactionId>,
    ApiJsonOrEmpty(request): ApiJsonOrEmpty<SandboxSettleRequest>,
) -> Result<Json<Success<SandboxTransactionResponse>>, ApiError> {
    require_sandbox(&state)?;
    let mut validation = Validation::new();
    let amount = request.amount.and_then(|amount| amount_minor(&mut validation, amount));
    validation.finish(())?;
    let row = callers_purchase(&state, auth.subscriber_id, transaction_id).await?;
    if let Some(amount) = amount
        && amount.signum() != row.amount_minor.signum()
    {
        return Err(ApiError::invalid_field("amount", "must have the purchase's sign (a refund is made with /refund)"));
    }
    let settled_otherwise = |row: &TransactionRow| {
        amount.filter(|amount| !row.pending && *amount != row.amount_minor).map(|_| {
            ApiError::conflict(format!(
                "purchase {transaction_id} settled already, at {}",
                in_major_units(row.amount_minor)
            ))
        })
    };
    if let Some(conflict) = settled_otherwise(&row) {
        return Err(conflict);
    }
    let row = if row.pending {
        let now = UnixSeconds::now();
        match state.db.settle_now(transaction_id, now, amount).await? {
            Some((row, event)) => {
                state.events.publish(&event.into_iter().collect::<Vec<_>>());
                row
            }
            // Settled meanwhile, when it fell due.
            None => {
                let row = read_transaction(&state, transaction_id).await?.ok_or_else(|| no_purchase(transaction_id))?;
                if let Some(conflict) = settled_otherwise(&row) {
                    return Err(conflict);
                }
                row
            }
        }
    } else {
        row
    };
    tracing::info!(transaction_id = transaction_id.get(), "sandbox purchase settled");
    let enricher = state.enricher().await?;
    let settled = response(&state, &enricher, row)?;
    Ok(Json(Success::new(SandboxTransactionResponse { message: TRANSACTION_SETTLED.to_owned(), ..settled })))
}

/// Refunds a settled purchase (sandbox only)
///
/// A refund of all or part of a settled purchase by one of the caller's cards or at the
/// caller's merchant: a new transaction of the negative amount at the same place, by the same
/// card, whose `enrichment.refundOf` is the purchase; it flows like any purchase (lists,
/// streams, sync's `added`, `transaction.created`). Refunds together give back at most the
/// purchase's amount.
#[utoipa::path(post, path = "/sandbox/transactions/{transaction_id}/refund", tag = "sandbox",
    operation_id = "refundSandboxTransaction",
    params(("transaction_id" = i64, Path, description = "The purchase to refund.")),
    request_body(content = Option<SandboxRefundRequest>, description = "May be empty: all that is left."),
    responses(
        (status = 201, description = "The refund.", body = Success<SandboxTransactionResponse>),
        (status = 400, description = "The amount is not positive, has more than 2 decimals, or is more than \
            what is left of the purchase.", body = ErrorBody),
        (status = 404, description = "Not the sandbox, or no purchase of the caller's cards or merchant has \
            this id (another subscriber's is not one).", body = ErrorBody),
        (status = 409, description = "The purchase is still pending, is a refund itself, or was refunded in \
            full; or the Idempotency-Key was used with another body.", body = ErrorBody),
    ))]
async fn refund_transaction(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(transaction_id): IdPath<TransactionId>,
    idempotent: Idempotent,
    ApiJsonOrEmpty(request): ApiJsonOrEmpty<SandboxRefundRequest>,
) -> Result<Response, ApiError> {
    require_sandbox(&state)?;
    let mut validation = Validation::new();
    let asked = request.amount.and_then(|amount| amount_minor(&mut validation, amount));
    if asked.is_some_and(|asked| asked < 0) {
        validation.reject("amount", "must be positive: how much is given back");
    }
    validation.finish(())?;
    let (purchase, refunded) =
        futures::try_join!(callers_purchase(&state, auth.subscriber_id, transaction_id), async {
            Ok(state.db.refunded(transaction_id).await?)
        })?;
    if purchase.amount_minor < 0 {
        return Err(ApiError::conflict(format!("transaction {transaction_id} is a refund itself")));
    }
    if purchase.pending {
        return Err(ApiError::conflict(format!(
            "purchase {transaction_id} is still pending: settle it first (POST /sandbox/transactions/{transaction_id}/settle)"
        )));
    }
    let left = purchase.amount_minor - refunded;
    if left <= 0 {
        return Err(ApiError::conflict(format!("purchase {transaction_id} was refunded in full already")));
    }
    let amount = asked.unwrap_or(left);
    if amount > left {
        return Err(ApiError::invalid_field(
            "amount",
            format!("must be at most {}, what is left of the purchase", in_major_units(left)),
        ));
    }
    let buyer = Buyer { card_id: purchase.card_id, last_four: purchase.last_four };
    let sale = Sale { refund_of: Some(transaction_id), ..Sale::now(buyer, Shop::of_row(&purchase), -amount) };
    let enricher = state.enricher().await?;
    let respond = {
        let (state, enricher) = (state.clone(), enricher.clone());
        move |row: &TransactionRow| refund_response(&state, &enricher, row.clone())
    };
    let row = purchase::record(&state, sale, idempotent.clone(), respond).await?;
    tracing::info!(transaction_id = row.id.get(), refund_of = transaction_id.get(), "sandbox refund");
    Ok(idempotent.created(refund_response(&state, &enricher, row)?))
}

/// Reverses a pending authorization (sandbox only)
///
/// A pending purchase by one of the caller's cards or at the caller's merchant is reversed, as a
/// merchant voids an authorization: it leaves both sides' lists, its earlier events leave the
/// log, the card's sync reports its id in `removed`, and each side gets `transaction.removed`.
/// A settled purchase is not reversed but refunded (`/refund`).
#[utoipa::path(post, path = "/sandbox/transactions/{transaction_id}/reverse", tag = "sandbox",
    operation_id = "reverseSandboxTransaction",
    params(("transaction_id" = i64, Path, description = "The pending purchase to reverse.")),
    responses(
        (status = 200, description = "The authorization is gone.", body = Success<SandboxReversal>),
        (status = 404, description = "Not the sandbox, or no purchase of the caller's cards or merchant has \
            this id (another subscriber's is not one, nor one reversed already).", body = ErrorBody),
        (status = 409, description = "It settled already: refund it instead.", body = ErrorBody),
    ))]
async fn reverse_transaction(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(transaction_id): IdPath<TransactionId>,
) -> Result<Json<Success<SandboxReversal>>, ApiError> {
    require_sandbox(&state)?;
    let settled = || {
        ApiError::conflict(format!(
            "purchase {transaction_id} settled already: refund it instead (POST /sandbox/transactions/{transaction_id}/refund)"
        ))
    };
    let row = callers_purchase(&state, auth.subscriber_id, transaction_id).await?;
    if !row.pending {
        return Err(settled());
    }
    let Some(reversed) = state.db.reverse(transaction_id, UnixSeconds::now()).await? else {
        // Settled meanwhile, when it fell due (or reversed by a request just before).
        return Err(match read_transaction(&state, transaction_id).await? {
            Some(_) => settled(),
            None => no_purchase(transaction_id),
        });
    };
    state.events.changed(&reversed.events);
    tracing::info!(transaction_id = transaction_id.get(), "sandbox authorization reversed");
    Ok(Json(Success::new(SandboxReversal { message: TRANSACTION_REVERSED.to_owned(), transaction_id })))
}

/// An amount as the API writes it (`12.50`).
fn in_major_units(minor: i64) -> String {
    format!("{:.2}", crate::paging::amount(minor))
}

fn refund_response(
    state: &AppState,
    enricher: &crate::enrichment::stored::Enricher,
    row: TransactionRow,
) -> Result<SandboxTransactionResponse, ApiError> {
    Ok(SandboxTransactionResponse { message: REFUND_CREATED.to_owned(), ..response(state, enricher, row)? })
}

/// A transaction that is not the caller's, as one that does not exist.
fn no_purchase(transaction_id: TransactionId) -> ApiError {
    ApiError::not_found(format!("no purchase {transaction_id} of your cards or merchant"))
}

/// The caller's purchase `transaction_id` (by one of its cards or at its merchant); another
/// subscriber's answers as one that does not exist.
pub(crate) async fn callers_purchase(
    state: &AppState,
    subscriber_id: SubscriberId,
    transaction_id: TransactionId,
) -> Result<TransactionRow, ApiError> {
    let row = read_transaction(state, transaction_id).await?.ok_or_else(|| no_purchase(transaction_id))?;
    if !is_callers(state, subscriber_id, &row).await? {
        return Err(no_purchase(transaction_id));
    }
    Ok(row)
}

async fn read_transaction(state: &AppState, transaction_id: TransactionId) -> Result<Option<TransactionRow>, ApiError> {
    Ok(state.db.transaction(transaction_id).await?)
}

/// Whether the purchase was made by one of the caller's cards or at the caller's merchant.
async fn is_callers(state: &AppState, subscriber_id: SubscriberId, row: &TransactionRow) -> Result<bool, ApiError> {
    if let Some(card_id) = row.card_id
        && state.db.card(subscriber_id, card_id).await?.is_some()
    {
        return Ok(true);
    }
    Ok(match row.merchant_id {
        Some(merchant_id) => state.db.merchant(subscriber_id, merchant_id).await?.is_some(),
        None => false,
    })
}

fn response(
    state: &AppState,
    enricher: &crate::enrichment::stored::Enricher,
    row: TransactionRow,
) -> Result<SandboxTransactionResponse, ApiError> {
    Ok(SandboxTransactionResponse {
        message: TRANSACTION_CREATED.to_owned(),
        transaction_id: row.id,
        card_id: row.card_id,
        last_four: row.last_four,
        transaction: crate::cards::kept_card_transaction(state, enricher, row)?,
        declined: None,
    })
}

/// Moves the caller's sandbox clock ahead (sandbox only)
///
/// The caller's pending purchases settle, and its open card-entry pages, bank links, identity
/// questions, bank consents and locks expire, as if `seconds` had passed (an account whose
/// consent comes within seven days of its end gets `account.consent_expiring`). Other subscribers' clocks stay.
#[utoipa::path(post, path = "/sandbox/clock/advance", tag = "sandbox", operation_id = "advanceSandboxClock",
    request_body = ClockAdvanceRequest,
    responses(
        (status = 200, description = "The clock moved.", body = Success<ClockAdvanced>),
        (status = 400, description = "`seconds` is not from 1 to 31,536,000.", body = ErrorBody),
        (status = 404, description = "Not the sandbox.", body = ErrorBody),
    ))]
async fn advance_clock(
    State(state): State<AppState>,
    auth: Auth,
    ApiJson(request): ApiJson<ClockAdvanceRequest>,
) -> Result<Json<Success<ClockAdvanced>>, ApiError> {
    require_sandbox(&state)?;
    let seconds = request.seconds;
    if !(1..=MAX_CLOCK_ADVANCE_SECONDS).contains(&seconds) {
        return Err(ApiError::invalid_field("seconds", format!("must be from 1 to {MAX_CLOCK_ADVANCE_SECONDS}")));
    }
    let subscriber_id = auth.subscriber_id;
    state.db.advance_clock(subscriber_id, seconds).await?;
    let settled = crate::ledger::settle_due(&state).await?;
    crate::accounts::consent::warn_due(&state).await?;
    tracing::info!(seconds, settled, "sandbox clock advanced");
    Ok(Json(Success::new(ClockAdvanced {
        message: "Sandbox clock advanced".to_owned(),
        seconds,
        settled: u64::try_from(settled).unwrap_or_default(),
    })))
}

/// What this instance keeps of a subscriber whose sandbox was reset (here, or through another
/// instance: `instances`), and only of that subscriber. Its streams end: what they followed is
/// gone (and ids never come again, so no stream of anyone could ever be given another
/// subscriber's card). Its rendered cards go, as they are served from memory; its deleted
/// locations are no longer found. Kept rows and pages of its deleted cards and merchant stay
/// until pushed out, as nobody reaches them any more (each read checks ownership in the
/// database first, and ids never come again). Nothing of another subscriber changed (the reset
/// leaves their rows as they were), so nothing of theirs is forgotten.
pub fn forget_reset(state: &AppState, subscriber_id: SubscriberId, location_ids: &[LocationId]) {
    state.events.end_streams_of(subscriber_id);
    state.card_bodies.forget_owner(subscriber_id);
    if let Some(directory) = state.directory.if_loaded() {
        directory.retire_enrolled_locations(location_ids);
    }
}

/// Deletes everything of the caller's but the account (sandbox only)
///
/// Cards and their transactions, the merchant and its locations, bank accounts, persons,
/// webhook endpoints and events go; the account, its credentials and its usage stay. A purchase
/// with another subscriber stays on that subscriber's side.
#[utoipa::path(post, path = "/sandbox/reset", tag = "sandbox", operation_id = "resetSandbox",
    responses(
        (status = 200, description = "Everything but the account is gone.", body = Success<SandboxReset>),
        (status = 404, description = "Not the sandbox.", body = ErrorBody),
    ))]
async fn reset(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<SandboxReset>>, ApiError> {
    require_sandbox(&state)?;
    let subscriber_id = auth.subscriber_id;
    let removed = state.db.reset_sandbox(subscriber_id).await?;
    forget_reset(&state, subscriber_id, &removed.location_ids);
    tracing::info!(subscriber_id = subscriber_id.get(), locations = removed.location_ids.len(), "sandbox reset");
    Ok(Json(Success::new(SandboxReset { message: "Sandbox data deleted".to_owned() })))
}
