//! Merchants: enrollment (one per subscriber), locations, and the transactions at them.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{
    CreateLocationRequest, CreateLocationResponse, EnrollMerchantRequest, EnrollMerchantResponse, ErrorBody, Location,
    LocationRemoved, Merchant, MerchantCategory, MerchantCategoryList, MerchantTransaction, MerchantTransactionPage,
    MerchantTransactionQuery, Success, UpdateLocationRequest,
};
use subscriber_protocol::{DirectoryEntryId, LocationId, MerchantId, SubscriberId};
use subscriber_protocol::{EventData, LocationCreatedData, LocationRemovedData, LocationUpdatedData};
use utoipa_axum::routes;

use crate::directory::{self, DirectoryMerchant};
use crate::error::ApiError;
use crate::http::extract::{ApiJson, ApiQuery, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::http::routes::Routes;
use crate::labels;
use crate::ledger;
use crate::paging;
use crate::reference::{currencies, mcc, places};
use crate::state::AppState;
use crate::storage::StorageResult;
use crate::storage::events::StoredEvent;
use crate::storage::merchants::{
    CoordinatesSource, Inserted, LocationChange, LocationChangeKind, LocationRow, MerchantRow, NewLocation,
    NewMerchant, StoredAddress,
};
use crate::storage::transactions::{Owner, TransactionRow};
use crate::versions::RequestVersion;
use subscriber_protocol::rules::merchants::{
    self as validation, LocationBody, LocationDraft, MerchantDraft, ValidLocation,
};

pub const MERCHANT_ENROLLED: &str = "Merchant enrolled";
pub const LOCATION_CREATED: &str = "Location created";
pub const LOCATION_REMOVED: &str = "Location removed";

pub fn routes(api: Routes) -> Routes {
    api.api_creating(routes!(enroll))
        .alias("/merchant/enroll", routes!(enroll), true)
        .api(routes!(details))
        .api(routes!(categories))
        .api_creating(routes!(create_location))
        .api(routes!(location))
        .api(routes!(update_location))
        .api(routes!(remove_location))
        .api(routes!(transactions))
}

/// Enrolls the caller as a merchant (one per subscriber)
///
/// A second enrollment is 409 with the existing `merchantId`. Add locations with `POST
/// /merchant/location`.
#[utoipa::path(post, path = "/merchant", tag = "merchants", operation_id = "enrollMerchant",
    request_body = EnrollMerchantRequest,
    responses(
        (status = 201, description = "The merchant is enrolled; `mechantId` (as the spec spells it) and \
            `merchantId` carry its id.", body = Success<EnrollMerchantResponse>),
        (status = 409, description = "The caller is already a merchant (`merchantId` names it), or the \
            Idempotency-Key was used with another body.", body = ErrorBody),
    ))]
async fn enroll(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    ApiJson(draft): ApiJson<MerchantDraft>,
) -> Result<Response, ApiError> {
    let merchant = validation::merchant(draft)?;
    let new = NewMerchant {
        id: MerchantId(0),
        subscriber_id: auth.subscriber_id,
        name: merchant.name,
        mcc: merchant.mcc,
        country_code: merchant.country_code,
        phone: merchant.phone,
        website: merchant.website,
        created_at: UnixSeconds::now(),
    };
    let inserted = state.db.enroll_merchant(new, idempotent.replay(enrolled)).await?;
    let merchant_id = match inserted {
        Inserted::Created(merchant_id) => merchant_id,
        Inserted::Existing(merchant_id) => {
            return Err(ApiError::Conflict {
                message: format!(
                    "this subscriber is already enrolled as merchant {merchant_id}: one merchant per subscriber \
                     (add locations with POST /merchant/location)"
                ),
                card_id: None,
                merchant_id: Some(merchant_id),
            });
        }
    };
    tracing::info!(merchant_id = merchant_id.get(), "merchant enrolled");
    Ok(idempotent.created(enrolled(merchant_id)))
}

fn enrolled(merchant_id: MerchantId) -> EnrollMerchantResponse {
    EnrollMerchantResponse { message: MERCHANT_ENROLLED.to_owned(), merchant_id }
}

