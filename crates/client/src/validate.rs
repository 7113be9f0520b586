//! Checks the client makes before sending, for inputs that could never succeed: the service's
//! own rules (`subscriber_protocol::rules`), so a request that passes here is not refused for its
//! form. The service stays the judge of what needs its data (test cards, its clock, ownership).

use chrono::Utc;
use subscriber_protocol::rules::{self, Violations, cards, merchants, persons};
use subscriber_protocol::{
    AuthenticatePersonRequest, EnrollCardRequest, EnrollMerchantRequest, LocationInput, OnboardPersonRequest,
    VerifyPersonRequest,
};

use crate::error::{Error, Result};

pub use subscriber_protocol::rules::cards::luhn_valid;

/// The first problem found, as the service would name it.
fn first<T>(checked: std::result::Result<T, Violations>) -> Result<T> {
    checked.map_err(|violations| match violations.into_details().into_iter().next() {
        Some(detail) => Error::invalid(&detail.field, detail.message),
        None => Error::invalid("body", "is not valid"),
    })
}

fn checked<T>(check: impl FnOnce(&mut Violations) -> T) -> Result<T> {
    let mut violations = Violations::new();
    let value = check(&mut violations);
    first(violations.finish(value))
}

/// A batch to enrich by the service's rules.
pub fn enrich_request(request: &subscriber_protocol::EnrichRequest) -> Result<()> {
    first(rules::enrichment::enrich_request(request)).map(drop)
}

/// A typed id the service could have given: ids are positive.
pub fn positive_id(field: &str, id: impl Into<i64>) -> Result<()> {
    let id = id.into();
    if id <= 0 {
        return Err(Error::invalid(field, format!("must be a positive id, not {id}")));
    }
    Ok(())
}

/// The card by the service's rules, its expiry judged on this machine's date.
pub fn card(request: &EnrollCardRequest) -> Result<()> {
    checked(|violations| cards::card(&request.into(), Utc::now().date_naive(), violations)).map(drop)
}

/// `clientUserId` and `metadata` of a creating request, as far as they are given.
pub fn labels(client_user_id: Option<&str>, metadata: Option<&subscriber_protocol::Metadata>) -> Result<()> {
    checked(|violations| rules::labels::labels(violations, client_user_id, metadata)).map(drop)
}

/// A `PATCH`'s metadata pairs, each within its limits.
pub fn metadata_patch(patch: &subscriber_protocol::Metadata) -> Result<()> {
    checked(|violations| rules::labels::merged(violations, &subscriber_protocol::Metadata::new(), patch)).map(drop)
}

/// A `clientUserId` in a path.
pub fn client_user_id(id: &str) -> Result<()> {
    checked(|violations| rules::labels::client_user_id(violations, "clientUserId", id)).map(drop)
}

/// Required text: not blank, at most `max` characters, no control characters.
pub fn text(field: &str, value: &str, max: usize) -> Result<()> {
    checked(|violations| rules::required_text(violations, field, Some(value), max)).map(drop)
}

/// An ISO 3166-1 alpha-3 code of a country that exists.
pub fn country_code(field: &str, code: &str) -> Result<()> {
    checked(|violations| rules::country_alpha3(violations, field, code)).map(drop)
}

/// The hosted pages' branding of `PATCH /subscriber`, as far as it is given.
pub fn branding(request: &subscriber_protocol::UpdateSubscriberRequest) -> Result<()> {
    checked(|violations| {
        if let Some(name) = &request.display_name {
            rules::hosted::display_name(violations, name);
        }
        if let Some(color) = &request.brand_color {
            rules::hosted::brand_color(violations, color);
        }
    })
}

pub fn email(field: &str, email: &str) -> Result<()> {
    checked(|violations| rules::email(violations, field, email)).map(drop)
}

pub fn merchant(request: &EnrollMerchantRequest) -> Result<()> {
    first(merchants::merchant(request.into())).map(drop)
}

pub fn location(location: &LocationInput) -> Result<()> {
    first(merchants::location(location.into())).map(drop)
}

