//! The caller's merchant: enrollment, record, categories, locations, transactions, stream.

use subscriber_protocol::{
    CreateLocationRequest, CreateLocationResponse, EnrollMerchantRequest, EnrollMerchantResponse, Location, LocationId,
    LocationRemoved, Merchant, MerchantCategory, MerchantCategoryList, MerchantId, MerchantTransaction,
    MerchantTransactionPage, MerchantTransactionQuery, UpdateLocationRequest,
};

use crate::client::Client;
use crate::error::Result;
use crate::paging::Paged;
use crate::routes;
use crate::sse::TransactionStream;
use crate::transport::Call;
use crate::validate;

impl Client {
    /// `POST /merchant`: enrolls the caller as a merchant (one per subscriber; a second is 409
    /// with the existing `merchant_id` in the error).
    pub async fn enroll_merchant(&self, merchant: &EnrollMerchantRequest) -> Result<EnrollMerchantResponse> {
        validate::merchant(merchant)?;
        self.inner.call(Call::new(&routes::ENROLL_MERCHANT, "/merchant").json(merchant)?).await
    }

    /// `GET /merchant`: the caller's merchant with its locations.
    pub async fn merchant(&self) -> Result<Merchant> {
        self.inner.call(Call::new(&routes::MERCHANT, "/merchant")).await
    }

    /// `GET /merchant/categories`: the merchant category codes the service knows.
    pub async fn merchant_categories(&self) -> Result<Vec<MerchantCategory>> {
        let list: MerchantCategoryList =
            self.inner.call(Call::new(&routes::MERCHANT_CATEGORIES, "/merchant/categories")).await?;
        Ok(list.categories)
    }

    /// `POST /merchant/location`: a location of the caller's merchant. Without coordinates the
    /// service derives them from the address where it can.
    pub async fn create_location(&self, request: &CreateLocationRequest) -> Result<CreateLocationResponse> {
        validate::location(&request.location)?;
        validate::labels(None, request.metadata.as_ref())?;
        self.inner.call(Call::new(&routes::CREATE_LOCATION, "/merchant/location").json(request)?).await
    }

    /// `GET /merchant/location/{location_id}`: one of the caller's merchant's locations.
    pub async fn get_location(&self, location_id: LocationId) -> Result<Location> {
        self.inner.call(Call::new(&routes::LOCATION, format!("/merchant/location/{location_id}"))).await
    }

    /// `PATCH /merchant/location/{location_id}`: changes the fields set in `changes` (checked by
    /// the rules of a new location); without coordinates the service derives them again. Its
    /// `metadata` pairs merge with those set (a key with "" is removed); sent alone, the address
    /// stays as it is.
    pub async fn update_location(&self, location_id: LocationId, request: &UpdateLocationRequest) -> Result<Location> {
        if let Some(metadata) = &request.metadata {
            validate::metadata_patch(metadata)?;
        }
        let call = Call::new(&routes::UPDATE_LOCATION, format!("/merchant/location/{location_id}")).json(request)?;
        self.inner.call(call).await
    }

    /// `DELETE /merchant/location/{location_id}`: removes the location (its past sales keep their
    /// address; discovery no longer finds it).
    pub async fn remove_location(&self, location_id: LocationId) -> Result<LocationRemoved> {
        self.inner.call(Call::new(&routes::REMOVE_LOCATION, format!("/merchant/location/{location_id}"))).await
    }

    /// `GET /merchant/{merchant_id}/transactions`, newest first, across all locations; filter
    /// with `.location_id(id)`, `.from(date)`, `.to(date)`.
    pub fn merchant_transactions(
        &self,
        merchant_id: MerchantId,
    ) -> Paged<MerchantTransactionQuery, MerchantTransactionPage> {
        Paged::new(
            self.clone(),
            &routes::MERCHANT_TRANSACTIONS,
            format!("/merchant/{merchant_id}/transactions"),
            MerchantTransactionQuery::default(),
        )
    }

    /// `GET /merchant/{merchant_id}/transactions/stream`: purchases at the merchant as they
    /// happen. Reconnects by itself.
    pub fn merchant_transaction_stream(&self, merchant_id: MerchantId) -> TransactionStream<MerchantTransaction> {
        self.merchant_transaction_stream_after(merchant_id, None)
    }

    /// Like [`merchant_transaction_stream`](Self::merchant_transaction_stream), resuming after
    /// the event with this id.
    pub fn merchant_transaction_stream_after(
        &self,
        merchant_id: MerchantId,
        last_event_id: Option<String>,
    ) -> TransactionStream<MerchantTransaction> {
        TransactionStream::open(
            self,
            &routes::MERCHANT_TRANSACTION_STREAM,
            format!("/merchant/{merchant_id}/transactions/stream"),
            last_event_id,
        )
    }
}
