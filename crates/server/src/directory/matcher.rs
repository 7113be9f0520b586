//! The matcher: from what a card network sends (descriptor, MCC, city, zip, country), the
//! brand a transaction was with, the location when the descriptor or the fields tell, and how
//! sure that is.
//!
//! How it weighs the evidence (calibrated on `make bench-enrich`'s labelled set):
//! 1. The descriptor is read ([`intermediaries::read`]): processor, marketplace and wallet
//!    prefixes set apart, bank noise dropped, store numbers, order numbers and words apart.
//! 2. Brands sharing letter trigrams with what is left are shortlisted (brands with a
//!    location at the `zip` or in the `city` sent come first).
//! 3. Each is aligned letter by letter with the descriptor (a banded edit distance anchored at
//!    the start): either the whole name and then a remainder (a city, a state, a country,
//!    words such as `STORE` or `ONLINE`), or the descriptor ending inside the name (cut short).
//! 4. A brand's score is the log of its odds: matched letters for it, errors and unexplained
//!    letters against it, plus, summed over its locations, what each location agrees with
//!    (store number, the city or state printed, the zip, city and country sent, the MCC). A
//!    chain's many stores make it likelier than one shop with the same beginning of a name.
//! 5. The brands' odds and a "none of these" share make probabilities; the best brand's is
//!    the confidence, mapped onto a score of 0 to 100 whose bands (`very_high` ≥ 90, `high`
//!    ≥ 75, `medium` ≥ 50) carry the published precision.

use std::collections::HashMap;
use std::sync::Arc;

use subscriber_protocol::{Confidence, MatchReason};

use super::Entry;
use super::brands::{Brand, Brands, first_trigram, spelt_out, trigrams};
use super::descriptor::digit_runs;
use super::intermediaries::{self, Platform, Reading};
use super::search::{SearchIndex, zip_key};
use crate::reference::places::fold_city;

/// What a card network sends about a transaction.
#[derive(Debug, Clone, Default)]
pub struct NetworkData {
    pub descriptor: String,
    pub mcc: Option<u16>,
    pub city: Option<String>,
    pub zip: Option<String>,
    /// ISO 3166-1 alpha-3, upper case.
    pub country: Option<String>,
}

/// The brands found for a transaction, best first, and how the descriptor read.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub reading: Reading,
    /// The counterparty: the best brand, when it is likelier than not to be one at all.
    pub best: Option<BrandMatch>,
    /// Every brand weighed, best first (discovery lists their locations).
    pub ranked: Vec<BrandMatch>,
}

/// A brand found.
#[derive(Debug, Clone)]
pub struct BrandMatch {
    pub brand: u32,
    /// The entry position of the location the evidence points to, when it points to one.
    pub location: Option<u32>,
    /// Its locations, best first, with how well each fits (log-odds; up to 10).
    pub locations: Vec<(u32, f64)>,
    /// The probability that this is the brand.
    pub probability: f64,
    /// 0 to 100, the probability on the published scale.
    pub score: u8,
    pub confidence: Confidence,
    pub reasons: Vec<MatchReason>,
}

/// The directory as the matcher reads it.
pub struct View<'a> {
    pub entries: &'a [Entry],
    pub brands: &'a Brands,
    pub indexes: [&'a SearchIndex; 2],
}

// The weights of the evidence, in log-odds (natural log).
/// Each letter of the name matched, up to [`LETTER_CAP`].
const W_LETTER: f64 = 0.6;
const LETTER_CAP: f64 = 16.0;
/// Each letter wrong, missing or extra within the name.
const W_ERROR: f64 = 2.5;
/// Each letter after the name that no city, state, country or filler word explains.
const W_UNEXPLAINED: f64 = 0.9;
/// The descriptor is one the location prints, exactly.
const W_EXACT: f64 = 3.0;
const W_NUMBER: f64 = 3.0;
const W_NUMBER_PREFIX: f64 = 1.2;
const W_CITY_PRINTED: f64 = 1.5;
const W_CITY_PREFIX: f64 = 0.8;
const W_REGION: f64 = 0.6;
const W_FIELD_ZIP: f64 = 3.0;
const W_FIELD_ZIP_MISS: f64 = -1.0;
const W_FIELD_CITY: f64 = 2.5;
const W_FIELD_CITY_MISS: f64 = -1.5;
const W_FIELD_COUNTRY_MISS: f64 = -3.0;
const W_MCC: f64 = 1.0;
const W_MCC_RELATED: f64 = -0.5;
const W_MCC_MISS: f64 = -3.0;
/// The descriptor ends inside the name at the end of one of its words, though it is shorter
/// than statements cut at.
const W_CUT_AT_WORD: f64 = -2.5;
/// The descriptor ends inside a word of the name.
const W_CUT_IN_WORD: f64 = -0.4;
/// The name cut short inside a word, and more printed after it (a chain's descriptor).
const W_CUT_THEN_MORE: f64 = -0.6;
/// The name's last words left out, and more printed after it.
const W_WORDS_LEFT_OUT: f64 = -1.5;
/// Where a name ending inside a statement's width stops being a surprise.
const CUT_WIDTH: usize = 19;
/// The odds of "none of the brands": a merchant the directory does not have.
const NULL_ODDS: f64 = 2.2;
/// Band edges on the probability: at or above each, the band's lowest score.
const P_VERY_HIGH: f64 = 0.985;
const P_HIGH: f64 = 0.90;
const P_MEDIUM: f64 = 0.60;
/// Below this probability no counterparty is given.
const P_NONE: f64 = 0.20;

