//! The sandbox test cards: the only PANs the sandbox accepts. Published in the README.

pub struct TestCard {
    pub pan: &'static str,
    pub brand: &'static str,
    pub country_code: &'static str,
    pub description: &'static str,
}

pub const TEST_CARDS: &[TestCard] = &[
    TestCard { pan: "4242424242424242", brand: "Visa", country_code: "USA", description: "Visa, United States" },
    TestCard { pan: "4000056655665556", brand: "Visa", country_code: "USA", description: "Visa debit, United States" },
    TestCard {
        pan: "5555555555554444",
        brand: "Mastercard",
        country_code: "USA",
        description: "Mastercard, United States",
    },
    TestCard {
        pan: "2223003122003222",
        brand: "Mastercard",
        country_code: "USA",
        description: "Mastercard (2-series), United States",
    },
    TestCard {
        pan: "6011111111111117",
        brand: "Discover",
        country_code: "USA",
        description: "Discover, United States",
    },
    TestCard { pan: "4000002760003184", brand: "Visa", country_code: "DEU", description: "Visa, Germany" },
    TestCard { pan: "4000002500003155", brand: "Visa", country_code: "FRA", description: "Visa, France" },
    TestCard {
        pan: "5200828282828210",
        brand: "Mastercard",
        country_code: "USA",
        description: "Mastercard debit, United States",
    },
];

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
}
