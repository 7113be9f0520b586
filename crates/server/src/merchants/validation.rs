//! The rules of merchant and location bodies. Bodies are read into drafts whose required
//! fields are optional, so a missing field is reported beside every other problem instead of
//! stopping the parse at the first one.

use serde::{Deserialize, Deserializer};
use subscriber_protocol::CategoryCode;

use crate::error::Validation;
use crate::reference::{countries, mcc};

pub const NAME_MAX: usize = 100;
pub const STREET_MAX: usize = 100;
pub const STREET_NO_MAX: usize = 20;
pub const CITY_MAX: usize = 100;
pub const ZIP_MAX: usize = 12;
pub const WEBSITE_MAX: usize = 200;

/// `POST /merchant` as sent.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MerchantDraft {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub category: Option<CategoryCode>,
    #[serde(default)]
    pub country_code: Option<String>,
    /// Discovery shows phone numbers as numbers, so a client may send one back that way.
    #[serde(default, deserialize_with = "text_or_integer")]
    pub phone_number: Option<String>,
    #[serde(default)]
    pub website: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidMerchant {
    pub name: String,
    pub mcc: String,
    pub country_code: String,
    pub phone: Option<String>,
    pub website: Option<String>,
}

pub fn merchant(draft: MerchantDraft) -> Result<ValidMerchant, crate::error::ApiError> {
    let mut validation = Validation::new();
    let name = required_text(&mut validation, "name", draft.name.as_deref(), NAME_MAX);
    let mcc = match draft.category {
        None => {
            validation.reject("category", "is required: a 4-digit merchant category code, e.g. \"5812\"");
            None
        }
        Some(CategoryCode(code)) => category(&mut validation, code.trim()),
    };
    let country_code = country(&mut validation, "countryCode", draft.country_code.as_deref());
    let phone = optional_text(draft.phone_number.as_deref()).and_then(|phone| phone_number(&mut validation, phone));
    let website = optional_text(draft.website.as_deref()).and_then(|website| self::website(&mut validation, website));
    if website.is_some() && draft.website.as_deref().is_some_and(|sent| sent.chars().count() > WEBSITE_MAX) {
        validation.reject("website", format!("must be at most {WEBSITE_MAX} characters"));
    }
    let valid = match (name, mcc, country_code) {
        (Some(name), Some(mcc), Some(country_code)) => Some(ValidMerchant { name, mcc, country_code, phone, website }),
        _ => None,
    };
    validation.finish(valid)?.ok_or_else(|| crate::error::ApiError::invalid("the merchant is not valid"))
}

