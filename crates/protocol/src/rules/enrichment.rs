//! The rules of `POST /transactions/enrich`: 1 to 100 transactions, each with an id of at most
//! 64 characters and a descriptor with letters or digits; a 4-digit MCC, a `YYYY-MM-DD` date,
//! an ISO 4217 currency and an ISO 3166-1 alpha-3 country when given.

use chrono::NaiveDate;

use super::Violations;
use crate::EnrichRequest;

pub const MAX_TRANSACTIONS: usize = 100;
pub const ID_MAX: usize = 64;
pub const DESCRIPTOR_MAX: usize = 200;
pub const CITY_MAX: usize = 100;
pub const ZIP_MAX: usize = 20;

/// One transaction, checked and trimmed.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidEnrichInput {
    pub id: String,
    pub descriptor: String,
    pub amount: Option<f64>,
    /// Upper case.
    pub currency: Option<String>,
    pub date: Option<NaiveDate>,
    pub mcc: Option<u16>,
    pub city: Option<String>,
    pub zip: Option<String>,
    /// Upper case.
    pub country_code: Option<String>,
}

/// Every transaction of the request, or every problem of it (fields named
/// `transactions[3].mcc`).
pub fn enrich_request(request: &EnrichRequest) -> Result<Vec<ValidEnrichInput>, Violations> {
    let mut violations = Violations::new();
    let count = request.transactions.len();
    if count == 0 || count > MAX_TRANSACTIONS {
        violations.reject("transactions", format!("must hold 1 to {MAX_TRANSACTIONS} transactions (it holds {count})"));
        return Err(violations);
    }
    let mut valid = Vec::with_capacity(count);
    for (position, input) in request.transactions.iter().enumerate() {
        let field = |name: &str| format!("transactions[{position}].{name}");
        // Checked as all text is; the answer echoes the id exactly as it was sent.
        super::required_text(&mut violations, &field("id"), Some(&input.id), ID_MAX);
        let descriptor = input.descriptor.trim();
        if !descriptor.chars().any(|c| c.is_ascii_alphanumeric()) {
            violations.reject(&field("descriptor"), "must contain letters or digits: what the statement prints");
        } else if input.descriptor.chars().count() > DESCRIPTOR_MAX {
            violations.reject(&field("descriptor"), format!("must be at most {DESCRIPTOR_MAX} characters"));
        }
        if input.amount.is_some_and(|amount| !amount.is_finite() || amount.abs() > 1e12) {
            violations.reject(&field("amount"), "must be a number of major units");
        }
        let currency = present(input.currency.as_deref()).map(str::to_ascii_uppercase);
        if currency
            .as_deref()
            .is_some_and(|code| code.len() != 3 || !code.bytes().all(|byte| byte.is_ascii_alphabetic()))
        {
            violations.reject(&field("currency"), "must be an ISO 4217 code such as USD or EUR");
        }
        let date = match super::optional_text(input.date.as_deref()) {
            None => None,
            Some(text) => {
                let parsed = (text.len() == 10).then(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()).flatten();
                if parsed.is_none() {
                    violations.reject(&field("date"), "must be a day written YYYY-MM-DD, e.g. 2026-11-21");
                }
                parsed
            }
        };
        let mcc = match present(input.mcc.as_deref()) {
            None => None,
            Some(text) => {
                let parsed = (text.len() == 4 && text.bytes().all(|byte| byte.is_ascii_digit()))
                    .then(|| text.parse::<u16>().ok())
                    .flatten();
                if parsed.is_none() {
                    violations.reject(&field("mcc"), "must be a merchant category code of 4 digits, e.g. \"5812\"");
                }
                parsed
            }
        };
        let city = text_field(&mut violations, &field("city"), input.city.as_deref(), CITY_MAX);
        let zip = text_field(&mut violations, &field("zip"), input.zip.as_deref(), ZIP_MAX);
        let country_code = match present(input.country_code.as_deref()) {
            None => None,
            Some(code) => super::country_alpha3(&mut violations, &field("countryCode"), code),
        };
        valid.push(ValidEnrichInput {
            id: input.id.clone(),
            descriptor: descriptor.to_owned(),
            amount: input.amount,
            currency,
            date,
            mcc,
            city,
            zip,
            country_code,
        });
    }
    violations.finish(valid)
}

