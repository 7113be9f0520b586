//! Merchant discovery (`GET /merchant/discover`, the "Merchant ID" product): a statement
//! descriptor (`merchid`, alias `merchId`), an address, or a position, resolved against the
//! merchant directory. The index and why it is in memory: [`crate::directory::search`].

use axum::Json;
use axum::extract::State;
use subscriber_protocol::{
    Confidence, DiscoverQuery, DiscoverResponse, DiscoverResult, DiscoveredMerchant, MatchType, Success,
};

use crate::directory::brands;
use crate::directory::search::AddressQuery;
use crate::directory::{Found, Query};
use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiQuery, Auth};
use crate::http::routes::Routes;
use crate::reference::{countries, mcc};
use crate::state::AppState;

pub const DEFAULT_LIMIT: u32 = 10;
pub const MAX_LIMIT: u32 = 50;
/// Metres around a position when the query gives no radius.
pub const DEFAULT_RADIUS: f64 = 1_000.0;
pub const MAX_RADIUS: f64 = 50_000.0;
const MAX_DESCRIPTOR_LENGTH: usize = 200;

pub fn routes(api: Routes) -> Routes {
    api.api(utoipa_axum::routes!(discover))
}

/// Merchants from what a card statement prints, an address or a position
///
/// Give `merchid` (the descriptor as printed; `merchId` is accepted too), an address (`street`,
/// `streetNo`, `city`, `zip`, `countryCode`: at least a street, a city or a zip) or a position
/// (`latitude` and `longitude`, with `radius` in metres). Best match first; no match is an empty list.
#[utoipa::path(get, path = "/merchant/discover", tag = "discovery", operation_id = "discoverMerchants",
    params(DiscoverQuery),
    responses((status = 200, description = "The merchants found, best first.", body = Success<DiscoverResponse>)))]
async fn discover(
    State(state): State<AppState>,
    _auth: Auth,
    ApiQuery(query): ApiQuery<DiscoverQuery>,
) -> Result<Json<Success<DiscoverResponse>>, ApiError> {
    let (query, limit) = checked_query(&query)?;
    let directory = state.directory.get().await.map_err(ApiError::internal)?;
    let found =
        tokio::task::spawn_blocking(move || directory.search(&query, limit)).await.map_err(ApiError::internal)?;
    Ok(Json(Success::new(response(found))))
}

/// The search a query asks for, or 400 naming every field that is wrong. A descriptor wins
/// over a position, a position over an address.
pub fn checked_query(query: &DiscoverQuery) -> Result<(Query, usize), ApiError> {
    let mut validation = Validation::new();
    let limit = subscriber_protocol::rules::page_limit(&mut validation, query.limit, DEFAULT_LIMIT, MAX_LIMIT);
    let text = |value: &Option<String>, field: &str, validation: &mut Validation| -> Option<String> {
        let sent = value.as_deref()?;
        let value = sent.trim();
        if value.is_empty() {
            validation.reject(field, "must not be empty when given");
            return None;
        }
        // Counts what was sent, surrounding spaces included (as the OpenAPI maxLength does).
        if sent.chars().count() > MAX_DESCRIPTOR_LENGTH {
            validation.reject(field, format!("must be at most {MAX_DESCRIPTOR_LENGTH} characters"));
            return None;
        }
        Some(value.to_owned())
    };
    let descriptor = text(&query.merchid, "merchid", &mut validation);
    if descriptor.as_deref().is_some_and(|descriptor| !descriptor.chars().any(char::is_alphanumeric)) {
        validation.reject("merchid", "must contain letters or digits");
    }
    let street = text(&query.street, "street", &mut validation);
    let street_no = text(&query.street_no, "streetNo", &mut validation);
    let city = text(&query.city, "city", &mut validation);
    let zip = text(&query.zip, "zip", &mut validation);
    let country = text(&query.country_code, "countryCode", &mut validation).and_then(|code| {
        let normalized = countries::normalize_alpha3(&code);
        if normalized.is_none() {
            validation.reject("countryCode", "must be an ISO 3166-1 alpha-3 country code such as USA or DEU");
        }
        normalized
    });
    let position = match (query.latitude, query.longitude) {
        (Some(latitude), Some(longitude)) => {
            if !latitude.is_finite() || !(-90.0..=90.0).contains(&latitude) {
                validation.reject("latitude", "must be from -90 to 90");
            }
            if !longitude.is_finite() || !(-180.0..=180.0).contains(&longitude) {
                validation.reject("longitude", "must be from -180 to 180");
            }
            Some((latitude, longitude))
        }
        (Some(_), None) => {
            validation.reject("longitude", "is required with latitude");
            None
        }
        (None, Some(_)) => {
            validation.reject("latitude", "is required with longitude");
            None
        }
        (None, None) => None,
    };
    let radius = query.radius.unwrap_or(DEFAULT_RADIUS);
    if query.radius.is_some() {
        if !radius.is_finite() || radius <= 0.0 || radius > MAX_RADIUS {
            validation.reject("radius", format!("must be more than 0 and at most {MAX_RADIUS} metres"));
        }
        if position.is_none() && query.latitude.is_none() && query.longitude.is_none() {
            validation.reject("radius", "is given with latitude and longitude");
        }
    }
    let has_address = street.is_some() || city.is_some() || zip.is_some();
    if descriptor.is_none() && position.is_none() && !has_address {
        if street_no.is_some() || country.is_some() {
            validation.reject("street", "an address needs a street, a city or a zip besides streetNo and countryCode");
        } else if validation.is_empty() {
            validation.reject(
                "merchid",
                "give merchid (the descriptor a statement prints), an address (street, streetNo, city, zip, \
                 countryCode) or a position (latitude, longitude, radius)",
            );
        }
    }
    validation.finish(())?;
    let limit = usize::try_from(limit).unwrap_or(10);
    let query = if let Some(text) = descriptor {
        Query::Descriptor { text, exact: query.match_type == Some(MatchType::Exact) }
    } else if let Some((latitude, longitude)) = position {
        Query::Position { latitude, longitude, radius }
    } else {
        Query::Address(AddressQuery { street, street_no, city, zip, country })
    };
    Ok((query, limit))
}

