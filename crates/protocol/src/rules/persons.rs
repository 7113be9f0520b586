//! The rules of identity verification's inputs: the person onboarded, and the personal
//! information they type to authenticate (checked, used to fit the questions, never stored).

use chrono::{Datelike, NaiveDate};

use super::{Violations, country_alpha3, email, name};
use crate::{AuthenticatePersonRequest, OnboardPersonRequest};

pub const MAX_NAME_LENGTH: usize = 64;
pub const MAX_ADDRESS_FIELD_LENGTH: usize = 100;
pub const MAX_STREET_NO_LENGTH: usize = 20;
pub const MAX_ZIP_LENGTH: usize = 12;
pub const ADULT_AGE: i32 = 18;
pub const OLDEST_AGE: i32 = 120;
/// Digits a phone number may have (E.164's longest is 15).
pub const PHONE_DIGITS: std::ops::RangeInclusive<usize> = 7..=15;

/// A person to onboard, normalized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidPerson {
    pub first_name: String,
    pub last_name: String,
    /// Lower-cased.
    pub email: String,
}

pub fn person(request: &OnboardPersonRequest) -> Result<ValidPerson, Violations> {
    let mut violations = Violations::new();
    let first_name = name(&mut violations, "firstName", &request.first_name, MAX_NAME_LENGTH);
    let last_name = name(&mut violations, "lastName", &request.last_name, MAX_NAME_LENGTH);
    let email = email(&mut violations, "email", &request.email);
    violations.finish(ValidPerson { first_name, last_name, email })
}

/// The personal information of an authentication, checked on `today` (age). Only what the
/// questions need leaves this function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedInformation {
    pub birth_year: i32,
    pub country_code: String,
}

/// Every field error at once, named as the body names them (`address.zip`).
pub fn information(request: &AuthenticatePersonRequest, today: NaiveDate) -> Result<CheckedInformation, Violations> {
    let mut violations = Violations::new();
    let text = request.date_of_birth.trim();
    let birth = if text.len() == 10 { NaiveDate::parse_from_str(text, "%Y-%m-%d").ok() } else { None };
    let birth_year = match birth {
        None => {
            violations.reject("dateOfBirth", "must be a real date written YYYY-MM-DD, e.g. 1987-04-23");
            0
        }
        Some(birth) => {
            let mut age = today.year() - birth.year();
            if (today.month(), today.day()) < (birth.month(), birth.day()) {
                age -= 1;
            }
            if birth > today {
                violations.reject("dateOfBirth", "is in the future");
            } else if age < ADULT_AGE {
                violations.reject("dateOfBirth", format!("the person must be at least {ADULT_AGE} years old"));
            } else if age > OLDEST_AGE {
                violations.reject("dateOfBirth", format!("is more than {OLDEST_AGE} years ago"));
            }
            birth.year()
        }
    };
    let address = &request.address;
    name(&mut violations, "address.street", &address.street, MAX_ADDRESS_FIELD_LENGTH);
    name(&mut violations, "address.streetNo", &address.street_no, MAX_STREET_NO_LENGTH);
    name(&mut violations, "address.city", &address.city, MAX_ADDRESS_FIELD_LENGTH);
    let zip = name(&mut violations, "address.zip", &address.zip, MAX_ZIP_LENGTH);
    if !zip.is_empty()
        && !zip.chars().all(|character| character.is_ascii_alphanumeric() || matches!(character, ' ' | '-'))
    {
        violations.reject("address.zip", "must contain only letters, digits, spaces and hyphens");
    }
    let country_code = country_alpha3(&mut violations, "address.countryCode", &address.country_code);
    if let Some(phone) = &request.phone_number {
        let digits = phone.chars().filter(char::is_ascii_digit).count();
        let allowed = phone.chars().all(|character| character.is_ascii_digit() || " +-().".contains(character));
        if !allowed || !PHONE_DIGITS.contains(&digits) {
            violations.reject("phoneNumber", "must be a phone number of 7 to 15 digits, e.g. +1 415 555 0100");
        }
    }
    if let Some(ssn) = &request.ssn_last4
        && !(ssn.len() == 4 && ssn.bytes().all(|byte| byte.is_ascii_digit()))
    {
        violations.reject("ssnLast4", "must be exactly 4 digits");
    }
    violations.finish(CheckedInformation { birth_year, country_code: country_code.unwrap_or_default() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PersonAddress;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap_or_default()
    }

    fn request(date_of_birth: &str) -> AuthenticatePersonRequest {
        AuthenticatePersonRequest {
            person_id: crate::PersonId(1),
            date_of_birth: date_of_birth.to_owned(),
            address: PersonAddress {
                street: "Main St".to_owned(),
                street_no: "12b".to_owned(),
                city: "Springfield".to_owned(),
                zip: "62701".to_owned(),
                country_code: "usa".to_owned(),
            },
            phone_number: Some("+1 (415) 555-0100".to_owned()),
            ssn_last4: Some("1234".to_owned()),
        }
    }

    fn fields(result: Result<CheckedInformation, Violations>) -> Vec<String> {
        result
            .err()
            .map(|violations| violations.into_details().into_iter().map(|detail| detail.field).collect())
            .unwrap_or_default()
    }

    #[test]
    fn good_information_keeps_only_the_year_and_country() {
        assert_eq!(
            information(&request("1987-04-23"), today()),
            Ok(CheckedInformation { birth_year: 1987, country_code: "USA".to_owned() })
        );
    }

    #[test]
    fn ages_are_judged_on_the_day_given() {
        assert!(information(&request("2008-11-23"), today()).is_ok());
        assert_eq!(fields(information(&request("2008-11-24"), today())), ["dateOfBirth"]);
        assert_eq!(fields(information(&request("2027-01-01"), today())), ["dateOfBirth"]);
        assert_eq!(fields(information(&request("1900-01-01"), today())), ["dateOfBirth"]);
        assert_eq!(fields(information(&request("1987-4-23"), today())), ["dateOfBirth"]);
    }

    #[test]
    fn every_bad_field_is_named() {
        let mut bad = request("1987-02-30");
        bad.address.zip = "62_701".to_owned();
        bad.address.street = " ".to_owned();
        bad.address.country_code = "US".to_owned();
        bad.phone_number = Some("555".to_owned());
        bad.ssn_last4 = Some("12a4".to_owned());
        assert_eq!(
            fields(information(&bad, today())),
            ["dateOfBirth", "address.street", "address.zip", "address.countryCode", "phoneNumber", "ssnLast4"]
        );
    }

    #[test]
    fn persons_are_normalized() {
        let onboard = OnboardPersonRequest {
            first_name: " Ada  ".to_owned(),
            last_name: "King".to_owned(),
            email: "Ada@Example.com".to_owned(),
            client_user_id: None,
            metadata: None,
        };
        let valid = person(&onboard).map(|person| (person.first_name, person.email));
        assert_eq!(valid, Ok(("Ada".to_owned(), "ada@example.com".to_owned())));
    }
}
