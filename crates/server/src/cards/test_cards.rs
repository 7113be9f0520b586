//! The sandbox test cards: the only PANs the sandbox accepts. Published in the README.

use subscriber_protocol::CardFunding;

pub struct TestCard {
    pub pan: &'static str,
    pub brand: &'static str,
    pub country_code: &'static str,
    pub funding: CardFunding,
    pub description: &'static str,
}

/// Each brand the sandbox knows (Visa, Mastercard, Discover), credit, debit and prepaid, issued
/// in the countries its merchant directory covers (so a card's history is of its country).
pub const TEST_CARDS: &[TestCard] = &[
    card("4242424242424242", "Visa", "USA", CardFunding::Credit, "Visa, United States"),
    card("4000056655665556", "Visa", "USA", CardFunding::Debit, "Visa debit, United States"),
    card("4000008400000001", "Visa", "USA", CardFunding::Prepaid, "Visa prepaid, United States"),
    card("5555555555554444", "Mastercard", "USA", CardFunding::Credit, "Mastercard, United States"),
    card("2223003122003222", "Mastercard", "USA", CardFunding::Credit, "Mastercard (2-series), United States"),
    card("5200828282828210", "Mastercard", "USA", CardFunding::Debit, "Mastercard debit, United States"),
    card("5105105105105100", "Mastercard", "USA", CardFunding::Prepaid, "Mastercard prepaid, United States"),
    card("6011111111111117", "Discover", "USA", CardFunding::Credit, "Discover, United States"),
    card("6011981111111113", "Discover", "USA", CardFunding::Debit, "Discover debit, United States"),
    card("4000002760003184", "Visa", "DEU", CardFunding::Credit, "Visa, Germany"),
    card("5200002760000003", "Mastercard", "DEU", CardFunding::Debit, "Mastercard debit, Germany"),
    card("4000002500003155", "Visa", "FRA", CardFunding::Credit, "Visa, France"),
    card("4000002500001001", "Visa", "FRA", CardFunding::Debit, "Visa debit, France"),
    card("4000003800000008", "Visa", "ITA", CardFunding::Credit, "Visa, Italy"),
    card("4000007240000007", "Visa", "ESP", CardFunding::Debit, "Visa debit, Spain"),
    card("4000000360000006", "Visa", "AUS", CardFunding::Credit, "Visa, Australia"),
    card("5555550400000008", "Mastercard", "AUT", CardFunding::Credit, "Mastercard, Austria"),
    card("4000007560000009", "Visa", "CHE", CardFunding::Credit, "Visa, Switzerland"),
    card("5200000560000009", "Mastercard", "BEL", CardFunding::Debit, "Mastercard debit, Belgium"),
];

const fn card(
    pan: &'static str,
    brand: &'static str,
    country_code: &'static str,
    funding: CardFunding,
    description: &'static str,
) -> TestCard {
    TestCard { pan, brand, country_code, funding, description }
}

pub fn find(pan: &str) -> Option<&'static TestCard> {
    TEST_CARDS.iter().find(|card| card.pan == pan)
}

/// The brand a card number's prefix belongs to, for cards enrolled on the secure page.
pub fn brand_of(pan: &str) -> &'static str {
    let prefix2: u32 = pan.get(..2).and_then(|digits| digits.parse().ok()).unwrap_or(0);
    let prefix4: u32 = pan.get(..4).and_then(|digits| digits.parse().ok()).unwrap_or(0);
    match pan.as_bytes().first() {
        Some(b'4') => "Visa",
        _ if (51..=55).contains(&prefix2) || (2221..=2720).contains(&prefix4) => "Mastercard",
        _ if prefix4 == 6011 || prefix2 == 65 => "Discover",
        _ if prefix2 == 34 || prefix2 == 37 => "American Express",
        _ => "Card",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subscriber_protocol::rules::cards::luhn_valid;

    #[test]
    fn every_test_card_passes_luhn_and_has_a_real_country() {
        for card in TEST_CARDS {
            assert!(luhn_valid(card.pan), "{} fails Luhn", card.description);
            assert_eq!(card.pan.len(), 16);
            assert_eq!(brand_of(card.pan), card.brand, "{}", card.description);
            assert!(crate::reference::countries::by_alpha3(card.country_code).is_some());
        }
    }

    #[test]
    fn enough_cards_of_every_brand_and_funding_for_one_subscriber_to_hold_ten_and_more() {
        assert!(TEST_CARDS.len() >= 16);
        let mut pans: Vec<&str> = TEST_CARDS.iter().map(|card| card.pan).collect();
        pans.sort_unstable();
        pans.dedup();
        assert_eq!(pans.len(), TEST_CARDS.len(), "each number once");
        for brand in ["Visa", "Mastercard", "Discover"] {
            for funding in [CardFunding::Credit, CardFunding::Debit] {
                assert!(
                    TEST_CARDS.iter().any(|card| card.brand == brand && card.funding == funding),
                    "{brand} {funding:?}"
                );
            }
        }
        let countries: std::collections::BTreeSet<&str> = TEST_CARDS.iter().map(|card| card.country_code).collect();
        assert!(countries.len() >= 6, "{countries:?}");
    }
}