/// The caller's merchant, or 404: another subscriber's merchant does not exist for this caller.
pub async fn owned_merchant(
    state: &AppState,
    subscriber_id: SubscriberId,
    merchant_id: MerchantId,
) -> Result<MerchantRow, ApiError> {
    state
        .db
        .merchant(subscriber_id, merchant_id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no merchant {merchant_id} is enrolled by this subscriber")))
}

async fn caller_merchant(state: &AppState, subscriber_id: SubscriberId) -> Result<Option<MerchantRow>, ApiError> {
    Ok(state.db.merchant_of(subscriber_id).await?)
}

/// The caller's merchant with its locations
///
/// 404 until the caller enrolls as a merchant (`POST /merchant`). Locations are oldest first.
#[utoipa::path(get, path = "/merchant", tag = "merchants", operation_id = "getMerchant",
    responses(
        (status = 200, description = "The caller's merchant.", body = Success<Merchant>),
        (status = 404, description = "The caller has not enrolled as a merchant.", body = ErrorBody),
    ))]
async fn details(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<Merchant>>, ApiError> {
    let merchant = caller_merchant(&state, auth.subscriber_id)
        .await?
        .ok_or_else(|| ApiError::not_found("this subscriber has not enrolled as a merchant: POST /merchant first"))?;
    let merchant_id = merchant.id;
    let locations = state.db.locations(merchant_id).await?;
    Ok(Json(Success::new(Merchant {
        merchant_id: merchant.id,
        name: merchant.name,
        category: mcc::label(&merchant.mcc),
        category_code: merchant.mcc,
        country_code: merchant.country_code,
        phone_number: merchant.phone,
        website: merchant.website,
        created_at: paging::checked_time(merchant.created_at)?,
        locations: locations.into_iter().map(location_record).collect::<Result<_, _>>()?,
    })))
}

fn location_record(row: LocationRow) -> Result<Location, ApiError> {
    Ok(Location {
        location_id: row.id,
        country_code: row.address.country_code,
        street: row.address.street,
        street_no: row.address.street_no,
        city: row.address.city,
        zip: row.address.zip,
        latitude: row.latitude,
        longitude: row.longitude,
        coordinates_source: wire_source(row.coordinates_source),
        descriptor: row.descriptor,
        created_at: paging::checked_time(row.created_at)?,
        metadata: row.metadata,
    })
}

fn wire_source(source: CoordinatesSource) -> subscriber_protocol::CoordinatesSource {
    match source {
        CoordinatesSource::Provided => subscriber_protocol::CoordinatesSource::Provided,
        CoordinatesSource::Derived => subscriber_protocol::CoordinatesSource::Derived,
        CoordinatesSource::Unknown => subscriber_protocol::CoordinatesSource::Unknown,
    }
}

/// The merchant category codes, for a dashboard's picker
///
/// The ISO 18245 codes the service knows, by code, with their descriptions: the `category` a
/// merchant enrollment takes.
#[utoipa::path(get, path = "/merchant/categories", tag = "merchants", operation_id = "listMerchantCategories",
    responses((status = 200, description = "Every merchant category code the service knows.",
        body = Success<MerchantCategoryList>)))]
async fn categories(_auth: Auth) -> Json<Success<MerchantCategoryList>> {
    let categories = mcc::all()
        .map(|(code, description)| MerchantCategory { code: code.to_owned(), description: description.to_owned() })
        .collect();
    Json(Success::new(MerchantCategoryList { categories }))
}

/// Where a new location is: as sent, else the centre of its city when the service knows it.
struct Placed {
    latitude: Option<f64>,
    longitude: Option<f64>,
    source: CoordinatesSource,
    region: Option<String>,
}

fn place(location: &ValidLocation) -> Placed {
    let known = places::locate(&location.country_code, &location.city, &location.zip);
    match (location.coordinates, known) {
        (Some((latitude, longitude)), known) => Placed {
            latitude: Some(latitude),
            longitude: Some(longitude),
            source: CoordinatesSource::Provided,
            region: known.and_then(|place| place.region),
        },
        (None, Some(place)) => Placed {
            latitude: Some(place.latitude),
            longitude: Some(place.longitude),
            source: CoordinatesSource::Derived,
            region: place.region,
        },
        (None, None) => Placed { latitude: None, longitude: None, source: CoordinatesSource::Unknown, region: None },
    }
}

/// Adds a location to the caller's merchant
///
/// Without coordinates the service places it at the centre of its city when it knows the city.
#[utoipa::path(post, path = "/merchant/location", tag = "merchants", operation_id = "createLocation",
    request_body = CreateLocationRequest,
    responses(
        (status = 201, description = "The location exists.", body = Success<CreateLocationResponse>),
        (status = 409, description = "The caller has not enrolled as a merchant, or the Idempotency-Key \
            was used with another body.", body = ErrorBody),
    ))]
