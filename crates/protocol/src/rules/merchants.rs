//! The rules of merchant and location bodies. Bodies are read into drafts whose required
//! fields are optional, so a missing field is reported beside every other problem instead of
//! stopping the parse at the first one.

use serde::{Deserialize, Deserializer};

use super::{Violations, mcc};
use crate::CategoryCode;

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

impl From<&crate::EnrollMerchantRequest> for MerchantDraft {
    fn from(request: &crate::EnrollMerchantRequest) -> Self {
        MerchantDraft {
            name: Some(request.name.clone()),
            category: Some(request.category.clone()),
            country_code: Some(request.country_code.clone()),
            phone_number: request.phone_number.clone(),
            website: request.website.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidMerchant {
    pub name: String,
    pub mcc: String,
    pub country_code: String,
    pub phone: Option<String>,
    pub website: Option<String>,
}

pub fn merchant(draft: MerchantDraft) -> Result<ValidMerchant, Violations> {
    let mut violations = Violations::new();
    let name = super::required_text(&mut violations, "name", draft.name.as_deref(), NAME_MAX);
    let mcc = match draft.category {
        None => {
            violations.reject("category", "is required: a 4-digit merchant category code, e.g. \"5812\"");
            None
        }
        Some(CategoryCode(code)) => category(&mut violations, code.trim()),
    };
    let country_code = super::country(&mut violations, "countryCode", draft.country_code.as_deref());
    let phone =
        super::optional_text(draft.phone_number.as_deref()).and_then(|phone| phone_number(&mut violations, phone));
    let website =
        super::optional_text(draft.website.as_deref()).and_then(|website| self::website(&mut violations, website));
    if website.is_some() && draft.website.as_deref().is_some_and(|sent| sent.chars().count() > WEBSITE_MAX) {
        violations.reject("website", format!("must be at most {WEBSITE_MAX} characters"));
    }
    match (name, mcc, country_code) {
        (Some(name), Some(mcc), Some(country_code)) if violations.is_empty() => {
            Ok(ValidMerchant { name, mcc, country_code, phone, website })
        }
        // A field is missing only when a violation says why.
        _ => Err(violations),
    }
}

/// `POST /merchant/location` as sent.
#[derive(Debug, Default, Deserialize)]
pub struct LocationBody {
    #[serde(default, deserialize_with = "crate::object::optional")]
    pub location: Option<LocationDraft>,
    /// The subscriber's notes: all of them at creation, the pairs to set in a change.
    #[serde(default)]
    pub metadata: Option<crate::Metadata>,
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

impl From<&crate::UpdateLocationRequest> for LocationBody {
    fn from(request: &crate::UpdateLocationRequest) -> Self {
        let changes = &request.location;
        let draft = LocationDraft {
            country_code: changes.country_code.clone(),
            street: changes.street.clone(),
            street_no: changes.street_no.clone(),
            city: changes.city.clone(),
            zip: changes.zip.clone(),
            latitude: changes.latitude,
            longitude: changes.longitude,
        };
        // Metadata alone changes no address.
        let location = (*changes != crate::LocationChanges::default() || request.metadata.is_none()).then_some(draft);
        LocationBody { location, metadata: request.metadata.clone() }
    }
}

impl From<&crate::LocationInput> for LocationBody {
    fn from(location: &crate::LocationInput) -> Self {
        LocationBody {
            location: Some(LocationDraft {
                country_code: Some(location.country_code.clone()),
                street: Some(location.street.clone()),
                street_no: Some(location.street_no.clone()),
                city: Some(location.city.clone()),
                zip: Some(location.zip.clone()),
                latitude: location.latitude,
                longitude: location.longitude,
            }),
            metadata: None,
        }
    }
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

pub fn location(body: LocationBody) -> Result<ValidLocation, Violations> {
    let Some(draft) = body.location else {
        let mut violations = Violations::new();
        violations.reject(
            "location",
            "is required: send the fields inside one key, {\"location\": {\"countryCode\", \"street\", \"streetNo\", \
             \"city\", \"zip\", \"latitude\"?, \"longitude\"?}}",
        );
        return Err(violations);
    };
    let mut violations = Violations::new();
    let country_code = super::country(&mut violations, "location.countryCode", draft.country_code.as_deref());
    let street = super::required_text(&mut violations, "location.street", draft.street.as_deref(), STREET_MAX);
    let street_no =
        super::required_text(&mut violations, "location.streetNo", draft.street_no.as_deref(), STREET_NO_MAX);
    let city = super::required_text(&mut violations, "location.city", draft.city.as_deref(), CITY_MAX);
    let zip = super::required_text(&mut violations, "location.zip", draft.zip.as_deref(), ZIP_MAX);
    if let Some(zip) = &zip
        && !zip.chars().all(|character| character.is_ascii_alphanumeric() || character == ' ' || character == '-')
    {
        violations.reject("location.zip", "may hold only letters, digits, spaces and hyphens");
    }
    if let Some(latitude) = draft.latitude
        && !(-90.0..=90.0).contains(&latitude)
    {
        violations.reject("location.latitude", "must be from -90 to 90");
    }
    if let Some(longitude) = draft.longitude
        && !(-180.0..=180.0).contains(&longitude)
    {
        violations.reject("location.longitude", "must be from -180 to 180");
    }
    let coordinates = match (draft.latitude, draft.longitude) {
        (Some(latitude), Some(longitude)) => Some((latitude, longitude)),
        (Some(_), None) => {
            violations.reject("location.longitude", "is required when latitude is sent: send both or neither");
            None
        }
        (None, Some(_)) => {
            violations.reject("location.latitude", "is required when longitude is sent: send both or neither");
            None
        }
        (None, None) => None,
    };
    match (country_code, street, street_no, city, zip) {
        (Some(country_code), Some(street), Some(street_no), Some(city), Some(zip)) if violations.is_empty() => {
            Ok(ValidLocation { country_code, street, street_no, city, zip, coordinates })
        }
        _ => Err(violations),
    }
}

/// `PATCH /merchant/location/{locationId}`: the fields sent laid over the location as it is
/// (`current`, its address), then checked by the rules of a new location ([`location`]), so
/// a change is held to exactly what a creation is. Coordinates are never carried over: sent,
/// they are taken; not sent, the service derives them again from the address as it is now.
pub fn changed_location(current: LocationDraft, body: LocationBody) -> Result<ValidLocation, Violations> {
    let Some(changes) = body.location else {
        let mut violations = Violations::new();
        violations.reject(
            "location",
            "is required: send the fields that change inside one key, {\"location\": {\"street\": …}}, any of \
             countryCode, street, streetNo, city, zip, latitude and longitude (or send `metadata` alone)",
        );
        return Err(violations);
    };
    let LocationDraft { country_code, street, street_no, city, zip, latitude, longitude } = changes;
    let nothing = [&country_code, &street, &street_no, &city, &zip].iter().all(|field| field.is_none())
        && latitude.is_none()
        && longitude.is_none();
    if nothing {
        let mut violations = Violations::new();
        violations.reject(
            "location",
            "names nothing to change: send at least one of countryCode, street, streetNo, city, zip, latitude \
             and longitude",
        );
        return Err(violations);
    }
    location(LocationBody {
        location: Some(LocationDraft {
            country_code: country_code.or(current.country_code),
            street: street.or(current.street),
            street_no: street_no.or(current.street_no),
            city: city.or(current.city),
            zip: zip.or(current.zip),
            latitude,
            longitude,
        }),
        metadata: None,
    })
}

pub fn category(violations: &mut Violations, code: &str) -> Option<String> {
    if code.len() != 4 || !code.bytes().all(|byte| byte.is_ascii_digit()) {
        violations.reject("category", "must be a 4-digit merchant category code, e.g. \"5812\"");
        return None;
    }
    if mcc::describe(code).is_none() {
        violations.reject(
            "category",
            format!("{code} is not a merchant category code (ISO 18245): GET /merchant/categories lists them"),
        );
        return None;
    }
    Some(code.to_owned())
}

/// Digits with the usual separators, 5 to 15 digits (E.164's longest).
pub fn phone_number(violations: &mut Violations, phone: &str) -> Option<String> {
    let digits = phone.bytes().filter(u8::is_ascii_digit).count();
    let allowed = phone.char_indices().all(|(index, character)| {
        character.is_ascii_digit()
            || matches!(character, ' ' | '-' | '.' | '(' | ')')
            || (character == '+' && index == 0)
    });
    if !allowed || !(5..=15).contains(&digits) {
        violations.reject("phoneNumber", "must be a phone number of 5 to 15 digits, e.g. \"+1 415 555 0100\"");
        return None;
    }
    Some(phone.to_owned())
}

/// An http(s) address or a bare domain (`example.com`).
pub fn website(violations: &mut Violations, website: &str) -> Option<String> {
    if website.chars().count() > WEBSITE_MAX || !is_web_address(website) {
        violations.reject(
            "website",
            format!("must be a web address of at most {WEBSITE_MAX} characters, e.g. \"https://example.com\""),
        );
        return None;
    }
    Some(website.to_owned())
}

pub fn is_web_address(text: &str) -> bool {
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
            f.write_str("a string or an integer")
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
        /// JSON has one number type: `12.0` is the integer 12 (as JSON Schema counts it). A
        /// large one may come back from the float parser a few units of its last place off, so
        /// "whole" allows that much. An integer below `i64::MIN` reaches here as a float that
        /// rounds to `i64::MIN` or less: it is out of the schema's range, so refused.
        fn visit_f64<E: serde::de::Error>(self, number: f64) -> Result<Self::Value, E> {
            let whole = number.round();
            let off = (number - whole).abs();
            #[allow(clippy::cast_precision_loss)] // `i64::MIN` is a power of two: exact in f64.
            let in_range = whole > i64::MIN as f64 && whole < 1e19;
            if number.is_finite() && in_range && off <= whole.abs() * f64::EPSILON * 4.0 {
                Ok(Some(format!("{whole:.0}")))
            } else {
                Err(E::invalid_type(serde::de::Unexpected::Float(number), &self))
            }
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

    /// An integer below `i64::MIN` is out of the schema's range: refused, not rounded to it.
    #[test]
    fn a_number_below_the_smallest_integer_is_refused() {
        let parsed = |number: &str| serde_json::from_str::<MerchantDraft>(&format!(r#"{{"phoneNumber": {number}}}"#));
        assert!(parsed("-9223372036854775809").is_err());
        assert!(parsed("-1e19").is_err());
        let smallest = parsed("-9223372036854775808").expect("i64::MIN is in range");
        assert_eq!(smallest.phone_number.as_deref(), Some("-9223372036854775808"));
        assert_eq!(parsed("12.0").expect("a whole float").phone_number.as_deref(), Some("12"));
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
        let fields = error.details().iter().map(|detail| detail.field.as_str()).collect::<Vec<_>>();
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
    fn a_change_is_held_to_the_rules_of_a_new_location() {
        let current = || LocationDraft {
            country_code: Some("USA".into()),
            street: Some("Main St".into()),
            street_no: Some("12".into()),
            city: Some("Boston".into()),
            zip: Some("02134".into()),
            latitude: None,
            longitude: None,
        };
        let body = |json: &str| serde_json::from_str::<LocationBody>(json).expect("parses");
        let changed = changed_location(current(), body(r#"{"location": {"city": "Cambridge"}}"#)).expect("valid");
        assert_eq!(
            (changed.city.as_str(), changed.street.as_str(), changed.coordinates),
            ("Cambridge", "Main St", None)
        );
        let fields = |json: &str| {
            let error = changed_location(current(), body(json)).expect_err("invalid");
            error.details().iter().map(|detail| detail.field.clone()).collect::<Vec<_>>()
        };
        assert_eq!(fields(r#"{"location": {"zip": "02!34"}}"#), ["location.zip"]);
        assert_eq!(fields(r#"{"location": {"street": " "}}"#), ["location.street"]);
        assert_eq!(fields(r#"{"location": {"latitude": 10}}"#), ["location.longitude"]);
        assert_eq!(fields(r#"{"location": {}}"#), ["location"]);
        assert_eq!(fields(r#"{}"#), ["location"]);
    }

    #[test]
    fn coordinates_come_in_pairs_and_in_range() {
        let body: LocationBody = serde_json::from_str(
            r#"{"location": {"countryCode": "USA", "street": "Main St", "streetNo": 12, "city": "Boston",
                "zip": "02134", "latitude": 91}}"#,
        )
        .expect("parses");
        let error = location(body).expect_err("invalid");
        let fields = error.details().iter().map(|detail| detail.field.as_str()).collect::<Vec<_>>();
        assert_eq!(fields, ["location.latitude", "location.longitude"]);
    }

    #[test]
    fn a_house_number_or_zip_sent_as_a_whole_number_with_a_point_is_that_number() {
        let parse = |street_no: &str| {
            serde_json::from_str::<LocationBody>(&format!(
                r#"{{"location": {{"streetNo": {street_no}, "zip": 2134.0}}}}"#
            ))
            .map(|body| body.location.map(|draft| (draft.street_no, draft.zip)))
        };
        assert_eq!(parse("12.0").expect("parses"), Some((Some("12".to_owned()), Some("2134".to_owned()))));
        assert_eq!(
            parse("2251799813685247.0").expect("parses"),
            Some((Some("2251799813685247".to_owned()), Some("2134".to_owned())))
        );
        assert!(parse("12.5").is_err(), "a fraction is no house number");
    }
}
