//! The go-betweens a statement names before the merchant (`SQ *`, `TST*`, `PAYPAL *`,
//! `AMZN Mktp US*`, `KLARNA*`…), and reading a descriptor into those and the rest.
//!
//! A prefix is recognised however the statement spaces and cases it: the letters before a `*`
//! are compared without spaces or punctuation (`SQ *`, `SQ*`, `sq  *` are one), and the
//! longer, unmistakable names (`PAYPAL`, `KLARNA`, `DOORDASH`…) also without a star. Bank-side
//! noise before the merchant (`POS`, `CHECKCARD 0312`, `DEBIT PURCHASE`) is dropped.

use subscriber_protocol::{CounterpartyType, IntermediaryType};

/// A payment processor, marketplace, payment app or pay-later service.
#[derive(Debug)]
pub struct Platform {
    /// As people write it: `Square`, `PayPal`.
    pub name: &'static str,
    pub kind: IntermediaryType,
    /// What it is as a counterparty, when the descriptor names nothing else.
    pub counterparty: CounterpartyType,
    pub website: &'static str,
    /// The letters and digits before a `*`, without spaces or punctuation (`AMZNMKTPUS`).
    pub starred: &'static [&'static str],
    /// Leading words that name it without a star (`PAYPAL`, `AMZN MKTP US`).
    pub worded: &'static [&'static str],
    /// A word the platform repeats after its prefix (`DD *DOORDASH BURGER BARN`,
    /// `UBER *EATS …`): dropped with it.
    pub echo: &'static [&'static str],
}

