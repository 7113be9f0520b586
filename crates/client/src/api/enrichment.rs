//! Enriched transactions: counterparties, intermediaries, channel and category of up to 100
//! descriptors at a time, the category taxonomy, and brand logos.

use reqwest::header::ETAG;
use subscriber_protocol::{CategoriesResponse, EnrichRequest, EnrichResponse, EnrichedTransaction};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::routes;
use crate::transport::Call;
use crate::validate;

/// A brand's logo as the service draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrandLogo {
    /// The SVG document.
    pub svg: String,
    /// Its `ETag`, to send as `If-None-Match` when caching it.
    pub etag: Option<String>,
}

impl Client {
    /// `POST /transactions/enrich`: each transaction's counterparty, intermediaries, channel,
    /// personal finance category and location, in the order sent (1 to 100 at a time).
    pub async fn enrich_transactions(&self, request: &EnrichRequest) -> Result<Vec<EnrichedTransaction>> {
        validate::enrich_request(request)?;
        let call = Call::new(&routes::ENRICH_TRANSACTIONS, "/transactions/enrich").json(request)?;
        let response: EnrichResponse = self.inner.call(call).await?;
        Ok(response.enriched)
    }

    /// `GET /transactions/categories`: the personal finance categories, primary and detailed.
    pub async fn transaction_categories(&self) -> Result<CategoriesResponse> {
        self.inner.call(Call::new(&routes::TRANSACTION_CATEGORIES, "/transactions/categories")).await
    }

    /// `GET /brands/{brandId}/logo.svg`: a counterparty's logo (needs no token).
    pub async fn brand_logo(&self, brand_id: &str) -> Result<BrandLogo> {
        let well_formed = brand_id.len() == 20
            && brand_id.starts_with("brd_")
            && brand_id[4..].bytes().all(|byte| byte.is_ascii_hexdigit());
        if !well_formed {
            return Err(Error::invalid("brandId", "must be a brand id such as brd_3c1f0e9a6b2d4c57"));
        }
        let call = Call::new(&routes::BRAND_LOGO, format!("/brands/{brand_id}/logo.svg"));
        let answer = self.inner.execute(&call).await?;
        let svg = String::from_utf8(answer.body.to_vec()).map_err(|_| Error::invalid("logo", "is not UTF-8 text"))?;
        let etag = answer.headers.get(ETAG).and_then(|value| value.to_str().ok()).map(str::to_owned);
        Ok(BrandLogo { svg, etag })
    }
}
