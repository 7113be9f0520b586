//! The matcher's quality and speed, published as Spade publishes theirs: a labelled set of
//! descriptors made from the default directory and varied the way real statements print them,
//! then coverage (a counterparty at `high` or better), each band's precision, location top-1
//! where the descriptor carries a store number or a city, intermediary recall on prefixed
//! descriptors, and p50/p99 of a 100-descriptor batch.
//!
//! Two generators vary the descriptors: the calibration set's (the matcher's weights and band
//! edges were tuned on it) and a held-out one written apart from it (other prefix spellings,
//! widths, typo kinds, abbreviations and suffixes), reported separately. Each set is measured
//! twice: the descriptor alone, and with what a card network sends beside it (MCC, city, zip,
//! country).
//!
//! `cargo run --release -p subscriber-server --example bench_enrich -- [--count N] [--size N]
//! [--report BENCHMARKS.md] [--failures N]` (`make bench-enrich`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use subscriber_protocol::{Confidence, DirectoryEntryId};
use subscriber_server::directory::brands::{brand_id, brand_key};
use subscriber_server::directory::descriptor::{split_prefix, statement_text};
use subscriber_server::directory::matcher::NetworkData;
use subscriber_server::directory::{Directory, DirectoryMerchant};
use subscriber_server::simulation::history::{self, HistoryInput};

const SEED: u64 = 20_261_122;

/// One labelled descriptor.
#[derive(Debug, Clone)]
struct Case {
    descriptor: String,
    truth_brand: String,
    truth_location: DirectoryEntryId,
    /// The descriptor still carries the store number or the city.
    locatable: bool,
    /// The platform a prefix added names (`Square`).
    prefixed: Option<&'static str>,
    /// What the network sends beside it.
    mcc: u16,
    city: String,
    zip: String,
    country: String,
    recipe: String,
}