/// Letters of the descriptor compared at most.
const MAX_LETTERS: usize = 48;
/// Edit-distance band: letters the descriptor and the name may drift apart.
const BAND: usize = 4;
/// Brands aligned with the descriptor.
const SHORTLIST: usize = 48;
/// Brands whose locations are weighed one by one.
const WEIGHED: usize = 8;
/// Locations of a brand weighed at most (a chain's beyond it count as one of the average).
const MAX_LOCATIONS: usize = 4000;

/// Words a statement adds after the name that say nothing about which merchant.
const FILLERS: &[&str] = &[
    "STORE",
    "SHOP",
    "INC",
    "LLC",
    "LTD",
    "CORP",
    "COM",
    "WWW",
    "NET",
    "ORG",
    "ONLINE",
    "WEB",
    "APP",
    "BILL",
    "BILLING",
    "PAYMENT",
    "PMT",
    "SUBSCRIPTION",
    "SUBSCR",
    "MEMBERSHIP",
    "RECURRING",
    "AUTOPAY",
    "GMBH",
    "SARL",
    "SAS",
    "SRL",
    "SPA",
    "PTY",
    "LOC",
    "LOCATION",
    "NO",
    "NUM",
    "NBR",
    "UNIT",
    "HTTP",
    "HTTPS",
    "HELP",
    "CO",
    "US",
    "USA",
    "INTL",
    "PURCHASE",
    "POS",
    "ORDER",
    "ORD",
    "MOBILE",
    "ECOM",
    "TEL",
    "PH",
    "PHONE",
    "SALE",
    "THE",
    "REF",
    "VIA",
    "INV",
    "INVOICE",
    "TXN",
    "ID",
    "CARD",
    "AUTH",
];

/// Country codes statements print after the city.
const COUNTRY_CODES: &[&str] = &[
    "US", "USA", "DE", "DEU", "GER", "FR", "FRA", "IT", "ITA", "ES", "ESP", "AU", "AUS", "AT", "AUT", "CH", "CHE",
    "BE", "BEL", "GB", "GBR", "UK", "CA", "CAN", "NL", "NLD",
];

/// The descriptor made ready to compare.
struct Prepared {
    letters: Vec<u8>,
    /// `word_end[i]`: a word of the descriptor ends after letter `i - 1`.
    word_end: Vec<bool>,
    /// Store numbers printed, leading zeros dropped, with the digits as printed.
    numbers: Vec<(u64, String)>,
    exact_key: String,
    grams: Vec<u32>,
    printed_length: usize,
    city_letters: Option<String>,
    city_folded: Option<String>,
    zip: Option<String>,
    country: Option<String>,
    mcc: Option<u16>,
}

fn prepare(reading: &Reading, network: &NetworkData) -> Prepared {
    let mut letters = Vec::with_capacity(MAX_LETTERS);
    let mut word_end = vec![true];
    let mut numbers = Vec::new();
    let mut exact_key = String::new();
    for word in &reading.words {
        exact_key.extend(word.chars().filter(char::is_ascii_alphanumeric));
        if intermediaries::is_reference(word) && word.bytes().any(|byte| byte.is_ascii_alphabetic()) {
            continue;
        }
        for digits in digit_runs(word) {
            if digits.len() <= 6 {
                let value = digits.trim_start_matches('0').parse().unwrap_or(0);
                numbers.push((value, digits.to_owned()));
            }
        }
        let word_letters: String = word.chars().filter(char::is_ascii_alphabetic).collect();
        if word_letters.is_empty() || word_letters == "AND" {
            continue;
        }
        for byte in spelt_out(&word_letters).bytes() {
            if letters.len() < MAX_LETTERS {
                letters.push(byte);
                word_end.push(false);
            }
        }
        if let Some(last) = word_end.last_mut() {
            *last = true;
        }
    }
    let mut grams: Vec<u32> = trigrams(std::str::from_utf8(&letters).unwrap_or_default()).collect();
    grams.sort_unstable();
    grams.dedup();
    fn field(value: &Option<String>) -> Option<&str> {
        value.as_deref().map(str::trim).filter(|value| !value.is_empty())
    }
    let city_letters = field(&network.city).map(super::descriptor::letters).filter(|city| !city.is_empty());
    Prepared {
        letters,
        word_end,
        numbers,
        exact_key,
        grams,
        printed_length: reading.printed_length,
        city_folded: field(&network.city).map(fold_city),
        city_letters,
        zip: field(&network.zip).map(zip_key).filter(|zip| !zip.is_empty()),
        country: field(&network.country).map(str::to_ascii_uppercase),
        mcc: network.mcc,
    }
}