pub fn position(latitude_field: &str, longitude_field: &str, latitude: f64, longitude: f64) -> Result<()> {
    if !(-90.0..=90.0).contains(&latitude) {
        return Err(Error::invalid(latitude_field, format!("must be from -90 to 90, not {latitude}")));
    }
    if !(-180.0..=180.0).contains(&longitude) {
        return Err(Error::invalid(longitude_field, format!("must be from -180 to 180, not {longitude}")));
    }
    Ok(())
}

pub fn onboard_person(request: &OnboardPersonRequest) -> Result<()> {
    first(persons::person(request)).map(drop)
}

/// The personal information by the service's rules (age judged on this machine's date).
pub fn authenticate_person(request: &AuthenticatePersonRequest) -> Result<()> {
    positive_id("personId", request.person_id)?;
    first(persons::information(request, Utc::now().date_naive())).map(drop)
}

pub fn verify_person(request: &VerifyPersonRequest) -> Result<()> {
    positive_id("personId", request.person_id)?;
    if request.answers.is_empty() {
        return Err(Error::invalid("answers", "must hold one answer per question"));
    }
    Ok(())
}

pub fn page_limit(limit: Option<u32>, max: u32) -> Result<()> {
    checked(|violations| rules::page_limit(violations, limit, max, max)).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use subscriber_protocol::Pan;

    fn card_request(pan: &str, exp_month: u32, exp_year: u32) -> EnrollCardRequest {
        EnrollCardRequest {
            pan: Pan::new(pan),
            first_name: "Ada".to_owned(),
            last_name: "Lovelace".to_owned(),
            exp_month,
            exp_year,
            country_code: "USA".to_owned(),
            client_user_id: None,
            metadata: None,
        }
    }

    fn field_of(result: Result<()>) -> String {
        match result {
            Err(Error::InvalidInput { field, .. }) => field,
            other => panic!("expected invalid input, got {other:?}"),
        }
    }

    #[test]
    fn cards_are_checked_before_sending() {
        assert!(card(&card_request("4242 4242 4242 4242", 12, 2030)).is_ok());
        assert!(card(&card_request("4242-4242-4242-4242", 12, 30)).is_ok());
        assert_eq!(field_of(card(&card_request("424242424242424", 12, 2030))), "pan");
        assert_eq!(field_of(card(&card_request("4242424242424241", 12, 2030))), "pan");
        assert_eq!(field_of(card(&card_request("4242424242424242", 13, 2099))), "expMonth");
        assert_eq!(field_of(card(&card_request("4242424242424242", 0, 2099))), "expMonth");
        assert_eq!(field_of(card(&card_request("4242424242424242", 12, 123))), "expYear");
        assert_eq!(field_of(card(&card_request("4242424242424242", 1, 2001))), "expYear");
        assert_eq!(field_of(card(&card_request("4242424242424242", 12, 2099))), "expYear", "more than 20 years away");
        let mut long_name = card_request("4242424242424242", 12, 2030);
        long_name.first_name = "A".repeat(65);
        assert_eq!(field_of(card(&long_name)), "firstName");
        let mut country = card_request("4242424242424242", 12, 2030);
        country.country_code = "US".to_owned();
        assert_eq!(field_of(card(&country)), "countryCode");
    }

    #[test]
    fn locations_need_both_coordinates_in_range() {
        let mut input = LocationInput {
            country_code: "USA".to_owned(),
            street: "Market St".to_owned(),
            street_no: "1".to_owned(),
            city: "San Francisco".to_owned(),
            zip: "94103".to_owned(),
            latitude: Some(37.7),
            longitude: None,
        };
        assert_eq!(field_of(location(&input)), "location.longitude");
        input.longitude = Some(-190.0);
        assert_eq!(field_of(location(&input)), "location.longitude");
        input.longitude = Some(-122.4);
        assert!(location(&input).is_ok());
        input.zip = " ".to_owned();
        assert_eq!(field_of(location(&input)), "location.zip");
    }
}