fn main() -> anyhow::Result<()> {
    let mut count = 2_500usize;
    let mut size = 50_000u32;
    let mut report: Option<PathBuf> = None;
    let mut failures = 0usize;
    let mut explain: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--count" => count = args.next().map(|value| value.parse()).transpose()?.unwrap_or(count),
            "--size" => size = args.next().map(|value| value.parse()).transpose()?.unwrap_or(size),
            "--report" => report = args.next().map(PathBuf::from),
            "--failures" => failures = args.next().map(|value| value.parse()).transpose()?.unwrap_or(10),
            "--explain" => explain.extend(args.next()),
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let started = Instant::now();
    let directory = Directory::generate(SEED, size);
    println!("directory of {size} ({} brands) in {:?}", directory.brand_count(), started.elapsed());
    if !explain.is_empty() {
        for descriptor in &explain {
            println!("{descriptor:?}");
            let query = subscriber_server::directory::Query::Descriptor { text: descriptor.clone(), exact: false };
            for found in directory.search(&query, 8) {
                println!(
                    "  {:>5.1} {} ({}, {}) {:?}",
                    found.score * 100.0,
                    found.merchant.dba_name,
                    found.merchant.city,
                    found.merchant.descriptor,
                    found.reasons
                );
            }
        }
        return Ok(());
    }
    let merchants = sample_merchants(&directory, size, count);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let calibration: Vec<Case> = merchants.iter().map(|merchant| calibration_case(&mut rng, merchant)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let holdout: Vec<Case> = merchants.iter().map(|merchant| holdout_case(&mut rng, merchant)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let plain: Vec<Case> = merchants.iter().take(count / 2).map(|merchant| plain_case(&mut rng, merchant)).collect();
    let strangers = unknown_merchants(&directory, size, count / 5);
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let unknown: Vec<Case> = strangers
        .iter()
        .map(|merchant| {
            let mut case = if rng.random_bool(0.5) {
                calibration_case(&mut rng, merchant)
            } else {
                holdout_case(&mut rng, merchant)
            };
            case.truth_brand = String::new();
            case
        })
        .collect();

    let mut rows = Vec::new();
    for (name, cases) in
        [("calibration", &calibration), ("held out", &holdout), ("as printed", &plain), ("unknown", &unknown)]
    {
        for fields in [false, true] {
            let measured = measure(&directory, cases, fields, failures);
            println!("{name:>12} {}: {}", if fields { "with fields" } else { "descriptor " }, measured.line());
            if std::env::var_os("BENCH_RELIABILITY").is_some() {
                let buckets: Vec<String> = measured
                    .by_score
                    .iter()
                    .map(|(bucket, (all, right))| format!("{bucket}+: {:.1}%/{all}", percent(*right, *all)))
                    .collect();
                println!("             scores {}", buckets.join("  "));
            }
            rows.push((name, fields, measured));
        }
    }
    let (p50, p99, batches) = batch_latency(&directory, &holdout);
    println!("100-descriptor batch: p50 {:.2} ms, p99 {:.2} ms ({batches} batches)", ms(p50), ms(p99));
    if let Some(path) = report {
        write_report(&path, size, count, &rows, p50, p99, batches)?;
    }
    Ok(())
}

/// Merchants of another seed's directory whose trading name this one has not: descriptors
/// that should match nothing (near misses included: other names from the same patterns).
fn unknown_merchants(directory: &Directory, size: u32, count: usize) -> Vec<DirectoryMerchant> {
    let other = Directory::generate(SEED + 1, size.min(20_000));
    let mut found = Vec::new();
    let mut id = 100_000_013;
    while found.len() < count && id < 100_000_000 + i64::from(size.min(20_000)) {
        id += 1;
        let Some(merchant) = other.get(DirectoryEntryId(id)) else { continue };
        let key = brand_id(&brand_key(&merchant.dba_name));
        if directory.brand(&key).is_none() {
            found.push(merchant);
        }
    }
    found
}

/// Merchants as transactions meet them: half from sandbox cards' histories (five countries),
/// half drawn evenly from the directory.
fn sample_merchants(directory: &Directory, size: u32, count: usize) -> Vec<DirectoryMerchant> {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut merchants = Vec::with_capacity(count);
    let mut by_id: HashMap<DirectoryEntryId, DirectoryMerchant> = HashMap::new();
    let mut card = 0u32;
    while merchants.len() < count / 2 && card < 200 {
        let input = HistoryInput {
            seed: SEED,
            fingerprint: card.to_le_bytes().to_vec(),
            last_four: 4242,
            country_code: ["USA", "USA", "DEU", "FRA", "ITA", "ESP", "AUS"][card as usize % 7].to_owned(),
            enrolled_at: subscriber_protocol::UnixSeconds(1_790_000_000 + i64::from(card) * 3_600),
        };
        card += 1;
        let rows = history::generate(directory, &input);
        for _ in 0..40 {
            let Some(row) = rows.choose(&mut rng) else { break };
            let Some(id) = row.directory_id else { continue };
            let merchant = by_id.entry(id).or_insert_with(|| directory.get(id).expect("directory merchant")).clone();
            merchants.push(merchant);
        }
    }
    while merchants.len() < count {
        let id = 100_000_000 + rng.random_range(1..=i64::from(size));
        if let Some(merchant) = directory.get(DirectoryEntryId(id)) {
            merchants.push(merchant);
        }
    }
    merchants
}

fn base_case(merchant: &DirectoryMerchant, descriptor: String, recipe: String, prefixed: Option<&'static str>) -> Case {
    let locatable = carries_location(merchant, &descriptor);
    Case {
        descriptor,
        truth_brand: brand_id(&brand_key(&merchant.dba_name)),
        truth_location: merchant.id,
        locatable,
        prefixed,
        mcc: merchant.mcc.parse().unwrap_or(0),
        city: merchant.city.clone(),
        zip: merchant.zip.clone(),
        country: merchant.country.clone(),
        recipe,
    }
}

/// Whether what is left of the descriptor still names the location: its store number, or at
/// least four letters of its city after the name.
fn carries_location(merchant: &DirectoryMerchant, descriptor: &str) -> bool {
    let (_, own) = split_prefix(&merchant.descriptor);
    let digits = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter(|run| run.len() >= 2)
            .map(|run| run.trim_start_matches('0').to_owned())
            .collect()
    };
    let own_numbers = digits(own);
    let printed_numbers = digits(descriptor);
    if own_numbers.iter().any(|number| !number.is_empty() && printed_numbers.contains(number)) {
        return true;
    }
    let letters = |text: &str| -> String { statement_text(text).chars().filter(char::is_ascii_alphabetic).collect() };
    let city = letters(&merchant.city);
    let name = letters(&merchant.dba_name);
    let printed = letters(descriptor);
    let after_name =
        printed.find(&name[..name.len().min(6)]).map_or("", |at| &printed[(at + name.len()).min(printed.len())..]);
    city.len() >= 4 && after_name.contains(&city[..4])
}

/// The descriptor exactly as the directory prints it, in another case now and then.
fn plain_case(rng: &mut ChaCha8Rng, merchant: &DirectoryMerchant) -> Case {
    let descriptor =
        if rng.random_bool(0.5) { merchant.descriptor.clone() } else { merchant.descriptor.to_lowercase() };
    let prefixed = split_prefix(&merchant.descriptor).0.map(|prefix| platform_of_directory_prefix(prefix.trim()));
    base_case(merchant, descriptor, "as printed".to_owned(), prefixed)
}

fn platform_of_directory_prefix(prefix: &str) -> &'static str {
    match prefix {
        "SQ" => "Square",
        "TST" => "Toast",
        "PAYPAL" | "PP" => "PayPal",
        _ => "Shopify",
    }
}

