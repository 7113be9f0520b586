//! The rules a card enrollment must pass, shared by the API and the secure page.

use chrono::{Datelike, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::Validation;
use crate::reference::countries;

pub const MAX_NAME_LENGTH: usize = 64;

/// A card that passed every rule. The PAN itself stays only as long as the request.
#[derive(Debug)]
pub struct ValidCard {
    pub pan_digits: String,
    pub first_name: String,
    pub last_name: String,
    pub exp_month: u32,
    pub exp_year: u32,
    pub country_code: String,
}

impl ValidCard {
    pub fn last_four(&self) -> u16 {
        let digits = &self.pan_digits[self.pan_digits.len().saturating_sub(4)..];
        digits.parse().unwrap_or(0)
    }
}

/// What a person typed, before any rule.
pub struct CardInput<'a> {
    pub pan: &'a str,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub exp_month: u32,
    pub exp_year: u32,
    pub country_code: &'a str,
}

pub fn validate(input: &CardInput<'_>, validation: &mut Validation) -> Option<ValidCard> {
    let pan_digits: String = input.pan.chars().filter(|character| !matches!(character, ' ' | '-')).collect();
    if !pan_digits.bytes().all(|byte| byte.is_ascii_digit()) || pan_digits.is_empty() {
        validation.reject("pan", "must contain only digits");
    } else if pan_digits.len() != 16 {
        validation.reject("pan", format!("must have 16 digits, not {}", pan_digits.len()));
    } else if !luhn_valid(&pan_digits) {
        validation.reject("pan", "is not a valid card number (the check digit does not match)");
    }
    let first_name = name("firstName", input.first_name, validation);
    let last_name = name("lastName", input.last_name, validation);
    let exp_month = input.exp_month;
    if !(1..=12).contains(&exp_month) {
        validation.reject("expMonth", "must be a month from 1 to 12");
    }
    let exp_year = match input.exp_year {
        year @ 0..=99 => Some(2000 + year),
        year @ 2000..=2099 => Some(year),
        _ => {
            validation.reject("expYear", "must be a year of 2 digits (30) or 4 digits (2030)");
            None
        }
    };
    if let Some(year) = exp_year
        && (1..=12).contains(&exp_month)
    {
        let today = Utc::now().date_naive();
        let (current_year, current_month) = (u32::try_from(today.year()).unwrap_or(0), today.month());
        if (year, exp_month) < (current_year, current_month) {
            validation.reject("expYear", format!("the card expired in {exp_month:02}/{year}"));
        } else if year > current_year + 20 {
            validation.reject("expYear", "is more than 20 years away");
        }
    }
    let country_code = countries::normalize_alpha3(input.country_code);
    if country_code.is_none() {
        validation.reject("countryCode", "must be an ISO 3166-1 alpha-3 country code such as USA or DEU");
    }
    if !validation.is_empty() {
        return None;
    }
    Some(ValidCard { pan_digits, first_name, last_name, exp_month, exp_year: exp_year?, country_code: country_code? })
}

fn name(field: &str, value: &str, validation: &mut Validation) -> String {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        validation.reject(field, "is required");
    } else if value.chars().count() > MAX_NAME_LENGTH {
        validation.reject(field, format!("must be at most {MAX_NAME_LENGTH} characters"));
    } else if trimmed.chars().any(char::is_control) {
        validation.reject(field, "must not contain control characters");
    }
    trimmed.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The Luhn check digit test.
pub fn luhn_valid(digits: &str) -> bool {
    let mut sum = 0u32;
    for (index, byte) in digits.bytes().rev().enumerate() {
        if !byte.is_ascii_digit() {
            return false;
        }
        let mut digit = u32::from(byte - b'0');
        if index % 2 == 1 {
            digit *= 2;
            if digit > 9 {
                digit -= 9;
            }
        }
        sum += digit;
    }
    !digits.is_empty() && sum.is_multiple_of(10)
}

/// HMAC-SHA256 of the PAN: equal for the same card, useless to recover the number.
pub fn fingerprint(key: &[u8], pan_digits: &str) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC accepts keys of every length");
    mac.update(pan_digits.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(pan: &str, year: u32) -> CardInput<'_> {
        CardInput {
            pan,
            first_name: " Ada ",
            last_name: "Lovelace",
            exp_month: 12,
            exp_year: year,
            country_code: "gbr",
        }
    }

    #[test]
    fn luhn() {
        assert!(luhn_valid("4242424242424242"));
        assert!(!luhn_valid("4242424242424241"));
        assert!(!luhn_valid(""));
    }

    #[test]
    fn a_good_card_is_normalized() {
        let mut validation = Validation::new();
        let card = validate(&input("4242 4242 4242 4242", 30), &mut validation).expect("valid");
        assert_eq!((card.first_name.as_str(), card.exp_year, card.country_code.as_str()), ("Ada", 2030, "GBR"));
        assert_eq!(card.last_four(), 4242);
    }

    #[test]
    fn every_bad_field_is_reported() {
        let mut validation = Validation::new();
        let bad =
            CardInput { pan: "1234", first_name: "", last_name: "x", exp_month: 13, exp_year: 123, country_code: "XX" };
        assert!(validate(&bad, &mut validation).is_none());
        let error = validation.finish(()).expect_err("invalid");
        let crate::error::ApiError::InvalidRequest { details, .. } = error else { panic!("not a 400") };
        let fields: Vec<_> = details.iter().map(|detail| detail.field.as_str()).collect();
        assert_eq!(fields, ["pan", "firstName", "expMonth", "expYear", "countryCode"]);
    }

    #[test]
    fn a_past_expiry_is_rejected() {
        let mut validation = Validation::new();
        assert!(validate(&input("4242424242424242", 2020), &mut validation).is_none());
    }

    #[test]
    fn fingerprints_are_keyed() {
        assert_eq!(fingerprint(b"k", "4242424242424242"), fingerprint(b"k", "4242424242424242"));
        assert_ne!(fingerprint(b"k", "4242424242424242"), fingerprint(b"j", "4242424242424242"));
    }
}
