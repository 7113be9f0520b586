//! The rules a card enrollment must pass (the API, the secure card-entry page, the client and
//! the dashboard's form).

use chrono::{Datelike, NaiveDate};

use super::{Violations, country_alpha3, name};

pub const MAX_NAME_LENGTH: usize = 64;
/// How far ahead an expiry may be.
pub const MAX_YEARS_AHEAD: u32 = 20;

/// What a person typed, before any rule.
#[derive(Debug, Clone, Copy)]
pub struct CardInput<'a> {
    pub pan: &'a str,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub exp_month: u32,
    pub exp_year: u32,
    pub country_code: &'a str,
}

impl<'a> From<&'a crate::EnrollCardRequest> for CardInput<'a> {
    fn from(request: &'a crate::EnrollCardRequest) -> Self {
        CardInput {
            pan: request.pan.expose(),
            first_name: &request.first_name,
            last_name: &request.last_name,
            exp_month: request.exp_month,
            exp_year: request.exp_year,
            country_code: &request.country_code,
        }
    }
}

/// A card that passed every rule. The PAN itself stays only as long as the request.
#[derive(Debug)]
pub struct ValidCard {
    pub pan_digits: String,
    pub first_name: String,
    pub last_name: String,
    pub exp_month: u32,
    /// Four digits.
    pub exp_year: u32,
    pub country_code: String,
}

impl ValidCard {
    pub fn last_four(&self) -> u16 {
        let digits = &self.pan_digits[self.pan_digits.len().saturating_sub(4)..];
        digits.parse().unwrap_or(0)
    }
}

/// The card checked on `today` (expiry), every problem reported.
pub fn card(input: &CardInput<'_>, today: NaiveDate, violations: &mut Violations) -> Option<ValidCard> {
    let pan_digits = pan_digits(input.pan, violations);
    let first_name = name(violations, "firstName", input.first_name, MAX_NAME_LENGTH);
    let last_name = name(violations, "lastName", input.last_name, MAX_NAME_LENGTH);
    let exp_month = input.exp_month;
    if !(1..=12).contains(&exp_month) {
        violations.reject("expMonth", "must be a month from 1 to 12");
    }
    let exp_year = match input.exp_year {
        year @ 0..=99 => Some(2000 + year),
        year @ 2000..=2099 => Some(year),
        _ => {
            violations.reject("expYear", "must be a year of 2 digits (30) or 4 digits (2030)");
            None
        }
    };
    if let Some(year) = exp_year
        && (1..=12).contains(&exp_month)
    {
        let (current_year, current_month) = (u32::try_from(today.year()).unwrap_or(0), today.month());
        if (year, exp_month) < (current_year, current_month) {
            violations.reject("expYear", format!("the card expired in {exp_month:02}/{year}"));
        } else if year > current_year + MAX_YEARS_AHEAD {
            violations.reject("expYear", format!("is more than {MAX_YEARS_AHEAD} years away"));
        }
    }
    let country_code = country_alpha3(violations, "countryCode", input.country_code);
    if !violations.is_empty() {
        return None;
    }
    Some(ValidCard {
        pan_digits: pan_digits?,
        first_name,
        last_name,
        exp_month,
        exp_year: exp_year?,
        country_code: country_code?,
    })
}

/// The digits of a card number as people type it (spaces and dashes allowed): 16 of them,
/// passing the Luhn check.
pub fn pan_digits(pan: &str, violations: &mut Violations) -> Option<String> {
    let digits: String = pan.chars().filter(|character| !matches!(character, ' ' | '-')).collect();
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        violations.reject("pan", "must contain only digits");
    } else if digits.len() != 16 {
        violations.reject("pan", format!("must have 16 digits, not {}", digits.len()));
    } else if !luhn_valid(&digits) {
        violations.reject("pan", "is not a valid card number (the check digit does not match)");
    } else {
        return Some(digits);
    }
    None
}

/// The Luhn check digit test every card number passes.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap_or_default()
    }

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
        for pan in ["4242424242424242", "5555555555554444", "6011111111111117", "2223003122003222"] {
            assert!(luhn_valid(pan), "{pan}");
        }
        assert!(!luhn_valid("4242424242424241"));
        assert!(!luhn_valid(""));
        assert!(!luhn_valid("42424242x2424242"));
    }

    #[test]
    fn a_good_card_is_normalized() {
        let mut violations = Violations::new();
        let card = card(&input("4242 4242 4242 4242", 30), today(), &mut violations);
        let card = card
            .as_ref()
            .map(|card| (card.first_name.as_str(), card.exp_year, card.country_code.as_str(), card.last_four()));
        assert_eq!(card, Some(("Ada", 2030, "GBR", 4242)));
    }

    #[test]
    fn every_bad_field_is_reported() {
        let mut violations = Violations::new();
        let bad =
            CardInput { pan: "1234", first_name: "", last_name: "x", exp_month: 13, exp_year: 123, country_code: "XX" };
        assert!(card(&bad, today(), &mut violations).is_none());
        let fields: Vec<_> = violations.details().iter().map(|detail| detail.field.as_str()).collect();
        assert_eq!(fields, ["pan", "firstName", "expMonth", "expYear", "countryCode"]);
    }

    #[test]
    fn expiry_is_judged_against_the_day_given() {
        let mut violations = Violations::new();
        assert!(card(&input("4242424242424242", 2026), today(), &mut violations).is_some());
        let november = CardInput { exp_month: 10, ..input("4242424242424242", 26) };
        assert!(card(&november, today(), &mut violations).is_none());
        assert!(card(&input("4242424242424242", 2047), today(), &mut violations).is_none());
        assert_eq!(violations.message(), "expYear: the card expired in 10/2026; expYear: is more than 20 years away");
    }
}
