//! Checks the client makes before sending, for inputs that could never succeed. They mirror the
//! contract's rules; the service stays the judge of everything else (test cards, expiry
//! against its clock, country lists).

use chrono::{Datelike, NaiveDate, Utc};
use subscriber_protocol::{
    AuthenticatePersonRequest, EnrollCardRequest, EnrollMerchantRequest, LocationInput, OnboardPersonRequest,
    VerifyPersonRequest,
};

use crate::error::{Error, Result};

const MAX_NAME_LENGTH: usize = 64;
const MAX_EMAIL_LENGTH: usize = 254;
const MAX_TEXT_LENGTH: usize = 200;

pub fn positive_id(field: &str, id: i64) -> Result<()> {
    if id <= 0 {
        return Err(Error::invalid(field, format!("must be a positive id, not {id}")));
    }
    Ok(())
}

/// The digits of a card number as people type it (spaces and dashes allowed).
pub fn pan(pan: &str) -> Result<String> {
    let digits: String = pan.chars().filter(|character| !matches!(character, ' ' | '-')).collect();
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(Error::invalid("pan", "must contain only digits"));
    }
    if digits.len() != 16 {
        return Err(Error::invalid("pan", format!("must have 16 digits, not {}", digits.len())));
    }
    if !luhn_valid(&digits) {
        return Err(Error::invalid("pan", "is not a valid card number (the check digit does not match)"));
    }
    Ok(digits)
}

/// The Luhn check every card number passes.
pub fn luhn_valid(digits: &str) -> bool {
    let mut sum = 0;
    for (position, byte) in digits.bytes().rev().enumerate() {
        let mut digit = u32::from(byte.wrapping_sub(b'0'));
        if digit > 9 {
            return false;
        }
        if position % 2 == 1 {
            digit *= 2;
            if digit > 9 {
                digit -= 9;
            }
        }
        sum += digit;
    }
    !digits.is_empty() && sum % 10 == 0
}

pub fn card(request: &EnrollCardRequest) -> Result<()> {
    pan(request.pan.expose())?;
    name("firstName", &request.first_name)?;
    name("lastName", &request.last_name)?;
    if !(1..=12).contains(&request.exp_month) {
        return Err(Error::invalid("expMonth", format!("must be a month from 1 to 12, not {}", request.exp_month)));
    }
    let year = match request.exp_year {
        year @ 0..=99 => 2000 + year,
        year @ 2000..=2099 => year,
        other => return Err(Error::invalid("expYear", format!("must have 2 or 4 digits (30 or 2030), not {other}"))),
    };
    let today = Utc::now().date_naive();
    if (year, request.exp_month) < (u32::try_from(today.year()).unwrap_or(0), today.month()) {
        return Err(Error::invalid("expYear", format!("the card expired in {:02}/{year}", request.exp_month)));
    }
    country_code("countryCode", &request.country_code)
}

pub fn name(field: &str, value: &str) -> Result<()> {
    text(field, value, MAX_NAME_LENGTH)
}

/// Required text: not blank, at most `max` characters.
pub fn text(field: &str, value: &str, max: usize) -> Result<()> {
    let length = value.trim().chars().count();
    if length == 0 {
        return Err(Error::invalid(field, "must not be empty"));
    }
    if length > max {
        return Err(Error::invalid(field, format!("must have at most {max} characters, not {length}")));
    }
    Ok(())
}

/// ISO 3166-1 alpha-3 in shape (three letters); the service knows which exist.
pub fn country_code(field: &str, code: &str) -> Result<()> {
    let code = code.trim();
    if code.len() != 3 || !code.bytes().all(|byte| byte.is_ascii_alphabetic()) {
        return Err(Error::invalid(field, format!("must be a three-letter country code such as USA, not {code:?}")));
    }
    Ok(())
}

pub fn email(field: &str, email: &str) -> Result<()> {
    let email = email.trim();
    let plausible = email.len() <= MAX_EMAIL_LENGTH
        && email.split_once('@').is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'))
        && !email.chars().any(char::is_whitespace);
    if !plausible {
        return Err(Error::invalid(field, "must be an e-mail address such as dev@example.com"));
    }
    Ok(())
}

pub fn merchant(request: &EnrollMerchantRequest) -> Result<()> {
    text("name", &request.name, MAX_TEXT_LENGTH)?;
    let code = request.category.0.trim();
    if code.len() != 4 || !code.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(Error::invalid("category", format!("must be a 4-digit merchant category code, not {code:?}")));
    }
    country_code("countryCode", &request.country_code)
}