/// How the name lines up with the descriptor.
#[derive(Debug, Clone, Copy)]
struct NameFit {
    /// Log-odds from the name alone.
    odds: f64,
    errors: u8,
    /// Letters of the descriptor the name took; the rest is the remainder.
    consumed: usize,
    /// The descriptor ended inside the name.
    cut: bool,
}

impl NameFit {
    const NONE: NameFit = NameFit { odds: f64::MIN / 4.0, errors: 0, consumed: 0, cut: false };
}

/// What a location makes of the evidence.
#[derive(Debug, Clone, Copy, Default)]
struct LocationFit {
    odds: f64,
    number: bool,
    city: bool,
    region: bool,
    zip: bool,
    country: bool,
    exact: bool,
}

/// A brand weighed.
struct Weighed {
    brand: u32,
    /// The ways its name lines up, best first (at most [`FITS`]).
    names: Vec<NameFit>,
    /// The one the brand's best location took.
    name: NameFit,
    odds: f64,
    locations: Vec<(u32, f64, LocationFit)>,
}

/// Ways a name may line up with the descriptor, weighed with each location.
const FITS: usize = 3;

impl View<'_> {
    /// The brands for what a network sent, best first.
    pub fn find(&self, network: &NetworkData) -> Outcome {
        let reading = intermediaries::read(&network.descriptor);
        if reading.only_intermediary {
            let best = reading.intermediaries.last().and_then(|platform| self.platform_found(platform, &reading));
            let ranked = best.iter().cloned().collect();
            return Outcome { reading, best, ranked };
        }
        let query = prepare(&reading, network);
        if query.letters.len() < 3 && query.exact_key.len() < 3 {
            return Outcome { reading, best: None, ranked: Vec::new() };
        }
        let exact: Vec<u32> = self
            .indexes
            .iter()
            .flat_map(|index| index.with_exact_key(&query.exact_key).iter().copied())
            .filter(|position| !self.entries[*position as usize].retired)
            .collect();
        let near = self.near(&query);
        let exact_brands: Vec<u32> = exact.iter().filter_map(|position| self.brands.of_entry(*position)).collect();
        let candidates = self.shortlist(&query, &exact_brands, &near);
        let mut weighed: Vec<Weighed> = candidates
            .into_iter()
            .filter_map(|brand| {
                let record = self.brands.get(brand)?;
                let mut names = fit_name(&query, record);
                if names.is_empty() && exact_brands.contains(&brand) {
                    // Printed exactly as one of its locations prints it, however the letters align.
                    let seen = record.letters.len().min(query.letters.len()) as f64;
                    names.push(NameFit {
                        odds: W_LETTER * seen.min(LETTER_CAP),
                        errors: 0,
                        consumed: query.letters.len(),
                        cut: false,
                    });
                }
                let best = *names.first()?;
                let live =
                    record.locations.iter().filter(|position| !self.entries[**position as usize].retired).count();
                if live == 0 && record.platform.is_none() {
                    return None;
                }
                let rough =
                    best.odds + (live.max(1) as f64).ln() + near.odds(&query, brand) + mcc_odds(query.mcc, record);
                Some(Weighed { brand, names, name: best, odds: rough, locations: Vec::new() })
            })
            .collect();
        weighed.sort_by(|a, b| b.odds.total_cmp(&a.odds).then(a.brand.cmp(&b.brand)));
        for candidate in weighed.iter_mut().take(WEIGHED) {
            let Some(record) = self.brands.get(candidate.brand) else { continue };
            let (odds, name, locations) = self.weigh_locations(&query, record, &candidate.names, &exact);
            candidate.odds = odds + mcc_odds(query.mcc, record);
            candidate.name = name;
            candidate.locations = locations;
        }
        weighed.sort_by(|a, b| b.odds.total_cmp(&a.odds).then(a.brand.cmp(&b.brand)));
        let top = weighed.first().map_or(0.0, |first| first.odds).max(NULL_ODDS);
        let total: f64 =
            weighed.iter().map(|candidate| (candidate.odds - top).exp()).sum::<f64>() + (NULL_ODDS - top).exp();
        let mut ranked: Vec<BrandMatch> = weighed
            .iter()
            .take(WEIGHED)
            .filter_map(|candidate| {
                let probability = (candidate.odds - top).exp() / total;
                let record = self.brands.get(candidate.brand)?;
                Some(self.found(candidate, record, probability, &reading, &query, &weighed))
            })
            .collect();
        ranked.retain(|found| found.probability >= 0.01 || found.locations.iter().any(|(_, odds)| *odds > 0.0));
        let best = ranked.first().filter(|found| found.probability >= P_NONE).cloned();
        Outcome { reading, best, ranked }
    }

    /// The brands with a location at the zip, or in the city, the network sent.
    fn near(&self, query: &Prepared) -> Near {
        let mut near = Near::default();
        if let Some(zip) = &query.zip {
            for index in self.indexes {
                near.zip.extend(index.at_zip(zip).iter().filter_map(|position| self.brands.of_entry(*position)));
            }
        }
        if let Some(city) = &query.city_folded {
            for index in self.indexes {
                near.city.extend(index.in_city(city).iter().filter_map(|position| self.brands.of_entry(*position)));
            }
        }
        near
    }

    /// Brands sharing the most trigrams with the descriptor, those starting as it starts ahead;
    /// those near what the network sent, and those printing it exactly, first.
    fn shortlist(&self, query: &Prepared, exact: &[u32], near: &Near) -> Vec<u32> {
        let mut counts = vec![0u16; self.brands.len()];
        let mut touched: Vec<u32> = Vec::with_capacity(2048);
        for gram in &query.grams {
            for brand in self.brands.with_gram(*gram) {
                let count = &mut counts[*brand as usize];
                if *count == 0 {
                    touched.push(*brand);
                }
                *count += 1;
            }
        }
        let first_gram = first_trigram(&query.letters);
        let needed = if query.grams.len() <= 3 { 1 } else { 2 };
        let mut ranked: Vec<(u32, u16)> = touched
            .into_iter()
            .filter(|brand| counts[*brand as usize] >= needed)
            .map(|brand| {
                let mut key = counts[brand as usize];
                let starts_alike = first_gram.is_some_and(|gram| self.brands.starts_with_gram(brand, gram));
                if starts_alike {
                    key += 2;
                }
                if near.zip.contains(&brand) {
                    key += 4;
                } else if near.city.contains(&brand) {
                    key += 3;
                }
                (brand, key)
            })
            .collect();
        let order = |a: &(u32, u16), b: &(u32, u16)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
        if ranked.len() > SHORTLIST {
            ranked.select_nth_unstable_by(SHORTLIST - 1, order);
            ranked.truncate(SHORTLIST);
        }
        ranked.sort_by(order);
        let mut shortlist: Vec<u32> = exact.to_vec();
        shortlist.sort_unstable();
        shortlist.dedup();
        for (brand, _) in ranked {
            if !shortlist.contains(&brand) {
                shortlist.push(brand);
            }
        }
        shortlist
    }

    /// The brand's odds (its name's and, summed over its locations, theirs), the name fit its
    /// best location took, and its locations best first with what each adds to the name.
    fn weigh_locations(
        &self,
        query: &Prepared,
        brand: &Brand,
        names: &[NameFit],
        exact: &[u32],
    ) -> (f64, NameFit, Vec<(u32, f64, LocationFit)>) {
        let Some(&first) = names.first() else { return (f64::MIN / 4.0, NameFit::NONE, Vec::new()) };
        if brand.platform.is_some() && brand.locations.is_empty() {
            let remainder = &query.letters[first.consumed..];
            let unexplained = explain(remainder, &query.word_end[first.consumed..], None).unexplained;
            return (first.odds - unexplained_odds(unexplained), first, Vec::new());
        }
        let position_of_brand = self.brand_position(brand);
        let numbered: Vec<u32> = query
            .numbers
            .iter()
            .flat_map(|(value, _)| self.brands.with_number(position_of_brand, *value).iter().copied())
            .collect();
        let mut explained: HashMap<(usize, usize, usize), Explanation> = HashMap::new();
        let mut fits: Vec<(u32, f64, LocationFit, NameFit)> = Vec::new();
        for position in brand.locations.iter().take(MAX_LOCATIONS) {
            let entry = &self.entries[*position as usize];
            if entry.retired {
                continue;
            }
            let mut fit = LocationFit::default();
            if exact.contains(position) {
                fit.exact = true;
                fit.odds += W_EXACT;
            }
            if numbered.contains(position) {
                fit.number = true;
                fit.odds += W_NUMBER;
            } else if brand.numbered && !query.numbers.is_empty() {
                let own = digit_runs(super::descriptor::split_prefix(&entry.descriptor).1);
                let cut_short = query.numbers.last().is_some_and(|(_, printed)| {
                    printed.len() >= 2
                        && own.iter().any(|digits| digits.len() > printed.len() && digits.starts_with(printed.as_str()))
                });
                if cut_short {
                    fit.number = true;
                    fit.odds += W_NUMBER_PREFIX;
                }
            }
            if let Some(zip) = &query.zip {
                if self.brands.zip_key_of(entry) == zip.as_str() {
                    fit.zip = true;
                    fit.odds += W_FIELD_ZIP;
                } else {
                    fit.odds += W_FIELD_ZIP_MISS;
                }
            }
            if let Some(city) = &query.city_letters {
                if self.brands.city_letters_of(entry) == city.as_str() {
                    fit.city = true;
                    fit.odds += W_FIELD_CITY;
                } else {
                    fit.odds += W_FIELD_CITY_MISS;
                }
            }
            if let Some(country) = &query.country {
                if &*entry.country == country.as_str() {
                    fit.country = true;
                } else {
                    fit.odds += W_FIELD_COUNTRY_MISS;
                }
            }
            // The best way the name and this place explain the descriptor together.
            let city = Arc::as_ptr(&entry.city).cast::<u8>() as usize;
            let region = entry.region.as_ref().map_or(0, |region| Arc::as_ptr(region).cast::<u8>() as usize);
            let mut best: Option<(f64, LocationFit, NameFit)> = None;
            for name in names {
                let mut located = fit;
                let remainder = &query.letters[name.consumed..];
                if !remainder.is_empty() {
                    let explanation = *explained.entry((name.consumed, city, region)).or_insert_with(|| {
                        let place = Place {
                            city: self.brands.city_letters_of(entry).as_bytes(),
                            region: entry.region.as_deref().map(str::as_bytes),
                        };
                        explain(remainder, &query.word_end[name.consumed..], Some(place))
                    });
                    located.odds -= unexplained_odds(explanation.unexplained);
                    if explanation.city_letters >= 4 || explanation.city_whole {
                        located.city = true;
                        located.odds += if explanation.city_whole { W_CITY_PRINTED } else { W_CITY_PREFIX };
                    } else if explanation.city_letters >= 2 {
                        located.odds += W_CITY_PREFIX * 0.5;
                    }
                    if explanation.region {
                        located.region = true;
                        located.odds += W_REGION;
                    }
                }
                let total = name.odds + located.odds;
                if best.as_ref().is_none_or(|(odds, _, _)| total > *odds) {
                    best = Some((total, located, *name));
                }
            }
            if let Some((odds, located, name)) = best {
                fits.push((*position, odds, located, name));
            }
        }
        if fits.is_empty() {
            return (f64::MIN / 4.0, first, Vec::new());
        }
        fits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let top = fits[0].1;
        let sum: f64 = fits.iter().map(|(_, odds, _, _)| (odds - top).exp()).sum();
        let beyond = brand.locations.len().saturating_sub(MAX_LOCATIONS) as f64;
        let average = sum / fits.len() as f64;
        let name = fits[0].3;
        let odds = top + (sum + beyond * average).ln();
        // What each location adds to the name, for discovery's order of a brand's locations.
        let locations = fits.into_iter().map(|(position, odds, fit, _)| (position, odds - name.odds, fit)).collect();
        (odds, name, locations)
    }

    fn brand_position(&self, brand: &Brand) -> u32 {
        self.brands.by_id(&brand.id).map_or(u32::MAX, |(position, _)| position)
    }

    fn found(
        &self,
        candidate: &Weighed,
        brand: &Brand,
        probability: f64,
        reading: &Reading,
        query: &Prepared,
        weighed: &[Weighed],
    ) -> BrandMatch {
        let best_location = candidate.locations.first();
        // A location is named when something points to it, or when the brand has only one.
        let location = best_location.and_then(|(position, odds, fit)| {
            let tied = candidate.locations.get(1).is_some_and(|(_, second, _)| (odds - second).abs() < 0.3);
            let pointed = fit.number || fit.city || fit.zip || fit.exact || fit.region;
            (candidate.locations.len() == 1 || pointed && !tied || pointed && fit.number).then_some(*position)
        });
        let fit = best_location.map(|(_, _, fit)| *fit).unwrap_or_default();
        let mut reasons = Vec::new();
        if fit.exact {
            reasons.push(MatchReason::DescriptorExact);
        } else {
            reasons.push(MatchReason::DescriptorFuzzy);
        }
        if candidate.name.cut {
            reasons.push(MatchReason::Truncated);
        }
        if candidate.name.errors > 0 {
            reasons.push(MatchReason::Typo);
        }
        if fit.number {
            reasons.push(MatchReason::StoreNumber);
        }
        if fit.city {
            reasons.push(MatchReason::CityMatch);
        }
        if fit.region {
            reasons.push(MatchReason::RegionMatch);
        }
        if fit.zip {
            reasons.push(MatchReason::ZipMatch);
        }
        if fit.country {
            reasons.push(MatchReason::CountryMatch);
        }
        match query.mcc {
            Some(mcc) if brand.mcc != 0 && mcc == brand.mcc => reasons.push(MatchReason::MccMatch),
            Some(_) if brand.mcc != 0 => reasons.push(MatchReason::MccMismatch),
            _ => {}
        }
        if !reading.intermediaries.is_empty() {
            reasons.push(MatchReason::IntermediaryStripped);
        }
        let rivals =
            weighed.iter().filter(|other| other.brand != candidate.brand && other.odds > candidate.odds - 2.0).count();
        if rivals > 0 && probability < P_VERY_HIGH {
            reasons.push(MatchReason::Ambiguous);
        }
        let score = score_of(probability);
        BrandMatch {
            brand: candidate.brand,
            location,
            locations: candidate.locations.iter().take(50).map(|(position, odds, _)| (*position, *odds)).collect(),
            probability,
            score,
            confidence: Confidence::of_score(score),
            reasons,
        }
    }

    fn platform_found(&self, platform: &Platform, reading: &Reading) -> Option<BrandMatch> {
        let (brand, _) = self.brands.of_platform(platform)?;
        // Only a platform and an order number, or a short descriptor: the platform itself. A
        // descriptor as long as statements cut at may have lost the merchant after it.
        let whole = reading.references || reading.printed_length < CUT_WIDTH && reading.words.is_empty();
        let probability = if whole { 0.99 } else { 0.45 };
        let score = score_of(probability);
        Some(BrandMatch {
            brand,
            location: None,
            locations: Vec::new(),
            probability,
            score,
            confidence: Confidence::of_score(score),
            reasons: vec![MatchReason::IntermediaryOnly],
        })
    }
}