/// A patterned field sent is checked even when blank: the schema's pattern refuses `""` too.
fn present(value: Option<&str>) -> Option<&str> {
    value.map(str::trim)
}

fn text_field(violations: &mut Violations, field: &str, value: Option<&str>, max: usize) -> Option<String> {
    let sent = value?;
    if sent.chars().count() > max {
        violations.reject(field, format!("must be at most {max} characters"));
        return None;
    }
    // Blank is not sent; otherwise the one text rule (trimmed first, as the schema says).
    super::optional_text(Some(sent))?;
    super::required_text(violations, field, Some(sent), max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EnrichInput;

    fn input(id: &str, descriptor: &str) -> EnrichInput {
        EnrichInput { id: id.to_owned(), descriptor: descriptor.to_owned(), ..EnrichInput::default() }
    }

    fn fields(request: &EnrichRequest) -> Vec<String> {
        match enrich_request(request) {
            Ok(_) => Vec::new(),
            Err(violations) => violations.into_details().into_iter().map(|detail| detail.field).collect(),
        }
    }

    #[test]
    fn a_batch_holds_one_to_a_hundred() {
        assert_eq!(fields(&EnrichRequest { transactions: Vec::new() }), ["transactions"]);
        let many = EnrichRequest { transactions: (0..101).map(|n| input(&n.to_string(), "SQ *CAFE")).collect() };
        assert_eq!(fields(&many), ["transactions"]);
        let full = EnrichRequest { transactions: (0..100).map(|n| input(&n.to_string(), "SQ *CAFE")).collect() };
        assert!(fields(&full).is_empty());
    }

    #[test]
    fn each_field_is_checked() {
        let mut bad = input(&"x".repeat(65), "***");
        bad.mcc = Some("58".to_owned());
        bad.date = Some("2026-13-01".to_owned());
        bad.country_code = Some("XYZ".to_owned());
        bad.currency = Some("DOLLARS".to_owned());
        let request = EnrichRequest { transactions: vec![input("ok", "BLUE HERON"), bad] };
        assert_eq!(
            fields(&request),
            [
                "transactions[1].id",
                "transactions[1].descriptor",
                "transactions[1].currency",
                "transactions[1].date",
                "transactions[1].mcc",
                "transactions[1].countryCode"
            ]
        );
        let mut good = input("a", "SQ *BLUE HERON");
        good.mcc = Some("5814".to_owned());
        good.date = Some("2026-11-21".to_owned());
        good.country_code = Some("usa".to_owned());
        let valid = enrich_request(&EnrichRequest { transactions: vec![good] }).expect("valid");
        assert_eq!(valid[0].mcc, Some(5814));
        assert_eq!(valid[0].country_code.as_deref(), Some("USA"));
    }

    #[test]
    fn text_is_trimmed_before_it_is_checked_as_the_schema_says() {
        // U+0085 is both white space (trimmed) and a control character.
        let mut blank = input("\u{85}a\u{85}", "BLUE HERON");
        blank.zip = Some("\u{85}\u{85}".to_owned());
        blank.city = Some(" Portland\u{85}".to_owned());
        let valid = enrich_request(&EnrichRequest { transactions: vec![blank] }).expect("valid");
        assert_eq!(valid[0].zip, None);
        let mut inside = input("a\u{85}b", "BLUE HERON");
        inside.zip = Some("97\u{85}201".to_owned());
        assert_eq!(
            fields(&EnrichRequest { transactions: vec![inside] }),
            ["transactions[0].id", "transactions[0].zip"]
        );
    }
}
