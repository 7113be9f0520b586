//! The subscriber's merchant: enrollment with a searchable category picker, locations, the
//! transactions across them (loaded page by page), CSV export.

use std::path::Path;

use chrono::Utc;
use subscriber_protocol::rules::{self, Violations};
use subscriber_protocol::{
    CreateLocationRequest, CreateLocationResponse, EnrollMerchantRequest, Location, LocationId, LocationInput,
    LocationRemoved, Merchant, MerchantCategory, MerchantId, MerchantTransaction, TransactionId, UpdateLocationRequest,
};
use subscriber_server::directory::descriptor;

use crate::app::Dashboard;
use crate::cards::{PAGE_LIMIT, load_pages};
use crate::error::{CommandError, codes};
use crate::export;
use crate::performance::{self, MerchantSales, SalesQuery};
use crate::views::{Batch, Country, ExportResult, FieldErrors, StatementDescriptor};

/// Most categories the picker lists at a time.
pub const CATEGORY_MATCHES: usize = 40;

impl Dashboard {
    /// The caller's merchant, or `None` before enrolling.
    pub async fn merchant(&self) -> Result<Option<Merchant>, CommandError> {
        match self.client().await?.merchant().await {
            Ok(merchant) => Ok(Some(merchant)),
            Err(error) if error.status().is_some_and(|status| status.as_u16() == 404) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    async fn merchant_id(&self) -> Result<MerchantId, CommandError> {
        self.merchant().await?.map(|merchant| merchant.merchant_id).ok_or_else(|| {
            CommandError::new(codes::NO_MERCHANT, "enroll as a merchant first: the merchant screen has the form")
        })
    }

    /// The service's merchant categories (read once per session).
    pub async fn categories(&self) -> Result<Vec<MerchantCategory>, CommandError> {
        if let Some(categories) =
            self.state.lock().await.session.as_ref().and_then(|session| session.categories.clone())
        {
            return Ok(categories);
        }
        let categories = self.client().await?.merchant_categories().await?;
        if let Some(session) = self.state.lock().await.session.as_mut() {
            session.categories = Some(categories.clone());
        }
        Ok(categories)
    }

    /// Categories matching what was typed: by code (`58`, `5812`) or by words of the
    /// description (`rest`, `eating places`), best first.
    pub async fn search_categories(&self, query: &str) -> Result<Vec<MerchantCategory>, CommandError> {
        Ok(rank_categories(&self.categories().await?, query, CATEGORY_MATCHES))
    }

    /// The countries the service accepts, by name: the choices of a country field.
    pub fn countries(&self) -> Vec<Country> {
        rules::countries::all()
            .into_iter()
            .map(|(code, name)| Country { code: code.to_owned(), name: name.to_owned() })
            .collect()
    }

    /// The merchant form checked by the service's own rules: every field error at once.
    pub fn check_merchant(&self, merchant: &EnrollMerchantRequest) -> FieldErrors {
        rules::merchants::merchant(merchant.into()).err().map(Violations::into_details).unwrap_or_default()
    }

    /// Enrolls the subscriber as a merchant and returns it as the service now has it.
    pub async fn enroll_merchant(&self, merchant: EnrollMerchantRequest) -> Result<Merchant, CommandError> {
        let client = self.client().await?;
        client.enroll_merchant(&merchant).await?;
        Ok(client.merchant().await?)
    }

    /// The location form checked by the service's own rules (fields named `location.street`...).
    pub fn check_location(&self, location: &LocationInput) -> FieldErrors {
        rules::merchants::location(location.into()).err().map(Violations::into_details).unwrap_or_default()
    }

    /// What card statements print for purchases at a location of `merchant_name` in `city`, as
    /// the service writes it: the name and the city in capitals, cut to the statement's width.
    pub fn statement_descriptor(&self, merchant_name: &str, city: &str) -> StatementDescriptor {
        statement_descriptor(merchant_name, city)
    }

    /// Adds a location; without coordinates the service derives them where it can.
    pub async fn add_location(&self, location: LocationInput) -> Result<CreateLocationResponse, CommandError> {
        Ok(self.client().await?.create_location(&CreateLocationRequest::at(location)).await?)
    }

    /// Corrects a location's address (the fields sent; without coordinates the service finds
    /// them again from the new address); the location as it is then.
    pub async fn update_location(
        &self,
        location_id: LocationId,
        change: UpdateLocationRequest,
    ) -> Result<Location, CommandError> {
        Ok(self.client().await?.update_location(location_id, &change).await?)
    }

    /// Removes a location: discovery no longer finds it; its past sales keep their address.
    pub async fn remove_location(&self, location_id: LocationId) -> Result<LocationRemoved, CommandError> {
        Ok(self.client().await?.remove_location(location_id).await?)
    }

    /// Every transaction at the merchant's locations, newest first, page by page.
    pub async fn load_merchant_transactions(
        &self,
        on_batch: impl FnMut(Batch<MerchantTransaction>) -> bool,
    ) -> Result<u32, CommandError> {
        let merchant_id = self.merchant_id().await?;
        let client = self.client().await?;
        let rows = load_pages(|| client.merchant_transactions(merchant_id), on_batch).await?;
        let count = u32::try_from(rows.len()).unwrap_or(u32::MAX);
        self.exports.lock().merchant.replace(rows);
        Ok(count)
    }

    /// Keeps a live arrival for export.
    pub fn remember_merchant_transaction(&self, transaction: MerchantTransaction) {
        self.exports.lock().merchant.upsert(transaction);
    }

    /// Writes the listed merchant transactions (as the table shows them) to `path`.
    pub fn export_merchant_csv(
        &self,
        transaction_ids: &[TransactionId],
        path: &Path,
    ) -> Result<ExportResult, CommandError> {
        let rows = self.exports.lock().merchant.select(transaction_ids);
        export::write_csv(path, &rows)
    }

    /// The merchant's sales over the days `query` asks for, against as many days before them, in
    /// total and per location (each of its locations, those without a sale too).
    pub async fn merchant_sales(&self, query: SalesQuery) -> Result<MerchantSales, CommandError> {
        let merchant = self.merchant().await?.ok_or_else(|| {
            CommandError::new(codes::NO_MERCHANT, "enroll as a merchant first: the merchant screen has the form")
        })?;
        let client = self.client().await?;
        let today = Utc::now().date_naive();
        let request = || client.merchant_transactions(merchant.merchant_id).limit(PAGE_LIMIT);
        let rows = match query.from {
            // Without a start, since the first sale: everything.
            None => request().collect_all().await?,
            Some(_) => {
                let period = performance::sales_period(query, today, None);
                request().from(period.previous_from.to_string()).to(period.to.to_string()).collect_all().await?
            }
        };
        let first_sale = rows.iter().map(|row| row.created_at.date_naive()).min();
        let period = performance::sales_period(query, today, first_sale);
        let locations: Vec<LocationId> = merchant.locations.iter().map(|location| location.location_id).collect();
        Ok(performance::merchant_sales(&rows, period, &locations))
    }

    /// The merchant's id, for its real-time stream.
    pub async fn merchant_stream_id(&self) -> Result<MerchantId, CommandError> {
        self.merchant_id().await
    }
}

/// The descriptor of a location of `merchant_name` in `city` (see [`Dashboard::statement_descriptor`]).
pub fn statement_descriptor(merchant_name: &str, city: &str) -> StatementDescriptor {
    let whole = format!("{} {}", descriptor::statement_text(merchant_name), descriptor::statement_text(city));
    let text = descriptor::cut(whole.clone());
    StatementDescriptor {
        cut: text.len() < whole.trim().len(),
        text,
        width: u32::try_from(descriptor::DESCRIPTOR_WIDTH).unwrap_or(22),
    }
}

/// Ranks categories for the picker: the code itself, codes starting with the digits typed,
/// descriptions with a word starting with each word typed, then descriptions containing it.
pub fn rank_categories(categories: &[MerchantCategory], query: &str, limit: usize) -> Vec<MerchantCategory> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return categories.iter().take(limit).cloned().collect();
    }
    let words: Vec<&str> = query.split_whitespace().collect();
    let mut ranked: Vec<(u8, &MerchantCategory)> = categories
        .iter()
        .filter_map(|category| {
            let description = category.description.to_lowercase();
            let description_words: Vec<&str> =
                description.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).collect();
            let rank = if category.code == query {
                0
            } else if category.code.starts_with(&query) {
                1
            } else if words.iter().all(|word| description_words.iter().any(|candidate| candidate.starts_with(word))) {
                2
            } else if description.contains(&query) {
                3
            } else {
                return None;
            };
            Some((rank, category))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.code.cmp(&b.1.code)));
    ranked.into_iter().take(limit).map(|(_, category)| category.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn category(code: &str, description: &str) -> MerchantCategory {
        MerchantCategory { code: code.to_owned(), description: description.to_owned() }
    }

    #[test]
    fn statements_print_the_name_and_city_cut_to_22_characters() {
        let short = statement_descriptor("Blue Heron", "Oakland");
        assert_eq!((short.text.as_str(), short.width, short.cut), ("BLUE HERON OAKLAND", 22, false));
        let long = statement_descriptor("Blue Heron Coffee", "San Francisco");
        assert_eq!((long.text.as_str(), long.cut), ("BLUE HERON COFFEE SAN", true));
        assert!(long.text.len() <= 22);
    }

    #[test]
    fn categories_are_found_by_code_and_by_words() {
        let all = vec![
            category("5411", "Grocery Stores, Supermarkets"),
            category("5812", "Eating Places, Restaurants"),
            category("5813", "Drinking Places (Alcoholic Beverages)"),
            category("5814", "Fast Food Restaurants"),
            category("8812", "Restaurant Supply"),
        ];
        let codes = |query: &str| rank_categories(&all, query, 10).into_iter().map(|c| c.code).collect::<Vec<_>>();
        assert_eq!(codes("5812"), ["5812"]);
        assert_eq!(codes("581"), ["5812", "5813", "5814"]);
        assert_eq!(codes("rest"), ["5812", "5814", "8812"]);
        assert_eq!(codes("fast rest"), ["5814"]);
        assert_eq!(codes("EATING places"), ["5812"]);
        assert_eq!(codes("permarket"), ["5411"], "inside a word, after the word matches");
        assert!(codes("zzz").is_empty());
        assert_eq!(codes("").len(), 5);
        assert_eq!(rank_categories(&all, "", 2).len(), 2);
    }
}
