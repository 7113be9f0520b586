//! Statement descriptors: how a merchant's name is printed on a card statement, and how a
//! printed descriptor is read back (processor prefix, store numbers and letters apart).

/// The width of a statement's merchant-name field.
pub const DESCRIPTOR_WIDTH: usize = 22;

/// Payment processors' prefixes as statements print them (`SQ *BLUE BOTTLE`), by the letters
/// before the `*`. `SP ` (Shopify) has no star and is matched on its own.
const STAR_PREFIXES: &[&str] = &["SQ", "TST", "PAYPAL", "PP", "SP", "DD", "IC", "GOOGLE", "APPLE", "UBER", "LYFT"];

/// `Café Zoë's #12` -> `CAFE ZOES #12`: ASCII capitals, digits and the punctuation statements
/// keep; apostrophes dropped, anything else a space, runs of spaces made one.
pub fn statement_text(text: &str) -> String {
    let ascii = deunicode::deunicode(text);
    let mut printed = String::with_capacity(ascii.len());
    let mut space = false;
    for character in ascii.chars() {
        let character = character.to_ascii_uppercase();
        match character {
            '\'' | '`' => {}
            'A'..='Z' | '0'..='9' | '&' | '-' | '.' | '*' | '#' | '/' => {
                if space && !printed.is_empty() {
                    printed.push(' ');
                }
                space = false;
                printed.push(character);
            }
            _ => space = true,
        }
    }
    printed
}

/// Cuts to the statement's width (without leaving a trailing space).
pub fn cut(mut descriptor: String) -> String {
    if descriptor.len() > DESCRIPTOR_WIDTH {
        descriptor.truncate(DESCRIPTOR_WIDTH);
    }
    descriptor.truncate(descriptor.trim_end().len());
    descriptor
}

/// The descriptor without a processor prefix, and the prefix's letters when there was one.
pub fn split_prefix(descriptor: &str) -> (Option<&str>, &str) {
    let trimmed = descriptor.trim_start();
    if let Some(star) = trimmed.find('*') {
        let before = trimmed[..star].trim();
        if STAR_PREFIXES.iter().any(|prefix| before.eq_ignore_ascii_case(prefix)) {
            return (Some(&trimmed[..star]), trimmed[star + 1..].trim_start());
        }
    }
    if trimmed.len() > 3 && trimmed[..3].eq_ignore_ascii_case("SP ") {
        return (Some(&trimmed[..2]), trimmed[3..].trim_start());
    }
    (None, trimmed)
}

/// Letters only, upper case: `Blue-Bottle Coffee #12` -> `BLUEBOTTLECOFFEE`. Spacing,
/// punctuation, numbers and accents do not count when descriptors are compared.
pub fn letters(text: &str) -> String {
    deunicode::deunicode(text).chars().filter(char::is_ascii_alphabetic).map(|c| c.to_ascii_uppercase()).collect()
}

/// The numbers printed in a descriptor (store numbers), leading zeros dropped.
pub fn numbers(text: &str) -> Vec<u64> {
    text.split(|character: char| !character.is_ascii_digit())
        .filter(|digits| !digits.is_empty())
        .filter_map(|digits| digits.trim_start_matches('0').parse().ok().or(Some(0)))
        .collect()
}

/// The runs of digits in a text, as printed.
pub fn digit_runs(text: &str) -> Vec<&str> {
    text.split(|character: char| !character.is_ascii_digit()).filter(|digits| !digits.is_empty()).collect()
}

/// What identifies a descriptor exactly: letters and digits without its processor prefix.
/// Two merchants of the directory never share one.
pub fn exact_key(descriptor: &str) -> String {
    let printed = statement_text(descriptor);
    let (_, rest) = split_prefix(&printed);
    rest.chars().filter(char::is_ascii_alphanumeric).collect()
}

/// The descriptor of an enrolled merchant's location: name and city as a statement prints them.
pub fn for_location(merchant_name: &str, city: &str) -> String {
    cut(format!("{} {}", statement_text(merchant_name), statement_text(city)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_print_capitals_without_accents_or_apostrophes() {
        assert_eq!(statement_text("Café Zoë's   #12"), "CAFE ZOES #12");
        assert_eq!(statement_text("Bäckerei Müller"), "BACKEREI MULLER");
        assert_eq!(statement_text("  Bean & Leaf, Coffee!"), "BEAN & LEAF COFFEE");
        assert_eq!(cut("ABCDEFGHIJKLMNOPQRSTU VWXYZ".to_owned()), "ABCDEFGHIJKLMNOPQRSTU");
        assert_eq!(cut("SHORT".to_owned()), "SHORT");
    }

    #[test]
    fn processor_prefixes_are_recognised_however_spaced() {
        assert_eq!(split_prefix("SQ *BLUE BOTTLE"), (Some("SQ "), "BLUE BOTTLE"));
        assert_eq!(split_prefix("sq*blue bottle").1, "blue bottle");
        assert_eq!(split_prefix("TST* GOLDEN DRAGON").1, "GOLDEN DRAGON");
        assert_eq!(split_prefix("PAYPAL *STREAMBOX").1, "STREAMBOX");
        assert_eq!(split_prefix("SP CRAFTED GOODS").1, "CRAFTED GOODS");
        assert_eq!(split_prefix("STAR*BURST CAFE"), (None, "STAR*BURST CAFE"));
        assert_eq!(split_prefix("SPOON HOUSE").1, "SPOON HOUSE");
    }

    #[test]
    fn keys_ignore_what_statements_vary() {
        assert_eq!(letters("Blue-Bottle Coffee #12"), "BLUEBOTTLECOFFEE");
        assert_eq!(numbers("FRESHWAY #0423 STORE 17"), vec![423, 17]);
        assert_eq!(exact_key("SQ *Blue Bottle #12"), exact_key("blue bottle 12"));
        assert_eq!(for_location("Rosa's Taquería", "San José"), "ROSAS TAQUERIA SAN JOS");
    }
}
