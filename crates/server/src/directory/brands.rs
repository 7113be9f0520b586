//! The directory's merchants grouped into brands: one brand per trading name, the same in
//! every city (a chain's stores, an independent merchant's one shop), and one for each
//! platform of [`intermediaries::PLATFORMS`] (the counterparty when a descriptor names nothing
//! else).
//!
//! A brand's id is derived from its normalized name alone (`brd_` and 16 hex digits of a
//! SHA-256), so it is the same for every card and subscriber, across restarts, instances and
//! directory rebuilds with the same seed, with no table to keep in step.

use std::collections::HashMap;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use subscriber_protocol::CounterpartyType;

use super::Entry;
use super::catalog::{self, Group};
use super::descriptor::{numbers, split_prefix, statement_text};
use super::intermediaries::{PLATFORMS, Platform};
use super::search::zip_key;

/// No brand (an entry position not added yet).
const NONE: u32 = u32::MAX;

/// A brand of the directory.
#[derive(Debug)]
pub struct Brand {
    /// `brd_` and 16 hex digits.
    pub id: Box<str>,
    /// The trading name, as the first of its merchants spells it.
    pub name: Box<str>,
    /// What it is matched on: the name's letters, upper case, `AND` and `&` left out.
    pub letters: Box<str>,
    /// Letters of a leading `The`, which statements often leave out (0 when none).
    pub article: u8,
    /// Bit `i` set: a word of the name ends after letter `i + 1` of [`Brand::letters`].
    pub word_ends: u64,
    /// The category code of its first merchant (0 for a platform).
    pub mcc: u16,
    pub group: Option<Group>,
    pub kind: CounterpartyType,
    pub website: Option<Box<str>>,
    /// Set for a platform's own brand.
    pub platform: Option<&'static Platform>,
    /// Its merchants' positions in the directory's entries, in the order added.
    pub locations: Vec<u32>,
    /// Whether its descriptors print store numbers (a chain's do).
    pub numbered: bool,
}

impl Brand {
    /// The URL path of its logo, served by this service.
    pub fn logo_url(&self) -> String {
        logo_url(&self.id)
    }
}

pub fn logo_url(brand_id: &str) -> String {
    format!("/brands/{brand_id}/logo.svg")
}

/// The brands of a directory and how to find them.
pub struct Brands {
    brands: Vec<Brand>,
    by_key: HashMap<Box<str>, u32>,
    by_id: HashMap<Box<str>, u32>,
    /// Trigram of letters -> brands whose letters have it, ascending.
    grams: Vec<Vec<u32>>,
    /// Brand -> the trigram its letters start with, and the one after a leading `The` ([`NONE`]
    /// when none), side by side so the shortlist reads them without touching each brand.
    first_grams: Vec<[u32; 2]>,
    /// Entry position -> brand.
    of_entry: Vec<u32>,
    /// (brand, store number) -> entry positions printing it.
    numbers: HashMap<(u32, u64), Vec<u32>>,
    /// A city's letters, by the address of its shared (interned) text.
    city_letters: HashMap<usize, Box<str>>,
    /// A postcode's key ([`zip_key`]), likewise.
    zip_keys: HashMap<usize, Box<str>>,
}

impl Default for Brands {
    fn default() -> Self {
        let mut brands = Self {
            brands: Vec::new(),
            by_key: HashMap::new(),
            by_id: HashMap::new(),
            grams: vec![Vec::new(); 26 * 26 * 26],
            first_grams: Vec::new(),
            of_entry: Vec::new(),
            numbers: HashMap::new(),
            city_letters: HashMap::new(),
            zip_keys: HashMap::new(),
        };
        for platform in PLATFORMS {
            let key = brand_key(platform.name);
            if brands.by_key.contains_key(key.as_str()) {
                continue;
            }
            let (letters, article, word_ends) = match_letters(platform.name);
            brands.insert(Brand {
                id: brand_id(&key).into(),
                name: platform.name.into(),
                letters: letters.into(),
                article,
                word_ends,
                mcc: 0,
                group: None,
                kind: platform.counterparty,
                website: Some(platform.website.into()),
                platform: Some(platform),
                locations: Vec::new(),
                numbered: false,
            });
        }
        brands
    }
}