// ---------------------------------------------------------------------------------------------
// The calibration set's generator.

const CALIBRATION_PREFIXES: &[(&str, &str)] = &[
    ("SQ *", "Square"),
    ("SQ*", "Square"),
    ("TST* ", "Toast"),
    ("TST*", "Toast"),
    ("PAYPAL *", "PayPal"),
    ("PP*", "PayPal"),
    ("AMZN Mktp US*", "Amazon"),
    ("AMAZON MKTPL*", "Amazon"),
    ("KLARNA*", "Klarna"),
    ("KLARNA *", "Klarna"),
    ("STRIPE*", "Stripe"),
    ("SP ", "Shopify"),
    ("GOOGLE *", "Google Pay"),
    ("APPLE PAY *", "Apple Pay"),
    ("VENMO *", "Venmo"),
    ("AFTERPAY*", "Afterpay"),
    ("AFFIRM *", "Affirm"),
    ("UBER *EATS ", "Uber Eats"),
    ("DD *DOORDASH ", "DoorDash"),
    ("GRUBHUB*", "Grubhub"),
];

fn calibration_case(rng: &mut ChaCha8Rng, merchant: &DirectoryMerchant) -> Case {
    let (own_prefix, rest) = split_prefix(&merchant.descriptor);
    let mut recipe = Vec::new();
    let mut text = if rng.random_bool(0.75) {
        rest.trim().to_owned()
    } else {
        recipe.push("name");
        let mut name = statement_text(&merchant.dba_name);
        if rng.random_bool(0.5) {
            name = format!("{name} {}", statement_text(&merchant.city));
        }
        name
    };
    let mut prefixed = own_prefix.map(|prefix| platform_of_directory_prefix(prefix.trim()));
    if rng.random_bool(0.35) {
        let (prefix, platform) = CALIBRATION_PREFIXES.choose(rng).copied().unwrap_or(("SQ *", "Square"));
        text = format!("{prefix}{text}");
        prefixed = Some(platform);
        recipe.push("prefix");
    } else if let Some(own) = own_prefix {
        text = format!("{}{text}", if own.trim() == "SP" { "SP ".to_owned() } else { format!("{}*", own.trim()) });
    }
    if rng.random_bool(0.2) {
        text = renumber(rng, &text);
        recipe.push("number");
    }
    if rng.random_bool(0.2) {
        let city = statement_text(&merchant.city);
        let region = merchant.region.clone().unwrap_or_default();
        text = match rng.random_range(0..3) {
            0 => format!("{text} {city}"),
            1 if !region.is_empty() => format!("{text} {city} {region}"),
            _ => format!("{text} {}", if region.is_empty() { merchant.country.clone() } else { region }),
        };
        recipe.push("suffix");
    }
    if rng.random_bool(0.2) {
        text = typo(rng, &text, TypoStyle::Calibration);
        recipe.push("typo");
    }
    if rng.random_bool(0.15) {
        text = punctuate(rng, &text);
        recipe.push("punctuation");
    }
    if rng.random_bool(0.06) {
        text =
            format!("{}{text}", ["POS ", "CHECKCARD 0312 ", "DEBIT PURCHASE "].choose(rng).copied().unwrap_or("POS "));
        recipe.push("bank");
    }
    let width = *[22usize, 22, 25, 25, 40].choose(rng).unwrap_or(&22);
    if text.len() > width {
        text.truncate(width);
        recipe.push("cut");
    }
    text = recase(rng, &text);
    base_case(merchant, text.trim_end().to_owned(), recipe.join("+"), prefixed)
}