impl PartialEq for Platform {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Platform {}

macro_rules! platform {
    ($name:literal, $kind:ident, $counterparty:ident, $website:literal, [$($starred:literal),*], [$($worded:literal),*], [$($echo:literal),*]) => {
        Platform {
            name: $name,
            kind: IntermediaryType::$kind,
            counterparty: CounterpartyType::$counterparty,
            website: $website,
            starred: &[$($starred),*],
            worded: &[$($worded),*],
            echo: &[$($echo),*],
        }
    };
}

/// Every platform the matcher recognises (documented in `docs/enrichment.md`).
pub static PLATFORMS: &[Platform] = &[
    platform!("Square", PaymentProcessor, Merchant, "squareup.com", ["SQ", "SQU", "SQUARE", "GOSQ", "GOSQCOM"], [], []),
    platform!("Toast", PaymentProcessor, Merchant, "toasttab.com", ["TST", "TOAST", "TOASTTAB"], [], []),
    platform!("PayPal", PaymentApp, PaymentApp, "paypal.com", ["PAYPAL", "PP", "PYPL", "PAYPALCOM"], ["PAYPAL"], []),
    platform!(
        "Shopify",
        PaymentProcessor,
        Merchant,
        "shopify.com",
        ["SP", "SHOPIFY", "SHOP", "SHOPPAY"],
        ["SP", "SHOPIFY"],
        []
    ),
    platform!("Stripe", PaymentProcessor, Merchant, "stripe.com", ["STRIPE", "STRIPECOM", "STR"], ["STRIPE"], []),
    platform!(
        "Amazon",
        Marketplace,
        Marketplace,
        "amazon.com",
        [
            "AMZNMKTPUS",
            "AMZNMKTP",
            "AMZNMKTPLACE",
            "AMZNMARKETPLACE",
            "AMAZONMKTPL",
            "AMAZONMKTPLACE",
            "AMAZONMKTP",
            "AMAZONMARKETPLACE",
            "AMAZONCOM",
            "AMAZON",
            "AMZN",
            "AMZ",
            "AMZNCOM",
            "AMZNDIGITAL",
            "AMAZONDIGITAL"
        ],
        [
            "AMZN MKTP",
            "AMZN MARKETPLACE",
            "AMAZON MKTPL",
            "AMAZON MKTPLACE",
            "AMAZON MARKETPLACE",
            "AMAZON COM",
            "AMAZON MKTP",
            "AMZN MKTPLACE"
        ],
        ["MKTP", "MARKETPLACE"]
    ),
    platform!("Klarna", Bnpl, FinancialInstitution, "klarna.com", ["KLARNA", "KLARNACOM", "KLA"], ["KLARNA"], []),
    platform!(
        "Afterpay",
        Bnpl,
        FinancialInstitution,
        "afterpay.com",
        ["AFTERPAY", "AFTERPAYUS", "AFTPAY", "AFTPY", "CLEARPAY"],
        ["AFTERPAY", "CLEARPAY"],
        []
    ),
    platform!("Affirm", Bnpl, FinancialInstitution, "affirm.com", ["AFFIRM", "AFFIRMCOM", "AFFIRMINC"], ["AFFIRM"], []),
    platform!("Sezzle", Bnpl, FinancialInstitution, "sezzle.com", ["SEZZLE"], ["SEZZLE"], []),
    platform!(
        "Zip",
        Bnpl,
        FinancialInstitution,
        "zip.co",
        ["ZIPCO", "ZIPPAY", "QUADPAY", "QUADPAYCOM"],
        ["QUADPAY"],
        []
    ),
    platform!(
        "Google Pay",
        PaymentApp,
        PaymentApp,
        "pay.google.com",
        ["GOOGLE", "GOOG", "GPAY", "GOOGLEPAY", "GOOGLEPAYMENT", "GGL"],
        ["GOOGLE PAY", "GPAY"],
        ["PAY"]
    ),
    platform!(
        "Apple Pay",
        PaymentApp,
        PaymentApp,
        "apple.com",
        ["APPLEPAY", "APLPAY", "APL", "APPLE"],
        ["APPLE PAY", "APPLEPAY", "APLPAY"],
        ["PAY"]
    ),
    platform!("Venmo", PaymentApp, PaymentApp, "venmo.com", ["VENMO", "VENMOCOM"], ["VENMO"], []),
    platform!(
        "Cash App",
        PaymentApp,
        PaymentApp,
        "cash.app",
        ["CASHAPP", "SQC", "CASH"],
        ["CASH APP", "CASHAPP"],
        ["APP"]
    ),
    platform!(
        "Uber Eats",
        Marketplace,
        Marketplace,
        "ubereats.com",
        ["UBEREATS", "UBER", "UBERTECHNOLOGIES"],
        ["UBER EATS", "UBEREATS"],
        ["EATS"]
    ),
    platform!(
        "DoorDash",
        Marketplace,
        Marketplace,
        "doordash.com",
        ["DD", "DOORDASH", "DOORDASHCOM", "DDDOORDASH"],
        ["DOORDASH"],
        ["DOORDASH"]
    ),
    platform!("Grubhub", Marketplace, Marketplace, "grubhub.com", ["GRUBHUB", "GRUBHUBCOM", "GH"], ["GRUBHUB"], []),
    platform!(
        "Instacart",
        Marketplace,
        Marketplace,
        "instacart.com",
        ["INSTACART", "IC", "INSTACARTCOM"],
        ["INSTACART"],
        []
    ),
    platform!("Postmates", Marketplace, Marketplace, "postmates.com", ["POSTMATES"], ["POSTMATES"], []),
    platform!("Deliveroo", Marketplace, Marketplace, "deliveroo.com", ["DELIVEROO"], ["DELIVEROO"], []),
    platform!(
        "Just Eat",
        Marketplace,
        Marketplace,
        "just-eat.com",
        ["JUSTEAT", "LIEFERANDO", "THUISBEZORGD"],
        ["JUST EAT", "LIEFERANDO"],
        []
    ),
    platform!("eBay", Marketplace, Marketplace, "ebay.com", ["EBAY", "EBAYO", "EBAYCOM"], ["EBAY"], []),
    platform!("Etsy", Marketplace, Marketplace, "etsy.com", ["ETSY", "ETSYCOM", "ETSYINC"], ["ETSY"], []),
    platform!("SumUp", PaymentProcessor, Merchant, "sumup.com", ["SUMUP", "SUM", "SUMUPCOM"], ["SUMUP"], []),
    platform!(
        "Zettle",
        PaymentProcessor,
        Merchant,
        "zettle.com",
        ["IZ", "IZETTLE", "ZETTLE", "ZTL", "ZETTLEPP"],
        ["IZETTLE", "ZETTLE"],
        []
    ),
    platform!("Clover", PaymentProcessor, Merchant, "clover.com", ["CLV", "CLOVER", "CLOVERCOM"], [], []),
    platform!("Lightspeed", PaymentProcessor, Merchant, "lightspeedhq.com", ["LS", "LSPD", "LIGHTSPEED"], [], []),
    platform!("Braintree", PaymentProcessor, Merchant, "braintreepayments.com", ["BT", "BRAINTREE", "BRTREE"], [], []),
    platform!("Adyen", PaymentProcessor, Merchant, "adyen.com", ["ADYEN", "ADY"], [], []),
    platform!("Checkout.com", PaymentProcessor, Merchant, "checkout.com", ["CKO", "CHECKOUTCOM"], [], []),
    platform!("Worldpay", PaymentProcessor, Merchant, "worldpay.com", ["WPY", "WP", "WORLDPAY", "WEPAY"], [], []),
    platform!("2Checkout", PaymentProcessor, Merchant, "2checkout.com", ["2CO", "2COCOM", "2CHECKOUT"], [], []),
    platform!("FastSpring", PaymentProcessor, Merchant, "fastspring.com", ["FS", "FSPRG", "FASTSPRING"], [], []),
    platform!("Paddle", PaymentProcessor, Merchant, "paddle.com", ["PADDLE", "PADDLENET", "PADDLECOM"], [], []),
    platform!("Mollie", PaymentProcessor, Merchant, "mollie.com", ["MOLLIE", "MOL"], [], []),
];

/// Words statements put before the merchant that are the bank's, not the merchant's: one of
/// these says the leading words are the bank's…
const BANK_WORDS: &[&str] = &[
    "POS",
    "PURCHASE",
    "DEBIT",
    "CHECKCARD",
    "CRD",
    "DBT",
    "DDA",
    "PUR",
    "RECURRING",
    "PREAUTHORIZED",
    "AUTHORIZED",
    "WITHDRAWAL",
    "CONTACTLESS",
    "EFTPOS",
    "KARTENZAHLUNG",
    "LASTSCHRIFT",
    "PAIEMENT",
    "ACHAT",
    "COMPRA",
    "ACQUISTO",
    "PAGAMENTO",
];

/// …and these go with them (alone, they may be a merchant's own words).
const BANK_COMPANIONS: &[&str] = &[
    "CARD",
    "CHECK",
    "VISA",
    "MC",
    "MASTERCARD",
    "PAYMENT",
    "ON",
    "PRE",
    "AUTH",
    "POINT",
    "OF",
    "SALE",
    "ONLINE",
    "INTERNET",
    "ELECTRONIC",
    "TAP",
    "CB",
    "PAGO",
    "TARJETA",
    "SEPA",
    "CARTE",
    "KARTE",
    "DEL",
    "CON",
    "PAR",
];

/// A descriptor read: the intermediaries its prefixes name, and what is left of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// In the order printed, each once.
    pub intermediaries: Vec<&'static Platform>,
    /// What is left: upper-case ASCII words (letters, digits and `&`).
    pub words: Vec<String>,
    /// Nothing but the intermediaries (and order numbers): they are the counterparty.
    pub only_intermediary: bool,
    /// What follows the intermediaries is an order or reference number (`AMZN Mktp
    /// US*2K4LL1AB3`): the descriptor is whole, not cut before the merchant's name.
    pub references: bool,
    /// The descriptor's length as printed (a width a statement cuts at says truncation).
    pub printed_length: usize,
}

