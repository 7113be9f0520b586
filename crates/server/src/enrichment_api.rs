//! The enrichment endpoints: `POST /transactions/enrich`, `GET /transactions/categories` and
//! brand logos (what they answer is found by [`crate::enrichment`]).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use subscriber_protocol::rules::enrichment::{ValidEnrichInput, enrich_request};
use subscriber_protocol::{CategoriesResponse, EnrichRequest, EnrichResponse, EnrichedTransaction, ErrorBody, Success};
use utoipa_axum::routes;

use crate::enrichment::{NetworkData, enrich_all, logo};
use crate::error::ApiError;
use crate::http::extract::{ApiJson, Auth};
use crate::http::routes::Routes;
use crate::state::AppState;
use crate::usage::Billable;

pub fn routes(api: Routes) -> Routes {
    api.api(routes!(enrich_transactions)).api(routes!(list_categories)).api(routes!(brand_logo))
}

fn network_of(input: &ValidEnrichInput) -> NetworkData {
    NetworkData {
        descriptor: input.descriptor.clone(),
        mcc: input.mcc,
        city: input.city.clone(),
        zip: input.zip.clone(),
        country: input.country_code.clone(),
    }
}

/// Counterparty, intermediaries, channel, category and location of up to 100 transactions
///
/// Give each transaction as the card network or the statement gives it: the descriptor, and
/// what else you have (MCC, city, zip, country, amount, date). Nothing is stored; the answer
/// lists the transactions in the order sent, each with your `id`. Each transaction is billed
/// in the `established` environment. The same transaction gives the same answer alone or in
/// a batch.
#[utoipa::path(post, path = "/transactions/enrich", tag = "enrichment", operation_id = "enrichTransactions",
    request_body = EnrichRequest,
    responses((status = 200, description = "Each transaction enriched, in the order sent.", body = Success<EnrichResponse>)))]
async fn enrich_transactions(
    State(state): State<AppState>,
    _auth: Auth,
    ApiJson(request): ApiJson<EnrichRequest>,
) -> Result<Response, ApiError> {
    let inputs = enrich_request(&request)?;
    let networks: Vec<NetworkData> = inputs.iter().map(network_of).collect();
    let directory = state.directory.get().await.map_err(ApiError::internal)?;
    let enrichments =
        tokio::task::spawn_blocking(move || enrich_all(&directory, &networks)).await.map_err(ApiError::internal)?;
    let enriched: Vec<EnrichedTransaction> = inputs
        .into_iter()
        .zip(enrichments)
        .map(|(input, enrichment)| EnrichedTransaction { id: input.id, enrichment })
        .collect();
    let units = enriched.len() as u64;
    let mut response = Json(Success::new(EnrichResponse { enriched })).into_response();
    response.extensions_mut().insert(Billable(units));
    Ok(response)
}

/// The personal finance categories
///
/// The one taxonomy every transaction's `personalFinanceCategory` comes from: 16 primary
/// categories and 104 detailed ones, each inside one primary.
#[utoipa::path(get, path = "/transactions/categories", tag = "enrichment", operation_id = "listCategories",
    responses((status = 200, description = "The taxonomy.", body = Success<CategoriesResponse>)))]
async fn list_categories(_auth: Auth) -> Json<Success<CategoriesResponse>> {
    Json(Success::new(CategoriesResponse::taxonomy()))
}

/// A brand's logo
///
/// An SVG drawn by the service (the brand's initials in its colour), the same for every
/// caller: no token needed, cacheable for a year, with an `ETag` (`If-None-Match` gives 304).
#[utoipa::path(get, path = "/brands/{brand_id}/logo.svg", tag = "enrichment", operation_id = "getBrandLogo",
    security(()),
    params(("brand_id" = String, Path, description = "The brand's `brandId`, e.g. `brd_3c1f0e9a6b2d4c57`.")),
    responses(
        (status = 200, description = "The logo.", content_type = "image/svg+xml", body = String),
        (status = 304, description = "The logo has not changed since the `ETag` sent in `If-None-Match`."),
        (status = 404, description = "No brand has this id.", body = ErrorBody),
    ))]
async fn brand_logo(
    State(state): State<AppState>,
    Path(brand_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let unknown = || ApiError::not_found("no brand has this id: brand ids come with a transaction's counterparty");
    let well_formed = brand_id.len() == 20
        && brand_id.starts_with("brd_")
        && brand_id[4..].bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte));
    if !well_formed {
        return Err(unknown());
    }
    let directory = state.directory.get().await.map_err(ApiError::internal)?;
    let brand = directory.brand(&brand_id).ok_or_else(unknown)?;
    let drawn = logo::svg(&brand.id, &brand.name);
    let etag = logo::etag(&drawn);
    let sent = headers.get(header::IF_NONE_MATCH).and_then(|value| value.to_str().ok());
    let status =
        if sent.is_some_and(|sent| logo::matches(sent, &etag)) { StatusCode::NOT_MODIFIED } else { StatusCode::OK };
    let mut response = if status == StatusCode::OK { drawn.into_response() } else { status.into_response() };
    let response_headers = response.headers_mut();
    response_headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
    response_headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response_headers.insert(header::ETAG, value);
    }
    // An <img> on any page may show it.
    response_headers.insert("cross-origin-resource-policy", HeaderValue::from_static("cross-origin"));
    response_headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    );
    Ok(response)
}