// ---------------------------------------------------------------------------------------------
// The held-out generator: written apart, with other spellings, widths, typos and suffixes.

const HOLDOUT_PREFIXES: &[(&str, &str)] = &[
    ("SQUARE *", "Square"),
    ("SQ  *", "Square"),
    ("TOAST*", "Toast"),
    ("TST *", "Toast"),
    ("PYPL*", "PayPal"),
    ("PAYPAL*", "PayPal"),
    ("PAYPAL ", "PayPal"),
    ("AMZN MKTP CA*", "Amazon"),
    ("AMAZON.COM*", "Amazon"),
    ("Amzn Mktp US ", "Amazon"),
    ("KLARNA ", "Klarna"),
    ("Klarna*", "Klarna"),
    ("STRIPE *", "Stripe"),
    ("SHOPIFY*", "Shopify"),
    ("GOOGLE*", "Google Pay"),
    ("GPAY*", "Google Pay"),
    ("APPLEPAY*", "Apple Pay"),
    ("VENMO*", "Venmo"),
    ("AFTERPAY *", "Afterpay"),
    ("AFFIRM*", "Affirm"),
    ("UBEREATS*", "Uber Eats"),
    ("DOORDASH*", "DoorDash"),
    ("SUMUP *", "SumUp"),
    ("IZ *", "Zettle"),
];