async fn create_location(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    ApiJson(mut body): ApiJson<LocationBody>,
) -> Result<Response, ApiError> {
    let metadata = labels::sent(None, body.metadata.take().as_ref())?.metadata;
    let location = validation::location(body)?;
    let merchant = caller_merchant(&state, auth.subscriber_id).await?.ok_or_else(|| {
        ApiError::conflict(
            "this subscriber has not enrolled as a merchant: enroll with POST /merchant, then add locations",
        )
    })?;
    let placed = place(&location);
    let descriptor = directory::descriptor_for_location(&merchant.name, &location.city);
    let merchant_id = merchant.id;
    let (latitude, longitude, source) = (placed.latitude, placed.longitude, placed.source);
    let event_location = location.clone();
    let row = LocationRow {
        id: LocationId(0),
        merchant_id,
        address: StoredAddress {
            country_code: location.country_code.clone(),
            street: location.street.clone(),
            street_no: location.street_no.clone(),
            city: location.city.clone(),
            zip: location.zip.clone(),
        },
        latitude,
        longitude,
        coordinates_source: source,
        descriptor: descriptor.clone(),
        created_at: UnixSeconds::now(),
        metadata: metadata.clone(),
    };
    let new = NewLocation {
        subscriber_id: auth.subscriber_id,
        row,
        event_data: Box::new(move |location_id| {
            StoredEvent::new(&EventData::MerchantLocationCreated(LocationCreatedData {
                merchant_id,
                location_id,
                street: event_location.street,
                street_no: event_location.street_no,
                city: event_location.city,
                zip: event_location.zip,
                country_code: event_location.country_code,
                metadata,
            }))
        }),
    };
    let replay = idempotent.replay(move |location_id| created(location_id, latitude, longitude, source));
    let location_id = state.db.add_location(new, replay).await?;
    tracing::info!(
        merchant_id = merchant_id.get(),
        location_id = location_id.get(),
        coordinates = source.as_str(),
        "location created"
    );
    // Loads the directory first when nobody has: a load running now may have read the
    // enrolled locations before this one was committed.
    state.directory.get().await.map_err(ApiError::internal)?.add_enrolled_location(DirectoryMerchant {
        id: DirectoryEntryId(location_id.get()),
        dba_name: merchant.name.clone(),
        descriptor,
        mcc: merchant.mcc.clone(),
        street: location.street,
        street_no: location.street_no,
        city: location.city,
        region: placed.region,
        currency: currencies::of_country(&location.country_code).unwrap_or("USD").to_owned(),
        country: location.country_code,
        zip: location.zip,
        phone: phone_digits(merchant.phone.as_deref()),
        // NaN marks a location whose position nobody knows: it is found by name and address only.
        latitude: latitude.unwrap_or(f64::NAN),
        longitude: longitude.unwrap_or(f64::NAN),
        merchant_id: Some(merchant_id),
        location_id: Some(location_id),
    });
    Ok(idempotent.created(created(location_id, latitude, longitude, source)))
}

fn created(
    location_id: LocationId,
    latitude: Option<f64>,
    longitude: Option<f64>,
    source: CoordinatesSource,
) -> CreateLocationResponse {
    CreateLocationResponse {
        message: LOCATION_CREATED.to_owned(),
        location_id,
        latitude,
        longitude,
        coordinates_source: wire_source(source),
    }
}

/// The phone number as discovery shows it (a number), 0 when there is none.
pub fn phone_digits(phone: Option<&str>) -> u64 {
    phone
        .map(|phone| phone.chars().filter(char::is_ascii_digit).collect::<String>())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// The caller's location, or 404: another subscriber's location, or a removed one, does not
/// exist for this caller.
async fn owned_location(
    state: &AppState,
    subscriber_id: SubscriberId,
    location_id: LocationId,
) -> Result<LocationRow, ApiError> {
    state.db.subscribers_location(subscriber_id, location_id).await?.ok_or_else(|| location_not_found(location_id))
}

fn location_not_found(location_id: LocationId) -> ApiError {
    ApiError::not_found(format!("no location {location_id} of this subscriber's merchant"))
}

/// One of the caller's merchant's locations
///
/// The location as `GET /merchant` lists it. A removed location, or another subscriber's, is 404.
#[utoipa::path(get, path = "/merchant/location/{location_id}", tag = "merchants", operation_id = "getLocation",
    params(("location_id" = i64, Path, description = "A locationId of the caller's merchant.", minimum = 1)),
    responses(
        (status = 200, description = "The location.", body = Success<Location>),
        (status = 404, description = "No such location of the caller's merchant.", body = ErrorBody),
    ))]
