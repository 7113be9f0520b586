//! ISO 18245 merchant category codes with their descriptions (`assets/mcc_codes.csv`, made
//! from the iso18245 package by `assets/tools/make_mcc_codes.py`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

static TABLE: LazyLock<BTreeMap<&'static str, &'static str>> = LazyLock::new(|| {
    let mut table = BTreeMap::new();
    for line in include_str!("../../../../assets/mcc_codes.csv").lines().skip(1) {
        if let Some((code, description)) = line.split_once(',') {
            table.insert(code, description.trim_matches('"'));
        }
    }
    table
});

/// The description of a code, `None` for a code that is not in the table.
pub fn describe(code: &str) -> Option<&'static str> {
    TABLE.get(code).copied()
}

/// `5812 Eating Places, Restaurants`, the form the spec's `category` fields take.
pub fn label(code: &str) -> String {
    match describe(code) {
        Some(description) => format!("{code} {description}"),
        None => code.to_owned(),
    }
}

pub fn all() -> impl Iterator<Item = (&'static str, &'static str)> {
    TABLE.iter().map(|(code, description)| (*code, *description))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_codes_have_their_descriptions() {
        assert_eq!(label("5812"), "5812 Eating Places, Restaurants");
        assert_eq!(describe("5411"), Some("Grocery Stores, Supermarkets"));
        assert_eq!(describe("0000"), None);
        assert!(all().count() > 250);
    }
}