/// The MCC sent against the brand's.
fn mcc_odds(mcc: Option<u16>, brand: &Brand) -> f64 {
    let Some(mcc) = mcc else { return 0.0 };
    if brand.mcc == 0 {
        return 0.0;
    }
    if mcc == brand.mcc {
        W_MCC
    } else if related_mcc(mcc, brand.mcc) {
        W_MCC_RELATED
    } else {
        W_MCC_MISS
    }
}

/// Codes a network may give the same merchant: eating places, food shops, clothing.
fn related_mcc(a: u16, b: u16) -> bool {
    const FAMILIES: &[&[u16]] = &[
        &[5811, 5812, 5813, 5814, 5462, 5499],
        &[5411, 5422, 5441, 5451, 5462, 5499, 5311, 5331, 5300],
        &[5611, 5621, 5631, 5641, 5651, 5655, 5661, 5691, 5699, 5311],
        &[5541, 5542, 5499, 5983],
        &[4812, 4814, 4816, 4899, 5815, 5816, 5817, 5818],
        &[5732, 5734, 5045, 5946, 5999],
        &[5200, 5211, 5251, 5261, 5712, 5719],
        &[8011, 8021, 8031, 8041, 8042, 8043, 8049, 8050, 8062, 8071, 8099, 5912],
        &[5912, 5122, 5499, 5977],
        &[5942, 5994, 5815],
        &[7011, 7012, 3501, 4722],
        &[4111, 4121, 4131, 4789, 7523],
        &[5999, 5945, 5947, 5992, 5969, 5964, 5965],
    ];
    FAMILIES.iter().any(|family| family.contains(&a) && family.contains(&b))
}