pub fn location(location: &LocationInput) -> Result<()> {
    country_code("location.countryCode", &location.country_code)?;
    text("location.street", &location.street, MAX_TEXT_LENGTH)?;
    text("location.streetNo", &location.street_no, MAX_TEXT_LENGTH)?;
    text("location.city", &location.city, MAX_TEXT_LENGTH)?;
    text("location.zip", &location.zip, MAX_TEXT_LENGTH)?;
    match (location.latitude, location.longitude) {
        (Some(latitude), Some(longitude)) => position("location.latitude", "location.longitude", latitude, longitude),
        (None, None) => Ok(()),
        (Some(_), None) => Err(Error::invalid("location.longitude", "is required with latitude")),
        (None, Some(_)) => Err(Error::invalid("location.latitude", "is required with longitude")),
    }
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
    name("firstName", &request.first_name)?;
    name("lastName", &request.last_name)?;
    email("email", &request.email)
}

pub fn authenticate_person(request: &AuthenticatePersonRequest) -> Result<()> {
    positive_id("personId", request.person_id)?;
    if NaiveDate::parse_from_str(request.date_of_birth.trim(), "%Y-%m-%d").is_err() {
        return Err(Error::invalid(
            "dateOfBirth",
            format!("must be a date YYYY-MM-DD, not {:?}", request.date_of_birth),
        ));
    }
    let address = &request.address;
    text("address.street", &address.street, MAX_TEXT_LENGTH)?;
    text("address.streetNo", &address.street_no, MAX_TEXT_LENGTH)?;
    text("address.city", &address.city, MAX_TEXT_LENGTH)?;
    text("address.zip", &address.zip, MAX_TEXT_LENGTH)?;
    country_code("address.countryCode", &address.country_code)?;
    if let Some(ssn) = &request.ssn_last4
        && (ssn.len() != 4 || !ssn.bytes().all(|byte| byte.is_ascii_digit()))
    {
        return Err(Error::invalid("ssnLast4", "must be the last 4 digits"));
    }
    Ok(())
}

pub fn verify_person(request: &VerifyPersonRequest) -> Result<()> {
    positive_id("personId", request.person_id)?;
    if request.answers.is_empty() {
        return Err(Error::invalid("answers", "must hold one answer per question"));
    }
    Ok(())
}

pub fn page_limit(limit: Option<u32>, max: u32) -> Result<()> {
    match limit {
        Some(limit) if !(1..=max).contains(&limit) => {
            Err(Error::invalid("limit", format!("must be from 1 to {max}, not {limit}")))
        }
        _ => Ok(()),
    }
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
        }
    }

    fn field_of(result: Result<()>) -> String {
        match result {
            Err(Error::InvalidInput { field, .. }) => field,
            other => panic!("expected invalid input, got {other:?}"),
        }
    }

    #[test]
    fn luhn_accepts_test_cards_and_rejects_a_changed_digit() {
        for pan in ["4242424242424242", "5555555555554444", "6011111111111117", "2223003122003222"] {
            assert!(luhn_valid(pan), "{pan}");
        }
        assert!(!luhn_valid("4242424242424241"));
        assert!(!luhn_valid(""));
        assert!(!luhn_valid("42424242x2424242"));
    }

    #[test]
    fn cards_are_checked_before_sending() {
        assert!(card(&card_request("4242 4242 4242 4242", 12, 2099)).is_ok());
        assert!(card(&card_request("4242-4242-4242-4242", 12, 99)).is_ok());
        assert_eq!(field_of(card(&card_request("424242424242424", 12, 2099))), "pan");
        assert_eq!(field_of(card(&card_request("4242424242424241", 12, 2099))), "pan");
        assert_eq!(field_of(card(&card_request("4242424242424242", 13, 2099))), "expMonth");
        assert_eq!(field_of(card(&card_request("4242424242424242", 0, 2099))), "expMonth");
        assert_eq!(field_of(card(&card_request("4242424242424242", 12, 123))), "expYear");
        assert_eq!(field_of(card(&card_request("4242424242424242", 1, 2001))), "expYear");
        let mut long_name = card_request("4242424242424242", 12, 2099);
        long_name.first_name = "A".repeat(65);
        assert_eq!(field_of(card(&long_name)), "firstName");
        let mut country = card_request("4242424242424242", 12, 2099);
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