impl Brands {
    fn insert(&mut self, brand: Brand) -> u32 {
        let position = u32::try_from(self.brands.len()).unwrap_or(NONE);
        self.by_key.insert(brand_key(&brand.name).into(), position);
        self.by_id.insert(brand.id.clone(), position);
        let mut grams: Vec<u32> = trigrams(&brand.letters).collect();
        if brand.article > 0 {
            grams.extend(trigrams(&brand.letters[usize::from(brand.article)..]));
        }
        grams.sort_unstable();
        grams.dedup();
        for gram in grams {
            self.grams[gram as usize].push(position);
        }
        let letters = brand.letters.as_bytes();
        let after_article = letters.get(usize::from(brand.article)..).filter(|_| brand.article > 0);
        self.first_grams
            .push([first_trigram(letters).unwrap_or(NONE), after_article.and_then(first_trigram).unwrap_or(NONE)]);
        self.brands.push(brand);
        position
    }

    /// Adds the merchant at `position` of the entries to its brand (a new brand for a new name).
    pub fn add(&mut self, position: u32, entry: &Entry) {
        let key = brand_key(&entry.dba_name);
        let brand = match self.by_key.get(key.as_str()) {
            Some(brand) => *brand,
            None if key.is_empty() => NONE,
            None => {
                let (letters, article, word_ends) = match_letters(&entry.dba_name);
                let group = catalog::group_of(entry.mcc, &entry.dba_name);
                let website = website_of(&key, group, entry);
                self.insert(Brand {
                    id: brand_id(&key).into(),
                    name: entry.dba_name.clone(),
                    letters: letters.into(),
                    article,
                    word_ends,
                    mcc: entry.mcc,
                    group,
                    kind: CounterpartyType::Merchant,
                    website,
                    platform: None,
                    locations: Vec::new(),
                    numbered: false,
                })
            }
        };
        let index = position as usize;
        if self.of_entry.len() <= index {
            self.of_entry.resize(index + 1, NONE);
        }
        self.of_entry[index] = brand;
        let Some(record) = self.brands.get_mut(brand as usize) else { return };
        record.locations.push(position);
        let (_, rest) = split_prefix(&entry.descriptor);
        let printed = numbers(rest);
        if !printed.is_empty() && record.locations.len() > 1 {
            record.numbered = true;
        }
        for number in printed {
            self.numbers.entry((brand, number)).or_default().push(position);
        }
        let address = Arc::as_ptr(&entry.city).cast::<u8>() as usize;
        self.city_letters.entry(address).or_insert_with(|| city_letters(&entry.city).into());
        let address = Arc::as_ptr(&entry.zip).cast::<u8>() as usize;
        self.zip_keys.entry(address).or_insert_with(|| zip_key(&entry.zip).into());
    }

    pub fn get(&self, brand: u32) -> Option<&Brand> {
        self.brands.get(brand as usize)
    }

    pub fn len(&self) -> usize {
        self.brands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.brands.is_empty()
    }

    /// The brand with this id.
    pub fn by_id(&self, id: &str) -> Option<(u32, &Brand)> {
        let position = *self.by_id.get(id)?;
        Some((position, &self.brands[position as usize]))
    }

    /// The brand of a platform.
    pub fn of_platform(&self, platform: &Platform) -> Option<(u32, &Brand)> {
        let position = *self.by_key.get(brand_key(platform.name).as_str())?;
        Some((position, &self.brands[position as usize]))
    }

    /// The brand of the entry at `position`.
    pub fn of_entry(&self, position: u32) -> Option<u32> {
        self.of_entry.get(position as usize).copied().filter(|brand| *brand != NONE)
    }

    /// The brands sharing a trigram of letters.
    /// Whether the brand's letters (or those after a leading `The`) start with this trigram.
    pub fn starts_with_gram(&self, brand: u32, gram: u32) -> bool {
        self.first_grams.get(brand as usize).is_some_and(|firsts| firsts.contains(&gram))
    }

    pub fn with_gram(&self, gram: u32) -> &[u32] {
        self.grams.get(gram as usize).map_or(&[], Vec::as_slice)
    }

    /// The entries of `brand` printing this store number.
    pub fn with_number(&self, brand: u32, number: u64) -> &[u32] {
        self.numbers.get(&(brand, number)).map_or(&[], Vec::as_slice)
    }