/// The probability on the published 0–100 scale: the band edges fall on the calibrated
/// probabilities.
pub fn score_of(probability: f64) -> u8 {
    let knots = [(0.0, 0.0), (P_NONE, 30.0), (P_MEDIUM, 50.0), (P_HIGH, 75.0), (P_VERY_HIGH, 90.0), (1.0, 100.0)];
    let probability = probability.clamp(0.0, 1.0);
    for pair in knots.windows(2) {
        let ((p0, s0), (p1, s1)) = (pair[0], pair[1]);
        if probability <= p1 {
            let share = if p1 > p0 { (probability - p0) / (p1 - p0) } else { 1.0 };
            return (s0 + share * (s1 - s0) + 1e-9).floor().clamp(0.0, 100.0) as u8;
        }
    }
    100
}

/// The ways the brand's name lines up with the descriptor, best first, one per remainder.
fn fit_name(query: &Prepared, brand: &Brand) -> Vec<NameFit> {
    let letters = brand.letters.as_bytes();
    let mut fits = align_name(query, letters, brand.word_ends);
    if brand.article > 0 {
        let article = usize::from(brand.article);
        fits.extend(align_name(query, &letters[article..], brand.word_ends >> article));
    }
    fits.sort_by(|a, b| b.odds.total_cmp(&a.odds).then(b.consumed.cmp(&a.consumed)));
    let mut kept: Vec<NameFit> = Vec::with_capacity(FITS);
    for fit in fits {
        if kept.len() < FITS && !kept.iter().any(|known| known.consumed == fit.consumed) {
            kept.push(fit);
        }
    }
    kept
}