fn holdout_case(rng: &mut ChaCha8Rng, merchant: &DirectoryMerchant) -> Case {
    let (own_prefix, rest) = split_prefix(&merchant.descriptor);
    let mut recipe = Vec::new();
    // Half from the trading name as a processor would print it, half from the descriptor.
    let mut body = if rng.random_bool(0.5) {
        recipe.push("name");
        let name = statement_text(&merchant.dba_name);
        let number = rest.split(|c: char| !c.is_ascii_digit()).find(|run| run.len() >= 2).map(str::to_owned);
        match (number, rng.random_range(0..4)) {
            (Some(number), 0 | 1) => format!(
                "{name} {}",
                ["#", "STORE ", "", "NO "].choose(rng).copied().unwrap_or("#").to_owned() + &number
            ),
            (_, 2) => format!("{name} {}", statement_text(&merchant.city)),
            _ => name,
        }
    } else {
        rest.trim().to_owned()
    };
    if rng.random_bool(0.15) {
        body = abbreviate(&body);
        recipe.push("abbreviation");
    }
    if rng.random_bool(0.15) {
        body = body.replace(" & ", if rng.random_bool(0.5) { " AND " } else { " " });
    }
    if rng.random_bool(0.25) {
        body = typo(rng, &body, TypoStyle::Holdout);
        recipe.push("typo");
    }
    let mut prefixed = own_prefix.map(|prefix| platform_of_directory_prefix(prefix.trim()));
    let mut text = if rng.random_bool(0.3) {
        let (prefix, platform) = HOLDOUT_PREFIXES.choose(rng).copied().unwrap_or(("SQUARE *", "Square"));
        prefixed = Some(platform);
        recipe.push("prefix");
        // Wallets print a short name: the merchant's first letters, run together now and then.
        if matches!(platform, "PayPal" | "Google Pay" | "Apple Pay" | "Venmo") && rng.random_bool(0.5) {
            let squeezed: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            let keep = rng.random_range(9..=15).min(squeezed.len());
            format!("{prefix}{}", &squeezed[..keep])
        } else {
            format!("{prefix}{body}")
        }
    } else if let Some(own) = own_prefix {
        format!("{} *{body}", own.trim())
    } else {
        body
    };
    if rng.random_bool(0.25) {
        let city = statement_text(&merchant.city);
        let region = merchant.region.clone().unwrap_or_default();
        let two = &merchant.country[..2];
        text = match rng.random_range(0..4) {
            0 => format!("{text}, {city}"),
            1 => format!("{text} {city}, {region}"),
            2 => format!("{text} {} {two}", &city[..city.len().min(13)]),
            _ => format!("{text} {}", if merchant.country == "USA" { region } else { two.to_owned() }),
        };
        recipe.push("suffix");
    }
    if rng.random_bool(0.05) {
        text = format!("{text} {}", ["800-555-0199", "REF 88213", "ONLINE"].choose(rng).copied().unwrap_or("ONLINE"));
        recipe.push("tail");
    }
    let width = *[20usize, 22, 23, 25, 25, 30, 60].choose(rng).unwrap_or(&25);
    if text.len() > width {
        text.truncate(width);
        recipe.push("cut");
    }
    let text = match rng.random_range(0..6) {
        0 => text.to_lowercase(),
        1 => title_case(&text),
        _ => text.to_uppercase(),
    };
    base_case(merchant, text.trim_end().to_owned(), recipe.join("+"), prefixed)
}

// ---------------------------------------------------------------------------------------------
// Variations.

/// The store number printed another way, or one added where there was none.
fn renumber(rng: &mut ChaCha8Rng, text: &str) -> String {
    let number: Option<String> =
        text.split(|c: char| !c.is_ascii_digit()).find(|run| run.len() >= 2).map(str::to_owned);
    match number {
        Some(number) => {
            let value = number.trim_start_matches('0');
            let printed = match rng.random_range(0..4) {
                0 => format!("#{value}"),
                1 => format!("STORE {value}"),
                2 => value.to_owned(),
                _ => format!("# {number}"),
            };
            let without_hash = text.replace(&format!("#{number}"), &number);
            without_hash.replacen(&number, &printed, 1)
        }
        None => format!("{text} #{}", rng.random_range(1..999)),
    }
}

#[derive(Clone, Copy)]
enum TypoStyle {
    Calibration,
    Holdout,
}