    /// The letters of an entry's city.
    pub fn city_letters_of(&self, entry: &Entry) -> &str {
        let address = Arc::as_ptr(&entry.city).cast::<u8>() as usize;
        self.city_letters.get(&address).map_or("", |letters| letters)
    }

    /// The key of an entry's postcode.
    pub fn zip_key_of(&self, entry: &Entry) -> &str {
        let address = Arc::as_ptr(&entry.zip).cast::<u8>() as usize;
        self.zip_keys.get(&address).map_or("", |key| key)
    }
}

/// A brand's name normalized: letters and digits of what a statement prints, upper case.
pub fn brand_key(name: &str) -> String {
    statement_text(name).chars().filter(char::is_ascii_alphanumeric).collect()
}

/// The id of the brand with this normalized name.
pub fn brand_id(key: &str) -> String {
    let digest = Sha256::digest(format!("subscriber-data brand v1\n{key}").as_bytes());
    format!("brd_{}", hex::encode(&digest[..8]))
}

/// Statement abbreviations, read as the words they stand for (in names and descriptors alike,
/// so `Euless Water Dept` and `EULESS WATER DEPARTMENT` are one).
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("MKT", "MARKET"),
    ("MRKT", "MARKET"),
    ("MKTPL", "MARKETPLACE"),
    ("SUPERMKT", "SUPERMARKET"),
    ("CTR", "CENTER"),
    ("CNTR", "CENTER"),
    ("CENTRE", "CENTER"),
    ("SVC", "SERVICE"),
    ("SVCS", "SERVICES"),
    ("SRVC", "SERVICE"),
    ("PHARM", "PHARMACY"),
    ("PHCY", "PHARMACY"),
    ("PHMCY", "PHARMACY"),
    ("RSTRNT", "RESTAURANT"),
    ("RESTR", "RESTAURANT"),
    ("RSTRT", "RESTAURANT"),
    ("INTL", "INTERNATIONAL"),
    ("BKRY", "BAKERY"),
    ("DEPT", "DEPARTMENT"),
    ("DPT", "DEPARTMENT"),
    ("STN", "STATION"),
    ("HTL", "HOTEL"),
    ("APTS", "APARTMENTS"),
    ("MGMT", "MANAGEMENT"),
    ("MGT", "MANAGEMENT"),
    ("PROP", "PROPERTY"),
    ("ASSOC", "ASSOCIATES"),
    ("BROS", "BROTHERS"),
    ("NATL", "NATIONAL"),
    ("GRCY", "GROCERY"),
    ("GROC", "GROCERY"),
    ("SPLY", "SUPPLY"),
    ("HDWR", "HARDWARE"),
    ("HRDWR", "HARDWARE"),
    ("CHKN", "CHICKEN"),
    ("FDS", "FOODS"),
    ("WRLS", "WIRELESS"),
    ("PKG", "PARKING"),
    ("PRKG", "PARKING"),
    ("CLNRS", "CLEANERS"),
    ("CLNR", "CLEANERS"),
    ("LNDRY", "LAUNDRY"),
    ("BTY", "BEAUTY"),
    ("ELEC", "ELECTRIC"),
    ("ELECTR", "ELECTRONICS"),
    ("ENTMT", "ENTERTAINMENT"),
    ("FTNS", "FITNESS"),
];

/// A word as the matcher compares it: an abbreviation spelt out.
pub fn spelt_out(word: &str) -> &str {
    ABBREVIATIONS.iter().find(|(short, _)| *short == word).map_or(word, |(_, long)| long)
}

/// The letters a name is matched on, how many of them a leading `The` is, and where its
/// words end (bit `i`: after letter `i + 1`).
pub fn match_letters(name: &str) -> (String, u8, u64) {
    let printed = statement_text(name);
    let mut letters = String::with_capacity(printed.len());
    let mut article = 0;
    let mut word_ends = 0u64;
    for (position, word) in printed.split(|c: char| !c.is_ascii_alphanumeric() && c != '&').enumerate() {
        if word == "AND" || word == "&" {
            continue;
        }
        let word_letters: String = word.chars().filter(char::is_ascii_alphabetic).collect();
        if word_letters.is_empty() {
            continue;
        }
        if position == 0 && word_letters == "THE" {
            article = 3;
        }
        letters.push_str(spelt_out(&word_letters));
        if (1..=64).contains(&letters.len()) {
            word_ends |= 1 << (letters.len() - 1);
        }
    }
    if letters.len() <= usize::from(article) {
        article = 0;
    }
    (letters, article, word_ends)
}

