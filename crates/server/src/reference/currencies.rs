//! ISO 4217 currency of each country (from the `iso_currency` crate's table), for the
//! `currency` beside every amount.

use std::str::FromStr;

use iso_currency::{Country, Currency};

use super::countries;

/// The currency a country pays in, e.g. `USD` for `USA`; `None` for an unknown code or a
/// territory without a currency of its own.
pub fn of_country(alpha3: &str) -> Option<&'static str> {
    let country = countries::by_alpha3(alpha3)?;
    let country = Country::from_str(country.alpha2).ok()?;
    // The first regular one: funds, special units and superseded currencies are not paid in.
    Currency::from_country(country)
        .into_iter()
        .find(|currency| currency.flags().is_empty())
        .map(|currency| currency.code())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countries_pay_in_their_currency() {
        assert_eq!(of_country("USA"), Some("USD"));
        assert_eq!(of_country("deu"), Some("EUR"));
        assert_eq!(of_country("GBR"), Some("GBP"));
        assert_eq!(of_country("JPN"), Some("JPY"));
        assert_eq!(of_country("CHE"), Some("CHF"));
        assert_eq!(of_country("XYZ"), None);
    }
}