/// `POST /merchant/location` as sent.
#[derive(Debug, Default, Deserialize)]
pub struct LocationBody {
    #[serde(default, deserialize_with = "subscriber_protocol::object::optional")]
    pub location: Option<LocationDraft>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocationDraft {
    #[serde(default)]
    pub country_code: Option<String>,
    #[serde(default)]
    pub street: Option<String>,
    /// House numbers and postcodes are text ("12b", "02134"), but a number is taken too.
    #[serde(default, deserialize_with = "text_or_integer")]
    pub street_no: Option<String>,
    #[serde(default)]
    pub city: Option<String>,
    #[serde(default, deserialize_with = "text_or_integer")]
    pub zip: Option<String>,
    #[serde(default)]
    pub latitude: Option<f64>,
    #[serde(default)]
    pub longitude: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ValidLocation {
    pub country_code: String,
    pub street: String,
    pub street_no: String,
    pub city: String,
    pub zip: String,
    /// Both or neither.
    pub coordinates: Option<(f64, f64)>,
}

pub fn location(body: LocationBody) -> Result<ValidLocation, crate::error::ApiError> {
    let Some(draft) = body.location else {
        return Err(crate::error::ApiError::invalid_field(
            "location",
            "is required: send the fields inside one key, {\"location\": {\"countryCode\", \"street\", \"streetNo\", \
             \"city\", \"zip\", \"latitude\"?, \"longitude\"?}}",
        ));
    };
    let mut validation = Validation::new();
    let country_code = country(&mut validation, "location.countryCode", draft.country_code.as_deref());
    let street = required_text(&mut validation, "location.street", draft.street.as_deref(), STREET_MAX);
    let street_no = required_text(&mut validation, "location.streetNo", draft.street_no.as_deref(), STREET_NO_MAX);
    let city = required_text(&mut validation, "location.city", draft.city.as_deref(), CITY_MAX);
    let zip = required_text(&mut validation, "location.zip", draft.zip.as_deref(), ZIP_MAX);
    if let Some(zip) = &zip
        && !zip.chars().all(|character| character.is_ascii_alphanumeric() || character == ' ' || character == '-')
    {
        validation.reject("location.zip", "may hold only letters, digits, spaces and hyphens");
    }
    if let Some(latitude) = draft.latitude
        && !(-90.0..=90.0).contains(&latitude)
    {
        validation.reject("location.latitude", "must be from -90 to 90");
    }
    if let Some(longitude) = draft.longitude
        && !(-180.0..=180.0).contains(&longitude)
    {
        validation.reject("location.longitude", "must be from -180 to 180");
    }
    let coordinates = match (draft.latitude, draft.longitude) {
        (Some(latitude), Some(longitude)) => Some((latitude, longitude)),
        (Some(_), None) => {
            validation.reject("location.longitude", "is required when latitude is sent: send both or neither");
            None
        }
        (None, Some(_)) => {
            validation.reject("location.latitude", "is required when longitude is sent: send both or neither");
            None
        }
        (None, None) => None,
    };
    let valid = match (country_code, street, street_no, city, zip) {
        (Some(country_code), Some(street), Some(street_no), Some(city), Some(zip)) => {
            Some(ValidLocation { country_code, street, street_no, city, zip, coordinates })
        }
        _ => None,
    };
    validation.finish(valid)?.ok_or_else(|| crate::error::ApiError::invalid("the location is not valid"))
}

/// Trimmed, present, at most `max` characters, no control characters.
pub fn required_text(validation: &mut Validation, field: &str, value: Option<&str>, max: usize) -> Option<String> {
    // The limit counts what was sent, surrounding spaces included (as the OpenAPI maxLength does).
    let sent_length = value.map_or(0, |value| value.chars().count());
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        validation.reject(field, "is required");
        return None;
    };
    if sent_length > max {
        validation.reject(field, format!("must be at most {max} characters"));
        return None;
    }
    if value.chars().any(char::is_control) {
        validation.reject(field, "must not contain control characters");
        return None;
    }
    Some(value.to_owned())
}

/// An optional field sent empty counts as not sent.
fn optional_text(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|value| !value.is_empty())
}

fn category(validation: &mut Validation, code: &str) -> Option<String> {
    if code.len() != 4 || !code.bytes().all(|byte| byte.is_ascii_digit()) {
        validation.reject("category", "must be a 4-digit merchant category code, e.g. \"5812\"");
        return None;
    }
    if mcc::describe(code).is_none() {
        validation.reject(
            "category",
            format!("{code} is not a merchant category code (ISO 18245): GET /merchant/categories lists them"),
        );
        return None;
    }
    Some(code.to_owned())
}

fn country(validation: &mut Validation, field: &str, value: Option<&str>) -> Option<String> {
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        validation.reject(field, "is required: a three-letter country code (ISO 3166-1 alpha-3), e.g. \"USA\"");
        return None;
    };
    let normalized = countries::normalize_alpha3(value);
    if normalized.is_none() {
        validation.reject(field, "must be a three-letter country code (ISO 3166-1 alpha-3), e.g. \"USA\"");
    }
    normalized
}

/// Digits with the usual separators, 5 to 15 digits (E.164's longest).
fn phone_number(validation: &mut Validation, phone: &str) -> Option<String> {
    let digits = phone.bytes().filter(u8::is_ascii_digit).count();
    let allowed = phone.char_indices().all(|(index, character)| {
        character.is_ascii_digit()
            || matches!(character, ' ' | '-' | '.' | '(' | ')')
            || (character == '+' && index == 0)
    });
    if !allowed || !(5..=15).contains(&digits) {
        validation.reject("phoneNumber", "must be a phone number of 5 to 15 digits, e.g. \"+1 415 555 0100\"");
        return None;
    }
    Some(phone.to_owned())
}