/// Reads a descriptor as a statement prints it.
pub fn read(descriptor: &str) -> Reading {
    let ascii = deunicode::deunicode(descriptor).to_ascii_uppercase();
    let printed_length = ascii.trim().chars().count();
    let mut rest: &str = ascii.trim();
    let mut intermediaries: Vec<&'static Platform> = Vec::new();
    // A prefix can follow another (`POS SQ *…`, `PAYPAL *KLARNA*…`): a few rounds.
    for _round in 0..4 {
        let trimmed = skip_bank_noise(rest);
        if let Some((platform, after)) = starred_prefix(trimmed).or_else(|| worded_prefix(trimmed)) {
            if let Some(platform) = platform
                && !intermediaries.iter().any(|known| std::ptr::eq(*known, platform))
            {
                intermediaries.push(platform);
            }
            rest = after;
            continue;
        }
        rest = trimmed;
        break;
    }
    let mut words = words_of(rest);
    // `DD *DOORDASH BURGER BARN`, `UBER *EATS ROSAS`: the platform's own word again.
    while let Some(first) = words.first() {
        let echoed = intermediaries.iter().any(|platform| {
            platform.echo.contains(&first.as_str())
                || letters_only(platform.name) == *first
                || platform.starred.iter().any(|form| form == first && form.len() >= 4)
        });
        if echoed && words.len() > 1 {
            words.remove(0);
        } else {
            break;
        }
    }
    let meaningful =
        words.iter().filter(|word| !is_reference(word)).map(|word| letters_only(word).len()).sum::<usize>();
    let only_intermediary = !intermediaries.is_empty() && meaningful < 3;
    let references = words.iter().any(|word| is_reference(word));
    Reading { intermediaries, words, only_intermediary, references, printed_length }
}

