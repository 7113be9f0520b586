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
pub fn all() -> Vec<(&'static str, String)> {
    let mut countries: Vec<_> = Country::get_countries()
        .iter()
        .map(|country| (country.alpha3, english(country.long_name.strip_prefix("The ").unwrap_or(country.long_name))))
        .collect();
    countries.sort_by(|(_, a), (_, b)| a.cmp(b));
    countries
}

/// The country's long English name as English writes it: `The United States of America`.
pub fn name(code: &str) -> Option<String> {
    by_alpha3(code).map(|country| english(country.long_name))
}

/// A name from the table as English writes it: the table capitalises every word (`United States
/// Of America`, `Bosnia And Herzegovina`), English keeps `of`, `and`, `the`… lower case after the
/// first word.
fn english(name: &str) -> String {
    const SMALL: [&str; 7] = ["Of", "And", "The", "Da", "De", "Du", "Pour"];
    name.split(' ')
        .enumerate()
        .map(|(index, word)| if index > 0 && SMALL.contains(&word) { word.to_lowercase() } else { word.to_owned() })
        .collect::<Vec<_>>()
        .join(" ")
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

    #[test]
    fn names_are_written_as_english_writes_them() {
        assert_eq!(name("IMN").as_deref(), Some("Isle of Man"));
        assert_eq!(name("BIH").as_deref(), Some("Bosnia and Herzegovina"));
        let all = all();
        assert!(all.iter().any(|(code, name)| *code == "USA" && name == "United States of America"));
        assert!(all.iter().all(|(_, name)| !name.contains(" Of ") && !name.contains(" And ")));
        assert!(all.windows(2).all(|pair| pair[0].1 <= pair[1].1));
    }
}