/// Every way the name lines up: the whole name then a remainder; the descriptor ending inside
/// the name; or the name cut short at the end of one of the descriptor's words and a remainder
/// after it (chains' descriptors cut the name to make room for the store number).
fn align_name(query: &Prepared, name: &[u8], word_ends: u64) -> Vec<NameFit> {
    let q = &query.letters;
    let n = &name[..name.len().min(MAX_LETTERS)];
    let mut fits = Vec::new();
    if n.len() < 2 || q.is_empty() {
        return fits;
    }
    let table = edit_table(q, n);
    let width = n.len() + 1;
    let at = |i: usize, j: usize| table[i * width + j];
    let allowed = |letters: usize| -> u8 { (letters / 5).clamp(1, 4) as u8 };
    let name_word_ends_at = |letters: usize| (1..=64).contains(&letters) && word_ends & (1 << (letters - 1)) != 0;
    let odds_of = |seen: usize, errors: u8| {
        W_LETTER * (seen as f64 - f64::from(errors)).min(LETTER_CAP) - W_ERROR * f64::from(errors)
    };
    // The whole name, then a remainder.
    for i in n.len().saturating_sub(BAND)..=(n.len() + BAND).min(q.len()) {
        let errors = at(i, n.len());
        // A name of three letters or less has to be exact.
        if errors <= allowed(n.len()) && (n.len() > 3 || errors == 0) {
            fits.push(NameFit { odds: odds_of(n.len(), errors), errors, consumed: i, cut: false });
        }
    }
    // The descriptor ends inside the name.
    if q.len() < n.len() {
        for j in q.len().saturating_sub(BAND).max(3)..=(q.len() + BAND).min(n.len() - 1) {
            let errors = at(q.len(), j);
            if errors > allowed(j) {
                continue;
            }
            let cut = if query.printed_length >= CUT_WIDTH {
                0.0
            } else if name_word_ends_at(j) {
                W_CUT_AT_WORD
            } else {
                W_CUT_IN_WORD
            };
            fits.push(NameFit { odds: odds_of(j, errors) + cut, errors, consumed: q.len(), cut: true });
        }
    }
    // The name cut where a word of the descriptor ends, and more after it.
    for i in 3..q.len() {
        if !query.word_end.get(i).copied().unwrap_or(false) {
            continue;
        }
        for j in i.saturating_sub(BAND).max(3)..=(i + BAND).min(n.len().saturating_sub(1)) {
            let errors = at(i, j);
            if errors > allowed(j) || name_word_ends_at(j) && j + 1 < n.len() && errors > 0 {
                continue;
            }
            // At a word of the name, it is a word left out; inside one, the name was cut.
            let cut = if name_word_ends_at(j) { W_WORDS_LEFT_OUT } else { W_CUT_IN_WORD + W_CUT_THEN_MORE };
            fits.push(NameFit { odds: odds_of(j, errors) + cut, errors, consumed: i, cut: !name_word_ends_at(j) });
        }
    }
    fits
}