/// One slip of the keyboard in the letters after the first two (the start of a name is what
/// people and processors copy most carefully).
fn typo(rng: &mut ChaCha8Rng, text: &str, style: TypoStyle) -> String {
    let (prefix, rest) = match text.find('*') {
        Some(star) if star < 16 => text.split_at(star + 1),
        _ => ("", text),
    };
    let mut chars: Vec<char> = rest.chars().collect();
    let letters: Vec<usize> =
        chars.iter().enumerate().filter(|(_, c)| c.is_ascii_alphabetic()).map(|(at, _)| at).skip(2).collect();
    let Some(&at) = letters.choose(rng) else { return text.to_owned() };
    match (style, rng.random_range(0..4)) {
        (TypoStyle::Calibration, 0) => chars[at] = neighbour(chars[at]),
        (TypoStyle::Calibration, 1) => {
            chars.remove(at);
        }
        (TypoStyle::Calibration, 2) if at + 1 < chars.len() => chars.swap(at, at + 1),
        (TypoStyle::Calibration, _) => chars.insert(at, chars[at]),
        // Held out: vowels dropped, a letter doubled elsewhere, a wrong letter that is no neighbour.
        (TypoStyle::Holdout, 0) => {
            if let Some(vowel) = letters.iter().find(|at| "AEIOUaeiou".contains(chars[**at])) {
                chars.remove(*vowel);
            }
        }
        (TypoStyle::Holdout, 1) => chars[at] = (b'A' + rng.random_range(0..26u8)) as char,
        (TypoStyle::Holdout, 2) if at >= 1 => chars.swap(at - 1, at),
        (TypoStyle::Holdout, _) => chars.insert(at, 'X'),
    }
    format!("{prefix}{}", chars.into_iter().collect::<String>())
}

fn neighbour(letter: char) -> char {
    const ROWS: [&str; 3] = ["QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM"];
    let upper = letter.to_ascii_uppercase();
    for row in ROWS {
        if let Some(at) = row.find(upper) {
            let bytes = row.as_bytes();
            let next = if at + 1 < bytes.len() { bytes[at + 1] } else { bytes[at - 1] };
            return next as char;
        }
    }
    letter
}

fn punctuate(rng: &mut ChaCha8Rng, text: &str) -> String {
    match rng.random_range(0..4) {
        0 => text.replace(' ', ""),
        1 => text.replace(' ', "-"),
        2 => text.replace(' ', "."),
        _ => text.replace(' ', "  "),
    }
}

fn recase(rng: &mut ChaCha8Rng, text: &str) -> String {
    match rng.random_range(0..5) {
        0 => text.to_lowercase(),
        1 => title_case(text),
        _ => text.to_owned(),
    }
}

