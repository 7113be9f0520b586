//! Merchant lookup ("Merchant ID"): by statement descriptor, by address, by position; the
//! lookups of the session are kept, newest first.

use chrono::Utc;
use subscriber_client::AddressQuery;

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::views::{Lookup, LookupQuery};

/// Lookups kept for the session.
pub const RECENT_LOOKUPS: usize = 12;

impl Dashboard {
    /// Looks merchants up and keeps the lookup among the session's recent ones.
    pub async fn lookup(&self, query: LookupQuery) -> Result<Lookup, CommandError> {
        let query = tidy(query)?;
        let client = self.client().await?;
        let result = match &query {
            LookupQuery::Descriptor { descriptor } => client.discover_by_descriptor(descriptor).await?,
            LookupQuery::Address { street, street_no, city, zip, country_code } => {
                let given = |text: &String| Some(text.clone()).filter(|text| !text.is_empty());
                client
                    .discover_by_address(&AddressQuery {
                        street: given(street),
                        street_no: given(street_no),
                        city: given(city),
                        zip: given(zip),
                        country_code: given(country_code),
                    })
                    .await?
            }
            LookupQuery::Position { latitude, longitude, radius } => {
                client.discover_by_position(*latitude, *longitude, *radius).await?
            }
        };
        let lookup = Lookup { label: label(&query), query, at: Utc::now(), result };
        if let Some(session) = self.state.lock().await.session.as_mut() {
            session.lookups.retain(|earlier| earlier.query != lookup.query);
            session.lookups.insert(0, lookup.clone());
            session.lookups.truncate(RECENT_LOOKUPS);
        }
        Ok(lookup)
    }

    /// This session's lookups, newest first.
    pub async fn recent_lookups(&self) -> Vec<Lookup> {
        self.state.lock().await.session.as_ref().map(|session| session.lookups.clone()).unwrap_or_default()
    }
}

/// Trims what was typed and refuses an empty lookup with the field to fill in.
fn tidy(query: LookupQuery) -> Result<LookupQuery, CommandError> {
    match query {
        LookupQuery::Descriptor { descriptor } => {
            let descriptor = descriptor.trim().to_owned();
            if descriptor.is_empty() {
                return Err(CommandError::invalid_input("descriptor", "type what the card statement prints"));
            }
            Ok(LookupQuery::Descriptor { descriptor })
        }
        LookupQuery::Address { street, street_no, city, zip, country_code } => {
            let trim = |text: String| text.trim().to_owned();
            let address = LookupQuery::Address {
                street: trim(street),
                street_no: trim(street_no),
                city: trim(city),
                zip: trim(zip),
                country_code: trim(country_code).to_ascii_uppercase(),
            };
            if let LookupQuery::Address { street, street_no, city, zip, country_code } = &address
                && [street, street_no, city, zip, country_code].iter().all(|field| field.is_empty())
            {
                return Err(CommandError::invalid_input("street", "give at least a street, a city or a postcode"));
            }
            Ok(address)
        }
        LookupQuery::Position { latitude, longitude, radius } => {
            if !(-90.0..=90.0).contains(&latitude) {
                return Err(CommandError::invalid_input("latitude", "must be from -90 to 90"));
            }
            if !(-180.0..=180.0).contains(&longitude) {
                return Err(CommandError::invalid_input("longitude", "must be from -180 to 180"));
            }
            if radius.is_some_and(|radius| !(radius.is_finite() && radius > 0.0)) {
                return Err(CommandError::invalid_input("radius", "must be a positive number of metres"));
            }
            Ok(LookupQuery::Position { latitude, longitude, radius })
        }
    }
}

/// The query in words, for the list of recent lookups.
fn label(query: &LookupQuery) -> String {
    match query {
        LookupQuery::Descriptor { descriptor } => descriptor.clone(),
        LookupQuery::Address { street, street_no, city, zip, country_code } => {
            let parts = [street_no.as_str(), street.as_str()];
            let street = parts.iter().filter(|part| !part.is_empty()).copied().collect::<Vec<_>>().join(" ");
            [street.as_str(), city, zip, country_code]
                .iter()
                .filter(|part| !part.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        }
        LookupQuery::Position { latitude, longitude, radius } => match radius {
            Some(radius) => format!("{latitude:.5}, {longitude:.5} ({radius:.0} m)"),
            None => format!("{latitude:.5}, {longitude:.5}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_tidied_and_named() {
        let address = tidy(LookupQuery::Address {
            street: " Valencia St ".into(),
            street_no: "1022".into(),
            city: String::new(),
            zip: "94110".into(),
            country_code: "usa".into(),
        })
        .expect("an address");
        assert_eq!(label(&address), "1022 Valencia St, 94110, USA");
        let position = LookupQuery::Position { latitude: 37.7557, longitude: -122.4211, radius: Some(200.0) };
        assert_eq!(label(&position), "37.75570, -122.42110 (200 m)");
        let empty = tidy(LookupQuery::Descriptor { descriptor: "  ".into() }).expect_err("empty");
        assert_eq!(empty.details[0].field, "descriptor");
        let far =
            tidy(LookupQuery::Position { latitude: 91.0, longitude: 0.0, radius: None }).expect_err("off the map");
        assert_eq!(far.details[0].field, "latitude");
    }
}
