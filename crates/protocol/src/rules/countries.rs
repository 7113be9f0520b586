//! ISO 3166-1 countries (from the `celes` crate's table).

use celes::Country;

/// The country of an alpha-3 code, any case; `None` when no country has that code.
pub fn by_alpha3(code: &str) -> Option<Country> {
    let code = code.trim();
    if code.len() != 3 || !code.bytes().all(|byte| byte.is_ascii_alphabetic()) {
        return None;
    }
    Country::from_alpha3(code.to_ascii_uppercase()).ok()
}

/// The upper-case alpha-3 code when `code` names a country.
pub fn normalize_alpha3(code: &str) -> Option<String> {
    by_alpha3(code).map(|country| country.alpha3.to_string())
}

/// Every country as (alpha-3 code, English name), by name: the choices of a country field.
pub fn all() -> Vec<(&'static str, &'static str)> {
    let mut countries: Vec<_> = Country::get_countries()
        .iter()
        .map(|country| (country.alpha3, country.long_name.strip_prefix("The ").unwrap_or(country.long_name)))
        .collect();
    countries.sort_by_key(|(_, name)| *name);
    countries
}

/// The country's short English name (`United States Of America` becomes what statements use).
pub fn name(code: &str) -> Option<String> {
    by_alpha3(code).map(|country| country.long_name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha3_codes_are_checked_against_the_table() {
        assert_eq!(normalize_alpha3("usa").as_deref(), Some("USA"));
        assert_eq!(normalize_alpha3("DEU").as_deref(), Some("DEU"));
        assert_eq!(normalize_alpha3("XYZ"), None);
        assert_eq!(normalize_alpha3("US"), None);
        assert_eq!(normalize_alpha3("U1A"), None);
    }
}