/// Banded edit distance (adjacent transpositions count once) of every prefix of `q` with
/// every prefix of `n`; letters of `q` before the name cost one each.
fn edit_table(q: &[u8], n: &[u8]) -> Vec<u8> {
    const FAR: u8 = 200;
    let width = n.len() + 1;
    let mut table = vec![FAR; (q.len() + 1) * width];
    for (j, cell) in table.iter_mut().enumerate().take(n.len().min(BAND) + 1) {
        *cell = j as u8;
    }
    for i in 1..=q.len() {
        if i <= BAND {
            table[i * width] = i as u8;
        }
        let low = i.saturating_sub(BAND).max(1);
        let high = (i + BAND).min(n.len());
        for j in low..=high {
            let substitution = table[(i - 1) * width + j - 1].saturating_add(u8::from(q[i - 1] != n[j - 1]));
            let deletion = table[i * width + j - 1].saturating_add(1);
            let insertion = table[(i - 1) * width + j].saturating_add(1);
            let mut cost = substitution.min(deletion).min(insertion);
            if i > 1 && j > 1 && q[i - 1] == n[j - 2] && q[i - 2] == n[j - 1] {
                cost = cost.min(table[(i - 2) * width + j - 2].saturating_add(1));
            }
            table[i * width + j] = cost.min(FAR);
        }
    }
    table
}

/// What unexplained letters after the name cost: the first few much, the rest less (a word
/// the statement added is as likely long as short).
fn unexplained_odds(letters: usize) -> f64 {
    let letters = letters as f64;
    W_UNEXPLAINED * letters.min(4.0) + 0.3 * (letters - 4.0).max(0.0)
}

/// The brands at the zip and in the city the network sent.
#[derive(Default)]
struct Near {
    zip: std::collections::HashSet<u32>,
    city: std::collections::HashSet<u32>,
}

impl Near {
    /// Before weighing locations one by one: whether the brand is at the zip or in the city.
    fn odds(&self, query: &Prepared, brand: u32) -> f64 {
        let mut odds = 0.0;
        if query.zip.is_some() {
            odds += if self.zip.contains(&brand) { W_FIELD_ZIP } else { W_FIELD_ZIP_MISS };
        }
        if query.city_folded.is_some() {
            odds += if self.city.contains(&brand) { W_FIELD_CITY } else { W_FIELD_CITY_MISS };
        }
        odds
    }
}

/// A place a remainder may name.
#[derive(Clone, Copy)]
struct Place<'a> {
    city: &'a [u8],
    region: Option<&'a [u8]>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Explanation {
    unexplained: usize,
    /// Letters of the city printed (all of it or its beginning).
    city_letters: usize,
    city_whole: bool,
    region: bool,
}