/// Words of text: runs of letters, digits and `&`; anything else separates.
pub fn words_of(text: &str) -> Vec<String> {
    text.split(|character: char| !(character.is_ascii_alphanumeric() || character == '&'))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

fn letters_only(text: &str) -> String {
    text.chars().filter(char::is_ascii_alphabetic).map(|c| c.to_ascii_uppercase()).collect()
}

/// An order or reference number (`2K4LL1AB3`, `5551212`): letters and digits interleaved, or
/// seven digits and more. A store number (`0042`, `STORE42`, `795SAINT` of a name run into
/// its number) is not one.
pub fn is_reference(word: &str) -> bool {
    let bytes = word.as_bytes();
    let digits = bytes.iter().filter(|byte| byte.is_ascii_digit()).count();
    let changes = bytes.windows(2).filter(|pair| pair[0].is_ascii_digit() != pair[1].is_ascii_digit()).count();
    let longest_letters = word.split(|c: char| c.is_ascii_digit()).map(str::len).max().unwrap_or(0);
    digits >= 2 && (changes >= 2 && longest_letters < 4 || digits == bytes.len() && digits >= 7)
}

/// `SQ *BLUE HERON`: the platform the letters before the star name (None for an unknown one,
/// which is still set apart: nothing but a processor prints `XYZ*` before a name), and the rest.
fn starred_prefix(text: &str) -> Option<(Option<&'static Platform>, &str)> {
    let star = text.find('*')?;
    let before = &text[..star];
    let key: String = before.chars().filter(char::is_ascii_alphanumeric).collect();
    let after = text[star + 1..].trim_start_matches(['*', ' ']);
    if key.is_empty() || before.len() > 20 {
        return None;
    }
    let platform = PLATFORMS.iter().find(|platform| platform.starred.contains(&key.as_str())).or_else(|| {
        // `AMZN MKTP DE*`, `AFTERPAY AU*`: a known prefix and a country.
        PLATFORMS.iter().find(|platform| {
            platform.starred.iter().any(|form| {
                form.len() >= 4 && key.len() > form.len() && key.len() <= form.len() + 3 && key.starts_with(form)
            })
        })
    });
    // An unknown star prefix of one short word (`XQ*`) is a processor's; a longer text before
    // a star (`STAR*BURST`) may be the merchant's own name.
    let unknown_processor = platform.is_none() && before.trim().len() <= 3 && !before.trim().contains(' ');
    if platform.is_some() || unknown_processor { Some((platform, after)) } else { None }
}

/// `PAYPAL MERCHANT`, `SP FERNWOOD`, `AMZN MKTP US 2K4LL`: a platform named without a star.
fn worded_prefix(text: &str) -> Option<(Option<&'static Platform>, &str)> {
    let words = words_of(text);
    for platform in PLATFORMS {
        for form in platform.worded {
            let form_words: Vec<&str> = form.split(' ').collect();
            if words.len() < form_words.len() || !words.iter().zip(&form_words).all(|(word, form)| word == form) {
                continue;
            }
            let mut consumed = form_words.len();
            // A country after the platform (`AMZN MKTP US`).
            if words.get(consumed).is_some_and(|word| {
                word.len() == 2 && matches!(word.as_str(), "US" | "UK" | "CA" | "DE" | "FR" | "IT" | "ES" | "AU")
            }) {
                consumed += 1;
            }
            let after = skip_words(text, consumed);
            // `SP` alone is a word names can start with: only before a name of some length.
            if form.len() <= 2 && letters_only(after).len() < 4 {
                continue;
            }
            return Some((Some(platform), after));
        }
    }
    None
}

/// The text after its first `count` words.
fn skip_words(text: &str, count: usize) -> &str {
    let mut rest = text;
    for _ in 0..count {
        rest = rest.trim_start_matches(|character: char| !(character.is_ascii_alphanumeric() || character == '&'));
        let end =
            rest.find(|character: char| !(character.is_ascii_alphanumeric() || character == '&')).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    rest.trim_start_matches(|character: char| !(character.is_ascii_alphanumeric() || character == '&'))
}

/// Leading bank words and the dates and card digits that come with them.
fn skip_bank_noise(text: &str) -> &str {
    let words = words_of(text);
    let mut consumed = 0;
    let mut strong = false;
    for word in &words {
        let word = word.as_str();
        let is_date_or_card = word.bytes().all(|byte| byte.is_ascii_digit()) || word.starts_with("XX");
        if BANK_WORDS.contains(&word) {
            strong = true;
        } else if !(BANK_COMPANIONS.contains(&word) || is_date_or_card && consumed > 0) {
            break;
        }
        consumed += 1;
    }
    // Never everything: `ONLINE` or `CARD` may be all a merchant's name has left.
    if !strong || consumed >= words.len() {
        return text;
    }
    skip_words(text, consumed)
}

/// The platform of an intermediary's name (`Square`), for tests and the docs.
pub fn platform_named(name: &str) -> Option<&'static Platform> {
    PLATFORMS.iter().find(|platform| platform.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(descriptor: &str) -> Vec<&'static str> {
        read(descriptor).intermediaries.iter().map(|platform| platform.name).collect()
    }

    #[test]
    fn prefixes_are_recognised_however_printed() {
        assert_eq!(names("SQ *BLUE HERON COFFEE"), ["Square"]);
        assert_eq!(names("sq*blueheroncoffee"), ["Square"]);
        assert_eq!(names("TST* GOLDEN LANTERN"), ["Toast"]);
        assert_eq!(names("PAYPAL *NIGHTJAR"), ["PayPal"]);
        assert_eq!(names("PP*NIGHTJAR"), ["PayPal"]);
        assert_eq!(names("AMZN Mktp US*2K4LL1AB3"), ["Amazon"]);
        assert_eq!(names("AMZN MKTP DE*FERNWOOD"), ["Amazon"]);
        assert_eq!(names("KLARNA*URBAN THREAD"), ["Klarna"]);
        assert_eq!(names("SP FERNWOOD SUPPLY CO"), ["Shopify"]);
        assert_eq!(names("DD *DOORDASH BURGERBARN"), ["DoorDash"]);
        assert_eq!(names("UBER *EATS TACO RIO"), ["Uber Eats"]);
        assert_eq!(names("POS PURCHASE SQ *BLUE HERON"), ["Square"]);
        assert_eq!(names("PAYPAL *KLARNA*URBAN THREAD"), ["PayPal", "Klarna"]);
        assert!(names("STAR*BURST CAFE").is_empty());
        assert!(names("SPOON HOUSE").is_empty());
        assert!(names("LAKESHORE MARKET #0042").is_empty());
    }

    #[test]
    fn what_is_left_is_the_merchant() {
        let reading = read("DD *DOORDASH BURGERBARN");
        assert_eq!(reading.words, ["BURGERBARN"]);
        let reading = read("CHECKCARD 0312 LAKESHORE MARKET #0042");
        assert_eq!(reading.words, ["LAKESHORE", "MARKET", "0042"]);
        assert!(!read("SQ*PETROSTAR#795SAINT-").only_intermediary, "a name run into its number is no reference");
        assert!(!read("APPLEPAY*BURGERBARN00556D").only_intermediary);
        assert!(read("AMZN Mktp US*2K4LL1AB3").references);
        assert!(read("AMZN Mktp US*2K4LL1AB3").only_intermediary);
        assert!(read("PAYPAL").only_intermediary);
        assert!(!read("PAYPAL *NIGHTJAR").only_intermediary);
        assert_eq!(read("XQ*ROSAS TAQUERIA").words, ["ROSAS", "TAQUERIA"], "an unknown processor's star prefix");
        assert_eq!(read("ONLINE").words, ["ONLINE"], "noise is never all of it");
    }
}
