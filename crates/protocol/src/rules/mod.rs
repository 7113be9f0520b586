//! The rules a request's fields must pass, in one place: the service applies them (and turns
//! the violations into its 400), the client checks before sending, the dashboard marks form
//! fields as the person types, and the OpenAPI document takes its limits from here. Pure: no
//! I/O, no clock (the day is a parameter), no HTTP.

pub mod cards;
pub mod countries;
pub mod enrichment;
pub mod hosted;
pub mod labels;
pub mod mcc;
pub mod merchants;
pub mod persons;
pub mod webhooks;

use crate::FieldError;

/// Collects every problem of a request before answering, so a form can mark all its fields at
/// once.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Violations {
    details: Vec<FieldError>,
}

impl Violations {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn reject(&mut self, field: &str, message: impl Into<String>) {
        self.details.push(FieldError { field: field.to_owned(), message: message.into() });
    }

    pub fn is_empty(&self) -> bool {
        self.details.is_empty()
    }

    /// `Ok(value)` when nothing was rejected.
    pub fn finish<T>(self, value: T) -> Result<T, Violations> {
        if self.details.is_empty() { Ok(value) } else { Err(self) }
    }

    /// The rejected fields, in the order they were found.
    pub fn details(&self) -> &[FieldError] {
        &self.details
    }

    pub fn into_details(self) -> Vec<FieldError> {
        self.details
    }

    /// Every problem on one line: `firstName: is required; expYear: …`.
    pub fn message(&self) -> String {
        self.details.iter().map(|detail| format!("{}: {}", detail.field, detail.message)).collect::<Vec<_>>().join("; ")
    }
}

/// Required text, trimmed: present, at most `max` characters, no control characters.
///
/// The limit counts what was sent, surrounding spaces included (as the OpenAPI `maxLength`
/// does).
pub fn required_text(violations: &mut Violations, field: &str, value: Option<&str>, max: usize) -> Option<String> {
    let sent_length = value.map_or(0, |value| value.chars().count());
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        violations.reject(field, "is required");
        return None;
    };
    if sent_length > max {
        violations.reject(field, format!("must be at most {max} characters"));
        return None;
    }
    if value.chars().any(char::is_control) {
        violations.reject(field, "must not contain control characters");
        return None;
    }
    Some(value.to_owned())
}

/// A name or an address line: as [`required_text`], with runs of spaces made one. Returns
/// what it could normalize even when rejected, so callers can go on checking other fields.
pub fn name(violations: &mut Violations, field: &str, value: &str, max: usize) -> String {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        violations.reject(field, "is required");
    } else if value.chars().count() > max {
        violations.reject(field, format!("must be at most {max} characters"));
    } else if trimmed.chars().any(char::is_control) {
        violations.reject(field, "must not contain control characters");
    }
    trimmed.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An optional field sent empty counts as not sent.
pub fn optional_text(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|value| !value.is_empty())
}

pub const MAX_EMAIL_LENGTH: usize = 254;

/// Lower-cased, trimmed; a plausible single address.
pub fn email(violations: &mut Violations, field: &str, email: &str) -> String {
    let sent_length = email.chars().count();
    let email = email.trim().to_ascii_lowercase();
    let plausible = sent_length <= MAX_EMAIL_LENGTH
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && domain.contains('.')
                && !domain.contains('@')
                && !domain.contains("..")
        })
        && !email.chars().any(|character| character.is_whitespace() || character.is_control());
    if !plausible {
        violations.reject(field, "must be an e-mail address such as dev@example.com");
    }
    email
}

/// A required ISO 3166-1 alpha-3 code of a country that exists, upper-cased.
pub fn country(violations: &mut Violations, field: &str, value: Option<&str>) -> Option<String> {
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        violations.reject(field, "is required: a three-letter country code (ISO 3166-1 alpha-3), e.g. \"USA\"");
        return None;
    };
    let normalized = countries::normalize_alpha3(value);
    if normalized.is_none() {
        violations.reject(field, "must be a three-letter country code (ISO 3166-1 alpha-3), e.g. \"USA\"");
    }
    normalized
}

/// A country code as cards and identities take it (a blank one gets the same message).
pub fn country_alpha3(violations: &mut Violations, field: &str, value: &str) -> Option<String> {
    let normalized = countries::normalize_alpha3(value);
    if normalized.is_none() {
        violations.reject(field, "must be an ISO 3166-1 alpha-3 country code such as USA or DEU");
    }
    normalized
}

/// A page size: `default` when not given, 1 to `max` when given.
pub fn page_limit(violations: &mut Violations, limit: Option<u32>, default: u32, max: u32) -> u32 {
    match limit {
        None => default,
        Some(limit) if (1..=max).contains(&limit) => limit,
        Some(_) => {
            violations.reject("limit", format!("must be from 1 to {max}"));
            default
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_kept_in_order() {
        let mut violations = Violations::new();
        assert_eq!(required_text(&mut violations, "a", Some("  ok "), 5), Some("ok".to_owned()));
        assert_eq!(required_text(&mut violations, "b", Some("   "), 5), None);
        assert_eq!(required_text(&mut violations, "c", Some("toolong"), 5), None);
        assert_eq!(required_text(&mut violations, "d", Some("a\u{7}b"), 5), None);
        assert_eq!(name(&mut violations, "e", "  Ada   King ", 64), "Ada King");
        let fields: Vec<_> = violations.details().iter().map(|detail| detail.field.as_str()).collect();
        assert_eq!(fields, ["b", "c", "d"]);
        assert_eq!(
            violations.message(),
            "b: is required; c: must be at most 5 characters; d: must not contain control characters"
        );
        assert!(violations.finish(()).is_err());
        assert_eq!(Violations::new().finish(7), Ok(7));
    }

    #[test]
    fn emails_and_countries() {
        let mut violations = Violations::new();
        assert_eq!(email(&mut violations, "email", " Dev@Example.COM "), "dev@example.com");
        assert!(violations.is_empty());
        for bad in ["dev@", "@example.com", "dev@example", "dev@.example.com", "dev@example..com", "a b@example.com"] {
            let mut violations = Violations::new();
            email(&mut violations, "email", bad);
            assert!(!violations.is_empty(), "{bad}");
        }
        let mut violations = Violations::new();
        assert_eq!(country(&mut violations, "c", Some(" usa ")).as_deref(), Some("USA"));
        assert_eq!(country(&mut violations, "c", Some("XYZ")), None);
        assert_eq!(country(&mut violations, "c", None), None);
        assert_eq!(country_alpha3(&mut violations, "c", "US"), None);
        assert_eq!(violations.details().len(), 3);
    }
}