/// What of the letters after the name a city (whole, cut short, or with one letter wrong), a
/// state, a country or filler words explain.
fn explain(remainder: &[u8], word_end: &[bool], place: Option<Place<'_>>) -> Explanation {
    let mut explanation = Explanation::default();
    let mut at = 0;
    let ends_word = |end: usize| end >= remainder.len() || word_end.get(end).copied().unwrap_or(true);
    while at < remainder.len() {
        let rest = &remainder[at..];
        if let Some(place) = place {
            if let Some((letters, whole)) = city_printed(rest, place.city, |length| ends_word(at + length)) {
                explanation.city_letters = explanation.city_letters.max(letters);
                explanation.city_whole |= whole;
                at += letters;
                continue;
            }
            if let Some(region) = place.region
                && !explanation.region
                && region.len() >= 2
                && rest.starts_with(region)
                && ends_word(at + region.len())
            {
                explanation.region = true;
                at += region.len();
                continue;
            }
        }
        let word = COUNTRY_CODES
            .iter()
            .chain(FILLERS)
            .find(|word| rest.starts_with(word.as_bytes()) && (word.len() >= 4 || ends_word(at + word.len())));
        match word {
            Some(word) => at += word.len(),
            None => break,
        }
    }
    explanation.unexplained = remainder.len() - at.min(remainder.len());
    explanation
}

/// The letters of `rest` a city takes, and whether all of the city: the whole city; its
/// beginning up to a word's end or the end (cut short); either with one letter wrong when
/// five letters or more.
fn city_printed(rest: &[u8], city: &[u8], ends_word: impl Fn(usize) -> bool) -> Option<(usize, bool)> {
    if city.len() < 2 || rest.len() < 2 {
        return None;
    }
    if rest.starts_with(city) {
        return Some((city.len(), true));
    }
    let common = rest.iter().zip(city).take_while(|(a, b)| a == b).count();
    if common >= 2 && (common == rest.len() || common >= 3 && ends_word(common)) {
        return Some((common, false));
    }
    if city.len() >= 5 && rest.len() >= 5 {
        // One letter wrong, missing, extra or swapped: over the whole city, or its beginning.
        let span = rest.len().min(city.len() + 1);
        let table = edit_table(&rest[..span], city);
        let width = city.len() + 1;
        for length in (5..=span).rev() {
            let whole = table[length * width + city.len()] <= 1;
            let beginning = length <= city.len()
                && table[length * width + length] <= 1
                && (length == rest.len() || ends_word(length));
            if whole || beginning {
                return Some((length, whole));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(descriptor: &str) -> Prepared {
        prepare(
            &intermediaries::read(descriptor),
            &NetworkData { descriptor: descriptor.to_owned(), ..NetworkData::default() },
        )
    }

    #[test]
    fn the_descriptor_is_read_into_letters_and_numbers() {
        let query = prepared("SQ *LAKESHORE MKT #0042 CHICAGO IL");
        assert_eq!(std::str::from_utf8(&query.letters).ok(), Some("LAKESHOREMARKETCHICAGOIL"));
        assert_eq!(query.numbers, vec![(42, "0042".to_owned())]);
        assert_eq!(query.exact_key, "LAKESHOREMKT0042CHICAGOIL");
    }

    #[test]
    fn edit_distance_counts_typos_once() {
        let table = edit_table(b"FRESHWYAMARKET", b"FRESHWAYMARKET");
        assert_eq!(table[14 * 15 + 14], 1, "a transposition");
        let table = edit_table(b"FRESHWAY", b"FRESHWAYMARKET");
        assert_eq!(table[8 * 15 + 8], 0, "a prefix");
    }

    #[test]
    fn remainders_are_explained_by_the_place() {
        let place = Place { city: b"CHICAGO", region: Some(b"IL") };
        let explained = explain(b"CHICAGOIL", &[false; 10], Some(place));
        assert_eq!(explained.unexplained, 0);
        assert!(explained.city_whole && explained.region);
        let explained = explain(b"CHI", &[false, false, false, true], Some(place));
        assert_eq!((explained.unexplained, explained.city_letters), (0, 3));
        let explained = explain(b"STOREXYZ", &[false; 9], Some(place));
        assert_eq!(explained.unexplained, 3);
    }

    #[test]
    fn scores_follow_the_bands() {
        assert_eq!(Confidence::of_score(score_of(1.0)), Confidence::VeryHigh);
        assert_eq!(Confidence::of_score(score_of(P_VERY_HIGH)), Confidence::VeryHigh);
        assert_eq!(Confidence::of_score(score_of(P_HIGH)), Confidence::High);
        assert_eq!(Confidence::of_score(score_of(P_MEDIUM)), Confidence::Medium);
        assert_eq!(Confidence::of_score(score_of(0.3)), Confidence::Low);
    }
}