fn city_letters(city: &str) -> String {
    statement_text(city).chars().filter(char::is_ascii_alphabetic).collect()
}

/// A domain for chains and for brands that sell online (an independent shop has none). The
/// sandbox's brands are invented, and so are their domains.
fn website_of(key: &str, group: Option<Group>, entry: &Entry) -> Option<Box<str>> {
    let online = matches!(
        group,
        Some(Group::Streaming | Group::DigitalGoods | Group::OnlineShop | Group::Telecom | Group::Airline)
    );
    let is_directory_chain =
        catalog::CATEGORIES.iter().any(|category| category.chains.iter().any(|chain| brand_key(chain) == key));
    if entry.merchant_id.is_some() || !(online || is_directory_chain) {
        return None;
    }
    Some(format!("{}.com", key.to_ascii_lowercase()).into())
}

/// Trigrams of upper-case ASCII letters, as indices 0..26³.
/// The trigram the letters start with, when the first three are letters.
pub fn first_trigram(letters: &[u8]) -> Option<u32> {
    match letters {
        [a, b, c, ..] if [a, b, c].iter().all(|byte| byte.is_ascii_uppercase()) => {
            Some((u32::from(a - b'A') * 26 + u32::from(b - b'A')) * 26 + u32::from(c - b'A'))
        }
        _ => None,
    }
}

pub fn trigrams(letters: &str) -> impl Iterator<Item = u32> + '_ {
    letters.as_bytes().windows(3).filter(|window| window.iter().all(u8::is_ascii_uppercase)).map(|window| {
        let [a, b, c] = [window[0], window[1], window[2]].map(|byte| u32::from(byte - b'A'));
        (a * 26 + b) * 26 + c
    })
}

/// The brand's colour, from its id: a hue of its own at a depth white letters read on.
pub fn colour(brand_id: &str) -> String {
    let digest = Sha256::digest(brand_id.as_bytes());
    let hue = f64::from(u16::from_be_bytes([digest[0], digest[1]]) % 360);
    let saturation = 0.50 + f64::from(digest[2] % 20) / 100.0;
    let lightness = 0.34 + f64::from(digest[3] % 10) / 100.0;
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let segment = hue / 60.0;
    let x = chroma * (1.0 - (segment % 2.0 - 1.0).abs());
    let (r, g, b) = match segment as u8 {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = lightness - chroma / 2.0;
    let channel = |value: f64| ((value + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", channel(r), channel(g), channel(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_the_normalized_name() {
        assert_eq!(brand_key("Hartwell's"), "HARTWELLS");
        assert_eq!(brand_id(&brand_key("Café Kranich")), brand_id(&brand_key("CAFE KRANICH")));
        assert_ne!(brand_id("FRESHWAYMARKET"), brand_id("GREENBASKET"));
        let id = brand_id("FRESHWAYMARKET");
        assert!(id.starts_with("brd_") && id.len() == 20, "{id}");
        assert_eq!(id, brand_id("FRESHWAYMARKET"), "stable");
    }

    #[test]
    fn names_are_matched_on_their_letters() {
        assert_eq!(
            match_letters("Bean & Leaf Coffee"),
            ("BEANLEAFCOFFEE".to_owned(), 0, (1 << 3) | (1 << 7) | (1 << 13))
        );
        assert_eq!(match_letters("The Golden Fork").0, "THEGOLDENFORK");
        assert_eq!(match_letters("The Golden Fork").1, 3);
        assert_eq!(match_letters("Chick'n Shack").0, "CHICKNSHACK");
        assert_eq!(match_letters("Euless Water Dept").0, "EULESSWATERDEPARTMENT");
    }

    #[test]
    fn colours_are_deep_enough_for_white_letters() {
        for name in ["A", "FRESHWAYMARKET", "GREENBASKET", "STREAMBOX"] {
            let colour = colour(&brand_id(name));
            assert_eq!(colour.len(), 7);
            let channel = |at: usize| u8::from_str_radix(&colour[at..at + 2], 16).unwrap_or(255);
            let luma = 0.2126 * f64::from(channel(1)) + 0.7152 * f64::from(channel(3)) + 0.0722 * f64::from(channel(5));
            assert!(luma < 150.0, "{colour}");
        }
    }
}