/// An http(s) address or a bare domain (`example.com`).
fn website(validation: &mut Validation, website: &str) -> Option<String> {
    if website.chars().count() > WEBSITE_MAX || !is_web_address(website) {
        validation.reject(
            "website",
            format!("must be a web address of at most {WEBSITE_MAX} characters, e.g. \"https://example.com\""),
        );
        return None;
    }
    Some(website.to_owned())
}

fn is_web_address(text: &str) -> bool {
    if text.chars().any(|character| character.is_whitespace() || character.is_control()) {
        return false;
    }
    let lower = text.to_ascii_lowercase();
    // Another scheme ("ftp://") fails below as a host with an empty port; a "://" after the
    // host (a link in the query string) is part of a good address.
    let rest = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://")).unwrap_or(&lower);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|byte| byte.is_ascii_digit()) => host,
        Some(_) => return false,
        None => authority,
    };
    let labels = host.split('.').collect::<Vec<_>>();
    labels.len() >= 2
        && labels.iter().all(|label| {
            (1..=63).contains(&label.len())
                && label.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
        && labels.last().is_some_and(|tld| tld.len() >= 2 && tld.bytes().all(|byte| byte.is_ascii_alphabetic()))
}

/// A string, or an integer taken as its digits; `null` is absent.
fn text_or_integer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    struct TextVisitor;
    impl serde::de::Visitor<'_> for TextVisitor {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(Some(text.to_owned()))
        }
        fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<Self::Value, E> {
            Ok(Some(number.to_string()))
        }
        fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<Self::Value, E> {
            Ok(Some(number.to_string()))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(TextVisitor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(json: &str) -> MerchantDraft {
        serde_json::from_str(json).expect("draft parses")
    }

    #[test]
    fn a_complete_merchant_is_normalized() {
        let valid = merchant(draft(
            r#"{"name": " Blue Bottle ", "category": 5812, "countryCode": "usa", "phoneNumber": 14155550100,
                "website": "https://bluebottle.example.com/shop"}"#,
        ))
        .expect("valid");
        assert_eq!(valid.name, "Blue Bottle");
        assert_eq!(valid.mcc, "5812");
        assert_eq!(valid.country_code, "USA");
        assert_eq!(valid.phone.as_deref(), Some("14155550100"));
    }

    #[test]
    fn every_problem_of_a_merchant_is_reported_at_once() {
        let error = merchant(draft(r#"{"category": "9999", "countryCode": "US", "website": "not a site"}"#))
            .expect_err("invalid");
        let crate::error::ApiError::InvalidRequest { details, .. } = error else { panic!("not a validation error") };
        let fields = details.iter().map(|detail| detail.field.as_str()).collect::<Vec<_>>();
        assert_eq!(fields, ["name", "category", "countryCode", "website"]);
    }

    #[test]
    fn web_addresses() {
        assert!(is_web_address("example.com"));
        assert!(is_web_address("https://shop.example.co.uk:8443/a?b#c"));
        assert!(!is_web_address("ftp://example.com"));
        assert!(is_web_address("https://example.com/out?to=https://other.example"));
        assert!(!is_web_address("localhost"));
        assert!(!is_web_address("http://exa mple.com"));
        assert!(!is_web_address("https://-bad-.com"));
    }

    #[test]
    fn coordinates_come_in_pairs_and_in_range() {
        let body: LocationBody = serde_json::from_str(
            r#"{"location": {"countryCode": "USA", "street": "Main St", "streetNo": 12, "city": "Boston",
                "zip": "02134", "latitude": 91}}"#,
        )
        .expect("parses");
        let crate::error::ApiError::InvalidRequest { details, .. } = location(body).expect_err("invalid") else {
            panic!("not a validation error")
        };
        let fields = details.iter().map(|detail| detail.field.as_str()).collect::<Vec<_>>();
        assert_eq!(fields, ["location.latitude", "location.longitude"]);
    }
}
