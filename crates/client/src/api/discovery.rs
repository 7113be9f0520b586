//! Merchant discovery ("Merchant ID"): by statement descriptor, by address, by position.

use subscriber_protocol::{DiscoverQuery, DiscoverResponse, DiscoverResult};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::routes;
use crate::transport::Call;
use crate::validate;

/// Most results discovery returns per call.
pub const MAX_DISCOVER_LIMIT: u32 = 50;

/// An address to discover merchants at; give the fields you know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressQuery {
    pub street: Option<String>,
    pub street_no: Option<String>,
    pub city: Option<String>,
    pub zip: Option<String>,
    /// ISO 3166-1 alpha-3.
    pub country_code: Option<String>,
}

impl Client {
    /// `GET /merchant/discover` with any query: descriptor (`merchid`), `match_type`, `limit`,
    /// address fields, or position.
    pub async fn discover(&self, query: &DiscoverQuery) -> Result<DiscoverResult> {
        validate::page_limit(query.limit, MAX_DISCOVER_LIMIT)?;
        if let Some(descriptor) = &query.merchid {
            validate::text("merchid", descriptor, 200)?;
        }
        match (query.latitude, query.longitude) {
            (Some(latitude), Some(longitude)) => validate::position("latitude", "longitude", latitude, longitude)?,
            (None, None) => {}
            _ => return Err(Error::invalid("latitude", "latitude and longitude go together")),
        }
        if let Some(radius) = query.radius
            && !(radius.is_finite() && radius > 0.0)
        {
            return Err(Error::invalid("radius", format!("must be a positive number of metres, not {radius}")));
        }
        if let Some(code) = &query.country_code {
            validate::country_code("countryCode", code)?;
        }
        let call = Call::new(&routes::DISCOVER, "/merchant/discover").query(query)?;
        let response: DiscoverResponse = self.inner.call(call).await?;
        Ok(response.result)
    }

    /// The merchants a card statement's descriptor (`SQ *BLUE BOTTLE COFFEE`) stands for, best
    /// match first. No match is an empty list, not an error.
    pub async fn discover_by_descriptor(&self, descriptor: &str) -> Result<DiscoverResult> {
        self.discover(&DiscoverQuery { merchid: Some(descriptor.to_owned()), ..DiscoverQuery::default() }).await
    }

    /// The merchants at an address.
    pub async fn discover_by_address(&self, address: &AddressQuery) -> Result<DiscoverResult> {
        let given = [&address.street, &address.street_no, &address.city, &address.zip, &address.country_code];
        if given.iter().all(|field| field.as_deref().is_none_or(|text| text.trim().is_empty())) {
            return Err(Error::invalid("address", "give at least one of street, streetNo, city, zip, countryCode"));
        }
        self.discover(&DiscoverQuery {
            street: address.street.clone(),
            street_no: address.street_no.clone(),
            city: address.city.clone(),
            zip: address.zip.clone(),
            country_code: address.country_code.clone(),
            ..DiscoverQuery::default()
        })
        .await
    }

    /// The merchants within `radius_metres` (the service's default when `None`) of a position.
    pub async fn discover_by_position(
        &self,
        latitude: f64,
        longitude: f64,
        radius_metres: Option<f64>,
    ) -> Result<DiscoverResult> {
        self.discover(&DiscoverQuery {
            latitude: Some(latitude),
            longitude: Some(longitude),
            radius: radius_metres,
            ..DiscoverQuery::default()
        })
        .await
    }
}