pub fn response(found: Vec<Found>) -> DiscoverResponse {
    let merchants: Vec<DiscoveredMerchant> = found.into_iter().map(discovered).collect();
    let message = format!("{} merchant(s) found", merchants.len());
    DiscoverResponse { result: DiscoverResult { merchants, message } }
}

/// An item of `result.merchants`, with the spec's names and types.
pub fn discovered(found: Found) -> DiscoveredMerchant {
    let merchant = found.merchant;
    let mcc_code = merchant.mcc.clone();
    let conf_score = (found.score * 100.0).round().clamp(0.0, 100.0);
    let confidence = found.confidence.unwrap_or_else(|| Confidence::of_score(conf_score as u8));
    let (brand_id, website, logo_url) = match found.brand {
        Some(brand) => (brand.id.clone(), brand.website.clone(), brand.logo_url()),
        None => {
            let id = brands::brand_id(&brands::brand_key(&merchant.dba_name));
            let logo_url = brands::logo_url(&id);
            (id, None, logo_url)
        }
    };
    let (address, location_id) = (merchant.postal_address(), merchant.location_id());
    DiscoveredMerchant {
        brand_id,
        website,
        logo_url,
        confidence,
        reasons: found.reasons,
        address,
        category: mcc::label(&mcc_code),
        city: merchant.city,
        comment: found.distance.map_or(0.0, f64::round),
        conf_score,
        country_name: country_name(&merchant.country),
        country_code: merchant.country,
        dba_name: merchant.dba_name,
        location_id,
        phone_number: merchant.phone,
        zip: merchant.zip.chars().filter(char::is_ascii_digit).collect::<String>().parse().unwrap_or(0),
        descriptor: merchant.descriptor,
    }
}

/// The country's common English name (`United States`, not `United States Of America`).
fn country_name(alpha3: &str) -> String {
    match alpha3 {
        "USA" => "United States".to_owned(),
        "GBR" => "United Kingdom".to_owned(),
        _ => countries::name(alpha3).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::places;

    fn query(pairs: &[(&str, &str)]) -> DiscoverQuery {
        let encoded = serde_urlencoded::to_string(pairs).expect("encodes");
        serde_urlencoded::from_str(&encoded).expect("parses")
    }

    fn fields(error: ApiError) -> Vec<String> {
        match error {
            ApiError::InvalidRequest { details, .. } => details.into_iter().map(|detail| detail.field).collect(),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn a_query_needs_a_criterion() {
        assert_eq!(fields(checked_query(&query(&[])).expect_err("none")), ["merchid"]);
        assert_eq!(fields(checked_query(&query(&[("countryCode", "USA")])).expect_err("country only")), ["street"]);
        assert_eq!(fields(checked_query(&query(&[("merchid", "  ")])).expect_err("blank")), ["merchid"]);
    }

    #[test]
    fn bad_values_are_named() {
        let error = checked_query(&query(&[("latitude", "91"), ("longitude", "0"), ("limit", "51")])).expect_err("bad");
        assert_eq!(fields(error), ["limit", "latitude"]);
        let error = checked_query(&query(&[("latitude", "10")])).expect_err("half a position");
        assert_eq!(fields(error), ["longitude"]);
        let error =
            checked_query(&query(&[("latitude", "10"), ("longitude", "10"), ("radius", "0")])).expect_err("radius");
        assert_eq!(fields(error), ["radius"]);
        let error = checked_query(&query(&[("city", "Austin"), ("countryCode", "XYZ")])).expect_err("country");
        assert_eq!(fields(error), ["countryCode"]);
    }

    #[test]
    fn queries_become_searches() {
        let (search, limit) = checked_query(&query(&[("merchId", "SQ *BLUE"), ("matchType", "exact")])).expect("valid");
        assert!(matches!(search, Query::Descriptor { exact: true, .. }));
        assert_eq!(limit, 10);
        let (search, limit) =
            checked_query(&query(&[("latitude", "40.7"), ("longitude", "-74"), ("limit", "50")])).expect("valid");
        assert!(matches!(search, Query::Position { radius, .. } if (radius - DEFAULT_RADIUS).abs() < f64::EPSILON));
        assert_eq!(limit, 50);
        let (search, _) = checked_query(&query(&[("city", "austin"), ("countryCode", "usa")])).expect("valid");
        assert!(matches!(search, Query::Address(AddressQuery { country: Some(ref country), .. }) if country == "USA"));
    }

    #[test]
    fn addresses_are_written_as_each_country_does() {
        assert_eq!(
            places::postal_address("Main St", "12", "Austin", Some("TX"), "78701", "USA"),
            "12 Main St, Austin, TX 78701"
        );
        assert_eq!(
            places::postal_address("Hauptstraße", "3", "Berlin", Some("BE"), "10115", "DEU"),
            "Hauptstraße 3, 10115 Berlin"
        );
        assert_eq!(country_name("USA"), "United States");
        assert_eq!(country_name("DEU"), "Germany");
    }
}