fn title_case(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut start = true;
    for c in text.chars() {
        if start {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        start = !c.is_ascii_alphanumeric();
    }
    out
}

fn abbreviate(text: &str) -> String {
    let pairs = [
        ("MARKET", "MKT"),
        ("CENTER", "CTR"),
        ("PHARMACY", "PHARM"),
        ("SERVICE", "SVC"),
        ("RESTAURANT", "RSTRNT"),
        ("DEPARTMENT", "DEPT"),
        ("HARDWARE", "HDWR"),
        ("APARTMENTS", "APTS"),
        ("MANAGEMENT", "MGMT"),
        ("INTERNATIONAL", "INTL"),
    ];
    let mut out = text.to_owned();
    for (long, short) in pairs {
        out = out.replace(long, short);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Measuring.

#[derive(Debug, Default)]
struct Measured {
    /// By score bucket (tens, 90s split in two): counterparties given, and right.
    by_score: std::collections::BTreeMap<u8, (usize, usize)>,
    total: usize,
    matched_right: usize,
    by_band: HashMap<Confidence, (usize, usize)>,
    locatable: usize,
    located: usize,
    prefixed: usize,
    intermediary_named: usize,
}

impl Measured {
    fn coverage(&self) -> f64 {
        let covered: usize = [Confidence::VeryHigh, Confidence::High]
            .iter()
            .map(|band| self.by_band.get(band).map_or(0, |(all, _)| *all))
            .sum();
        percent(covered, self.total)
    }

    fn precision(&self, band: Confidence) -> (f64, usize) {
        let (all, right) = self.by_band.get(&band).copied().unwrap_or_default();
        (percent(right, all), all)
    }

    fn line(&self) -> String {
        let band = |band: Confidence| {
            let (precision, count) = self.precision(band);
            format!("{} {precision:.1}% of {count}", band.as_str())
        };
        format!(
            "n={} coverage {:.1}% | {} | {} | {} | {} | brand top-1 {:.1}% | location {:.1}% of {} | intermediaries {:.1}% of {}",
            self.total,
            self.coverage(),
            band(Confidence::VeryHigh),
            band(Confidence::High),
            band(Confidence::Medium),
            band(Confidence::Low),
            percent(self.matched_right, self.total),
            percent(self.located, self.locatable),
            self.locatable,
            percent(self.intermediary_named, self.prefixed),
            self.prefixed,
        )
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 * 100.0 / whole as f64 }
}

fn network(case: &Case, fields: bool) -> NetworkData {
    NetworkData {
        descriptor: case.descriptor.clone(),
        mcc: fields.then_some(case.mcc),
        city: fields.then(|| case.city.clone()),
        zip: fields.then(|| case.zip.clone()),
        country: fields.then(|| case.country.clone()),
    }
}

fn measure(directory: &Directory, cases: &[Case], fields: bool, failures: usize) -> Measured {
    let inputs: Vec<NetworkData> = cases.iter().map(|case| network(case, fields)).collect();
    let matched = directory.match_transactions(&inputs);
    let mut measured = Measured { total: cases.len(), ..Measured::default() };
    let mut shown = 0;
    for (case, found) in cases.iter().zip(&matched) {
        let right = found.counterparty.as_ref().is_some_and(|counterparty| counterparty.brand.id == case.truth_brand);
        if let Some(counterparty) = &found.counterparty {
            let entry = measured.by_band.entry(counterparty.confidence).or_default();
            entry.0 += 1;
            entry.1 += usize::from(right);
            let bucket = if counterparty.score >= 90 {
                90 + (counterparty.score - 90) / 5 * 5
            } else {
                counterparty.score / 10 * 10
            };
            let entry = measured.by_score.entry(bucket).or_default();
            entry.0 += 1;
            entry.1 += usize::from(right);
        }
        measured.matched_right += usize::from(right);
        if case.locatable {
            measured.locatable += 1;
            let located = found
                .counterparty
                .as_ref()
                .and_then(|counterparty| counterparty.location.as_ref())
                .is_some_and(|location| location.id == case.truth_location);
            measured.located += usize::from(located);
        }
        if let Some(platform) = case.prefixed {
            measured.prefixed += 1;
            measured.intermediary_named += usize::from(found.intermediaries.iter().any(|named| named.name == platform));
        }
        let confident_and_wrong = found
            .counterparty
            .as_ref()
            .is_some_and(|counterparty| !right && counterparty.confidence >= Confidence::High);
        let missed = !right && case.prefixed.is_none_or(|_| true);
        if shown < failures && (confident_and_wrong || missed && shown < failures / 2) {
            shown += 1;
            let truth = directory.get(case.truth_location).map(|merchant| merchant.dba_name).unwrap_or_default();
            let got = found
                .counterparty
                .as_ref()
                .map(|counterparty| {
                    format!("{} ({} {})", counterparty.name, counterparty.score, counterparty.confidence.as_str())
                })
                .unwrap_or_else(|| "nothing".to_owned());
            println!("  [{}] {:?} -> {got}; truth {truth} in {}", case.recipe, case.descriptor, case.city);
        }
    }
    measured
}

fn batch_latency(directory: &Directory, cases: &[Case]) -> (Duration, Duration, usize) {
    let mut times = Vec::new();
    for batch in cases.chunks(100).cycle().take(300) {
        let inputs: Vec<NetworkData> = batch.iter().enumerate().map(|(at, case)| network(case, at % 2 == 0)).collect();
        let started = Instant::now();
        let matched = directory.match_transactions(&inputs);
        times.push(started.elapsed());
        std::hint::black_box(matched);
    }
    times.sort();
    let at = |share: f64| times[((times.len() as f64 * share) as usize).min(times.len() - 1)];
    (at(0.5), at(0.99), times.len())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .map(|line| line.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|load| load.split(' ').next().map(str::to_owned))
        .unwrap_or_default();
    format!("{cpus} CPUs ({model}), load average {load} at the start of the run, shared with other work")
}

fn write_report(
    path: &PathBuf,
    size: u32,
    count: usize,
    rows: &[(&str, bool, Measured)],
    p50: Duration,
    p99: Duration,
    batches: usize,
) -> anyhow::Result<()> {
    let mut section = String::new();
    section.push_str("<!-- enrich:start -->\n## Transaction enrichment (matching quality and speed)\n\n");
    section.push_str(&format!(
        "Command: `make bench-enrich` (`cargo run --release -p subscriber-server --example bench_enrich -- --count {count} --report BENCHMARKS.md`).\n\
         Machine: {}.\n\n\
         {count} merchants of the default directory ({size} merchants, seed {SEED}), half from sandbox cards' histories \
         and half drawn evenly, each printed three ways: varied by the calibration generator (the matcher's weights and band \
         edges were tuned on it), varied by a held-out generator written apart from it (other prefix spellings, widths, \
         typos, abbreviations, suffixes), and exactly as the directory prints it. Each is matched on the descriptor alone and \
         with what a card network sends beside it (MCC, city, zip, country). Coverage: share with a counterparty at `high` or \
         better. Precision: share of a band's counterparties that are the right brand. Location: the right store where the \
         descriptor still carries its store number or city. Intermediaries: the platform named, on descriptors with a prefix.\n\n",
        machine()
    ));
    section.push_str("| Set | Input | Coverage | very_high | high | medium | low | Brand top-1 | Location top-1 | Intermediaries |\n");
    section.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for (name, fields, measured) in rows {
        let band = |band: Confidence| {
            let (precision, all) = measured.precision(band);
            if all == 0 { "—".to_owned() } else { format!("{precision:.1}% (n={all})") }
        };
        section.push_str(&format!(
            "| {name} | {} | {:.1}% | {} | {} | {} | {} | {:.1}% | {:.1}% (n={}) | {:.1}% (n={}) |\n",
            if *fields { "descriptor + MCC, city, zip, country" } else { "descriptor" },
            measured.coverage(),
            band(Confidence::VeryHigh),
            band(Confidence::High),
            band(Confidence::Medium),
            band(Confidence::Low),
            percent(measured.matched_right, measured.total),
            percent(measured.located, measured.locatable),
            measured.locatable,
            percent(measured.intermediary_named, measured.prefixed),
            measured.prefixed,
        ));
    }
    section.push_str(
        "\nThe `unknown` set holds merchants of another seed's directory whose names this one lacks: every \
         counterparty found there is wrong, so its coverage is the rate of false matches at `high` or better.\n",
    );
    section.push_str(&format!(
        "\n`POST /transactions/enrich`'s work for 100 descriptors (the matcher in process, half with network fields): \
         p50 {:.2} ms, p99 {:.2} ms over {batches} batches.\n<!-- enrich:end -->\n",
        ms(p50),
        ms(p99)
    ));
    let existing = std::fs::read_to_string(path).unwrap_or_default();
    let updated = match (existing.find("<!-- enrich:start -->"), existing.find("<!-- enrich:end -->")) {
        (Some(start), Some(end)) => {
            let end = end + "<!-- enrich:end -->\n".len();
            format!("{}{section}{}", &existing[..start], existing.get(end..).unwrap_or(""))
        }
        _ => format!("{existing}\n{section}"),
    };
    std::fs::write(path, updated)?;
    Ok(())
}