async fn location(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(location_id): IdPath<LocationId>,
) -> Result<Json<Success<Location>>, ApiError> {
    let row = owned_location(&state, auth.subscriber_id, location_id).await?;
    Ok(Json(Success::new(location_record(row)?)))
}

/// Changes one of the caller's merchant's locations
///
/// Any of the fields `POST /merchant/location` takes, checked by the same rules; the others stay
/// as they are. Without `latitude` and `longitude` the coordinates are derived again from the
/// address as it is now (`coordinatesSource` says how). The statement descriptor follows the
/// city; sales already made keep the address and descriptor they were made with.
#[utoipa::path(patch, path = "/merchant/location/{location_id}", tag = "merchants",
    operation_id = "updateLocation",
    params(("location_id" = i64, Path, description = "A locationId of the caller's merchant.", minimum = 1)),
    request_body = UpdateLocationRequest,
    responses(
        (status = 200, description = "The location as it is now.", body = Success<Location>),
        (status = 400, description = "A field is not valid, or none was sent: nothing changed.", body = ErrorBody),
        (status = 404, description = "No such location of the caller's merchant.", body = ErrorBody),
    ))]
async fn update_location(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(location_id): IdPath<LocationId>,
    ApiJson(mut body): ApiJson<LocationBody>,
) -> Result<Json<Success<Location>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    // Another subscriber's id is 404 whatever the body says.
    let current = owned_location(&state, subscriber_id, location_id).await?;
    let metadata_patch = body.metadata.take();
    let metadata = match &metadata_patch {
        Some(patch) => labels::patched(&current.metadata, patch)?,
        None => current.metadata.clone(),
    };
    let row = if body.location.is_none() && metadata_patch.is_some() {
        // The notes alone: the address, its coordinates and descriptor stay as they are.
        LocationRow { metadata, ..current }
    } else {
        let merchant = owned_merchant(&state, subscriber_id, current.merchant_id).await?;
        let address = &current.address;
        let now = LocationDraft {
            country_code: Some(address.country_code.clone()),
            street: Some(address.street.clone()),
            street_no: Some(address.street_no.clone()),
            city: Some(address.city.clone()),
            zip: Some(address.zip.clone()),
            latitude: None,
            longitude: None,
        };
        let changed = validation::changed_location(now, body)?;
        let placed = place(&changed);
        // The descriptor follows the city, as at creation.
        let descriptor = directory::descriptor_for_location(&merchant.name, &changed.city);
        LocationRow {
            address: StoredAddress {
                country_code: changed.country_code,
                street: changed.street,
                street_no: changed.street_no,
                city: changed.city,
                zip: changed.zip,
            },
            latitude: placed.latitude,
            longitude: placed.longitude,
            coordinates_source: placed.source,
            descriptor,
            metadata,
            ..current
        }
    };
    let row_source = row.coordinates_source;
    let location = location_record(row.clone())?;
    let event = StoredEvent::new(&EventData::MerchantLocationUpdated(LocationUpdatedData::new(
        row.merchant_id,
        location.clone(),
    )));
    let change = LocationChange {
        subscriber_id,
        kind: LocationChangeKind::Update(Box::new(row)),
        event,
        at: UnixSeconds::now(),
    };
    if !state.db.change_location(change).await? {
        // Removed between the read and the write.
        return Err(location_not_found(location_id));
    }
    tracing::info!(location_id = location_id.get(), coordinates = row_source.as_str(), "location changed");
    let directory = state.directory.get().await.map_err(ApiError::internal)?;
    refresh_in(&state, &directory, location_id).await?;
    Ok(Json(Success::new(location)))
}

/// Removes one of the caller's merchant's locations
///
/// Discovery no longer finds it and no new sales happen there; sales already made keep the
/// address they were made at. Then reads of it are 404, as a second removal is.
#[utoipa::path(delete, path = "/merchant/location/{location_id}", tag = "merchants",
    operation_id = "removeLocation",
    params(("location_id" = i64, Path, description = "A locationId of the caller's merchant.", minimum = 1)),
    responses(
        (status = 200, description = "Removed.", body = Success<LocationRemoved>),
        (status = 404, description = "No such location of the caller's merchant.", body = ErrorBody),
    ))]
async fn remove_location(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(location_id): IdPath<LocationId>,
) -> Result<Json<Success<LocationRemoved>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let current = owned_location(&state, subscriber_id, location_id).await?;
    let change = LocationChange {
        subscriber_id,
        kind: LocationChangeKind::Remove { location_id, merchant_id: current.merchant_id },
        event: StoredEvent::new(&EventData::MerchantLocationRemoved(LocationRemovedData { location_id })),
        at: UnixSeconds::now(),
    };
    if !state.db.change_location(change).await? {
        // Another request removed it first: this one is the second removal.
        return Err(location_not_found(location_id));
    }
    tracing::info!(location_id = location_id.get(), "location removed");
    let directory = state.directory.get().await.map_err(ApiError::internal)?;
    refresh_in(&state, &directory, location_id).await?;
    Ok(Json(Success::new(LocationRemoved { message: LOCATION_REMOVED.to_owned(), location_id })))
}

/// Discovery finds the location as the database has it now: changed, or no longer (removed).
/// For a change another instance made; nothing to do while this one has not loaded the
/// directory (the load reads the locations as they are).
pub async fn refresh_location(state: &AppState, location_id: LocationId) -> StorageResult<()> {
    match state.directory.if_loaded() {
        Some(directory) => refresh_in(state, &directory, location_id).await,
        None => Ok(()),
    }
}

async fn refresh_in(state: &AppState, directory: &directory::Directory, location_id: LocationId) -> StorageResult<()> {
    match state.db.enrolled_location(location_id).await? {
        Some(location) => directory.add_enrolled_location(location),
        None => directory.retire_enrolled_locations(&[location_id]),
    }
    Ok(())
}

pub fn merchant_transaction(row: TransactionRow) -> Result<MerchantTransaction, ApiError> {
    Ok(MerchantTransaction {
        transaction_id: row.id,
        amount: paging::amount(row.amount_minor),
        currency: row.currency,
        created_at: paging::checked_time(row.created_at)?,
        pending: row.pending,
        location_id: row.location_id.unwrap_or(LocationId(0)),
        street: row.street,
        street_no: row.street_no,
        city: row.city,
        country: row.country,
        zip: row.zip,
        last_four: row.last_four,
    })
}

/// Transactions at the caller's merchant's locations, newest first
///
/// Paged with `limit` and `cursor`; filtered by `locationId`, `from` and `to`. Each sale shows the
/// last four digits of the card used.
#[utoipa::path(get, path = "/merchant/{merchant_id}/transactions", tag = "merchants",
    operation_id = "listMerchantTransactions",
    params(("merchant_id" = i64, Path, description = "The caller's merchantId.", minimum = 1),
        MerchantTransactionQuery),
    responses(
        (status = 200, description = "A page of transactions; `nextCursor` is null on the last.",
            body = Success<MerchantTransactionPage>),
        (status = 404, description = "No such merchant of the caller, or no such location of it.",
            body = ErrorBody),
    ))]
async fn transactions(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(merchant_id): IdPath<MerchantId>,
    RawQuery(raw_query): RawQuery,
    version: RequestVersion,
    ApiQuery(query): ApiQuery<MerchantTransactionQuery>,
) -> Result<Response, ApiError> {
    let (mut filter, limit) = crate::paging::transaction_filter(
        query.limit,
        query.cursor.as_deref(),
        query.from.as_deref(),
        query.to.as_deref(),
    )?;
    owned_merchant(&state, auth.subscriber_id, merchant_id).await?;
    let location_id = query.location_id;
    if let Some(location_id) = location_id {
        // A location of another merchant does not exist for this one: 404, as for any id.
        state
            .db
            .location_of(merchant_id, location_id)
            .await?
            .ok_or_else(|| ApiError::not_found(format!("merchant {merchant_id} has no location {location_id}")))?;
    }
    filter.location_id = location_id;
    let page = |transactions, next_cursor| MerchantTransactionPage { transactions, next_cursor };
    let key =
        ledger::PageKey { owner: Owner::Merchant(merchant_id), query: raw_query.as_deref(), version: version.version };
    ledger::page(&state, key, filter, limit, merchant_transaction, page).await
}
