//! The index discovery searches: statement descriptors, addresses and positions.
//!
//! Why in memory rather than SQLite's FTS5 and R*Tree: a statement descriptor is matched by the
//! letter trigrams it shares with a merchant's descriptor, name and city, which is what makes
//! the match blind to spacing ("BLUEBOTTLECOFFEE"), punctuation, processor prefixes, store
//! numbers and truncation. FTS5's trigram tokenizer finds substrings, but ranking by *shared*
//! trigrams means OR-ing every trigram of the query, and the common ones ("ING", "CAF") match a
//! large part of a million merchants: tens of milliseconds. Here each trigram's posting list
//! is a sorted `Vec<u32>` (26³ lists, ~20 postings a merchant): a query counts the rarest
//! lists first and only probes the common ones for a short list of candidates, which keeps a
//! lookup on a million merchants at a millisecond or two. Addresses are hash lookups by
//! postcode, city and street; positions a grid of 0.02° cells. Enrolling a location appends
//! to the lists (its index is the largest, so they stay sorted) under the directory's write
//! lock, so discovery sees it at once. The cost is memory (about 150 MB for a million
//! merchants) and building the index at start-up (a second or two for a million).

use std::collections::HashMap;
use std::sync::Arc;

use super::Entry;
use super::descriptor::{digit_runs, exact_key, letters, split_prefix, statement_text};
use crate::reference::places::{fold, fold_city};

/// Postings read in full before the remaining (common) trigrams are only probed.
const SCAN_BUDGET: usize = 60_000;
/// Candidates scored in full.
const SHORTLIST: usize = 400;
/// Grid cell size in degrees.
const CELL_DEGREES: f64 = 0.02;
const METRES_PER_DEGREE: f64 = 111_320.0;

/// A merchant found, with how well it matches (0 to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub index: u32,
    pub score: f64,
    /// Metres from the position searched.
    pub distance: Option<f64>,
}

/// An address to look for; at least one of street, city and zip.
#[derive(Debug, Clone, Default)]
pub struct AddressQuery {
    pub street: Option<String>,
    pub street_no: Option<String>,
    pub city: Option<String>,
    pub zip: Option<String>,
    /// ISO 3166-1 alpha-3, upper case.
    pub country: Option<String>,
}

/// Postings are positions in the directory's entries; every search takes the entries the
/// index was built over (a slice holding at least every position added).
#[derive(Default)]
pub struct SearchIndex {
    trigrams: Vec<Vec<u32>>,
    exact: HashMap<Box<str>, Vec<u32>>,
    by_zip: HashMap<Box<str>, Vec<u32>>,
    by_city: HashMap<Box<str>, Vec<u32>>,
    by_street: HashMap<Box<str>, Vec<u32>>,
    grid: HashMap<(i32, i32), Vec<u32>>,
    /// Keys already worked out for a shared (interned) city, street or postcode, by its address:
    /// a million merchants share a few tens of thousands of them. The entries keep them alive,
    /// so an address is never reused for another text.
    folded: HashMap<(u8, usize), Box<str>>,
}

impl SearchIndex {
    /// Indexes `entry`, stored at `index` of the directory's entries. Indices only grow.
    pub fn add(&mut self, index: u32, entry: &Entry) {
        if self.trigrams.is_empty() {
            self.trigrams = vec![Vec::new(); 26 * 26 * 26];
        }
        let (_, rest) = split_prefix(&entry.descriptor);
        let mut grams: Vec<u32> = Vec::with_capacity(48);
        for text in [letters(rest), letters(&entry.dba_name)] {
            grams.extend(trigrams(&text));
        }
        grams.extend(trigrams(self.folded(b'l', &entry.city, letters)));
        grams.sort_unstable();
        grams.dedup();
        for gram in grams {
            let list = &mut self.trigrams[gram as usize];
            if list.last() != Some(&index) {
                list.push(index);
            }
        }
        self.exact.entry(exact_key(&entry.descriptor).into()).or_default().push(index);
        let zip = self.folded(b'z', &entry.zip, zip_key).to_owned();
        push_to(&mut self.by_zip, &zip, index);
        let city = self.folded(b'c', &entry.city, fold_city).to_owned();
        push_to(&mut self.by_city, &city, index);
        let street = self.folded(b's', &entry.street, street_key).to_owned();
        push_to(&mut self.by_street, &street, index);
        if let Some(cell) = cell_of(entry.latitude, entry.longitude) {
            self.grid.entry(cell).or_default().push(index);
        }
    }

    /// `make(text)`, worked out once per shared text.
    fn folded(&mut self, kind: u8, text: &Arc<str>, make: fn(&str) -> String) -> &str {
        let address = Arc::as_ptr(text).cast::<u8>() as usize;
        self.folded.entry((kind, address)).or_insert_with(|| make(text).into())
    }

    /// The merchants whose descriptor has exactly this key ([`exact_key`]).
    pub fn with_exact_key(&self, key: &str) -> &[u32] {
        self.exact.get(key).map_or(&[], Vec::as_slice)
    }

    /// The merchants at a postcode ([`zip_key`]).
    pub fn at_zip(&self, key: &str) -> &[u32] {
        self.by_zip.get(key).map_or(&[], Vec::as_slice)
    }

    /// The merchants in a city ([`fold_city`]).
    pub fn in_city(&self, folded: &str) -> &[u32] {
        self.by_city.get(folded).map_or(&[], Vec::as_slice)
    }

    /// Merchants whose descriptor matches what a statement printed, best first. `exact`: only
    /// the merchant printing exactly this (case, spacing, punctuation and processor prefix
    /// aside).
    pub fn by_descriptor(&self, entries: &[Entry], query: &str, exact: bool, limit: usize) -> Vec<Hit> {
        let printed = without_store_word(&statement_text(query));
        let (_, rest) = split_prefix(&printed);
        let live = |index: &&u32| !entries[**index as usize].retired;
        let exact_hits: Vec<u32> = self
            .exact
            .get(exact_key(rest).as_str())
            .map(|indices| indices.iter().filter(live).copied().collect())
            .unwrap_or_default();
        if exact {
            return exact_hits
                .first()
                .map(|index| Hit { index: *index, score: 1.0, distance: None })
                .into_iter()
                .collect();
        }
        let query_letters = letters(rest);
        let query_numbers = digit_runs(rest);
        let query_words: Vec<&str> = rest.split(' ').skip(1).collect();
        let mut query_grams: Vec<u32> = trigrams(&query_letters).collect();
        query_grams.sort_unstable();
        query_grams.dedup();
        let mut hits: Vec<Hit> =
            exact_hits.iter().map(|index| Hit { index: *index, score: 1.0, distance: None }).collect();
        if query_grams.is_empty() || self.trigrams.is_empty() {
            hits.truncate(limit);
            return hits;
        }
        let mut lists: Vec<&[u32]> = query_grams.iter().map(|gram| self.trigrams[*gram as usize].as_slice()).collect();
        lists.sort_by_key(|list| list.len());
        let mut counts = vec![0u8; entries.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut scanned = 0;
        let mut probed: Vec<&[u32]> = Vec::new();
        for (position, list) in lists.iter().enumerate() {
            if position > 0 && scanned + list.len() > SCAN_BUDGET {
                probed.push(list);
                continue;
            }
            scanned += list.len();
            for &index in *list {
                let count = &mut counts[index as usize];
                if *count == 0 {
                    touched.push(index);
                }
                *count = count.saturating_add(1);
            }
        }
        if touched.len() > SHORTLIST {
            touched.select_nth_unstable_by(SHORTLIST, |a, b| counts[*b as usize].cmp(&counts[*a as usize]));
            touched.truncate(SHORTLIST);
        }
        let query_gram_count = query_grams.len() as f64;
        for index in touched {
            let entry = &entries[index as usize];
            if entry.retired || exact_hits.contains(&index) {
                continue;
            }
            let shared = usize::from(counts[index as usize])
                + probed.iter().filter(|list| list.binary_search(&index).is_ok()).count();
            let containment = shared as f64 / query_gram_count;
            if containment < 0.5 {
                continue;
            }
            let mut score = descriptor_score(containment, &query_letters, &query_grams, &query_numbers, entry);
            // The state or region a statement ran into the name (`... TOPEKA KS`).
            if entry.region.as_deref().is_some_and(|region| region.len() >= 2 && query_words.contains(&region)) {
                score += 0.05;
            }
            if score >= 0.45 {
                hits.push(Hit { index, score: score.min(0.99), distance: None });
            }
        }
        rank(&mut hits, entries, limit);
        hits
    }

    /// Merchants at an address, best first.
    pub fn by_address(&self, entries: &[Entry], query: &AddressQuery, limit: usize) -> Vec<Hit> {
        let zip = query.zip.as_deref().map(zip_key).filter(|zip| !zip.is_empty());
        let city = query.city.as_deref().map(fold_city).filter(|city| !city.is_empty());
        let street = query.street.as_deref().map(street_key).filter(|street| !street.is_empty());
        let street_no = query.street_no.as_deref().map(str::trim).filter(|number| !number.is_empty());
        let candidates: &[u32] = if let Some(zip) = &zip {
            self.by_zip.get(zip.as_str()).map_or(&[], Vec::as_slice)
        } else if let Some(city) = &city {
            self.by_city.get(city.as_str()).map_or(&[], Vec::as_slice)
        } else if let Some(street) = &street {
            self.by_street.get(street.as_str()).map_or(&[], Vec::as_slice)
        } else {
            &[]
        };
        // Cities, streets and postcodes are shared allocations (interned): each distinct one is
        // compared once per query, not once per merchant.
        let mut zip_matches: HashMap<*const u8, bool> = HashMap::new();
        let mut city_matches: HashMap<*const u8, bool> = HashMap::new();
        let mut street_scores: HashMap<*const u8, f64> = HashMap::new();
        let mut hits = Vec::new();
        for &index in candidates {
            let entry = &entries[index as usize];
            if entry.retired || query.country.as_deref().is_some_and(|country| country != &*entry.country) {
                continue;
            }
            let mut earned = 0.0;
            let mut possible = 0.0;
            if let Some(zip) = &zip {
                possible += 3.0;
                let same =
                    *zip_matches.entry(Arc::as_ptr(&entry.zip).cast()).or_insert_with(|| zip_key(&entry.zip) == *zip);
                earned += if same { 3.0 } else { 0.0 };
            }
            if let Some(city) = &city {
                possible += 2.0;
                let same = *city_matches
                    .entry(Arc::as_ptr(&entry.city).cast())
                    .or_insert_with(|| fold_city(&entry.city) == *city);
                earned += if same { 2.0 } else { 0.0 };
            }
            if let Some(street) = &street {
                possible += 3.0;
                earned += 3.0
                    * *street_scores
                        .entry(Arc::as_ptr(&entry.street).cast())
                        .or_insert_with(|| street_similarity(street, &street_key(&entry.street)));
            }
            if let Some(number) = &street_no {
                possible += 2.0;
                earned += if entry.street_no.trim().eq_ignore_ascii_case(number) { 2.0 } else { 0.0 };
            }
            let score = if possible > 0.0 { earned / possible } else { 0.0 };
            if score >= 0.5 {
                hits.push(Hit { index, score, distance: None });
            }
        }
        rank(&mut hits, entries, limit);
        hits
    }

    /// Merchants within `radius` metres of a position, nearest first.
    pub fn by_position(&self, entries: &[Entry], latitude: f64, longitude: f64, radius: f64, limit: usize) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self
            .within(entries, latitude, longitude, radius)
            .into_iter()
            .map(|(index, distance)| Hit {
                index,
                score: (1.0 - distance / radius).clamp(0.0, 1.0),
                distance: Some(distance),
            })
            .collect();
        nearest_first(&mut hits, limit);
        hits
    }

    /// Every live merchant within `radius` metres, with its distance.
    pub fn within(&self, entries: &[Entry], latitude: f64, longitude: f64, radius: f64) -> Vec<(u32, f64)> {
        self.within_where(entries, latitude, longitude, radius, |_| true)
    }

    /// [`SearchIndex::within`], of the entries `keep` accepts (checked before the distance).
    pub fn within_where(
        &self,
        entries: &[Entry],
        latitude: f64,
        longitude: f64,
        radius: f64,
        keep: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f64)> {
        let Some((row, column)) = cell_of(latitude, longitude) else { return Vec::new() };
        let cos = latitude.to_radians().cos().max(0.01);
        let reach_rows = cells_for(radius / METRES_PER_DEGREE);
        let reach_columns = cells_for(radius / (METRES_PER_DEGREE * cos));
        let mut found = Vec::new();
        for cell_row in row - reach_rows..=row + reach_rows {
            for cell_column in column - reach_columns..=column + reach_columns {
                let Some(indices) = self.grid.get(&(cell_row, cell_column)) else { continue };
                for &index in indices {
                    if !keep(index) {
                        continue;
                    }
                    let entry = &entries[index as usize];
                    if entry.retired {
                        continue;
                    }
                    let distance = haversine_metres(latitude, longitude, entry.latitude, entry.longitude);
                    if distance <= radius {
                        found.push((index, distance));
                    }
                }
            }
        }
        found
    }
}

fn push_to(map: &mut HashMap<Box<str>, Vec<u32>>, key: &str, index: u32) {
    match map.get_mut(key) {
        Some(list) => list.push(index),
        None => {
            map.insert(key.into(), vec![index]);
        }
    }
}

/// Nearest first, the first `limit`; equally near by position, so that results are stable.
pub fn nearest_first(hits: &mut Vec<Hit>, limit: usize) {
    let by_distance = |a: &Hit, b: &Hit| {
        a.distance.unwrap_or(f64::MAX).total_cmp(&b.distance.unwrap_or(f64::MAX)).then(a.index.cmp(&b.index))
    };
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, by_distance);
        hits.truncate(limit);
    }
    hits.sort_by(by_distance);
}

/// Best first; equal scores by id, so that results are stable.
pub fn rank(hits: &mut Vec<Hit>, entries: &[Entry], limit: usize) {
    hits.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then(entries[a.index as usize].id.cmp(&entries[b.index as usize].id))
    });
    hits.truncate(limit);
}

/// How well a candidate sharing `containment` of the query's trigrams matches it: mostly how
/// much of the query it explains, then how much of its own descriptor the query covers (a
/// truncated descriptor leaves some out), whether both start alike, and the store number.
fn descriptor_score(
    containment: f64,
    query_letters: &str,
    query_grams: &[u32],
    query_numbers: &[&str],
    entry: &Entry,
) -> f64 {
    let (_, rest) = split_prefix(&entry.descriptor);
    let own_letters = letters(rest);
    let mut own_grams: Vec<u32> = trigrams(&own_letters).collect();
    own_grams.sort_unstable();
    own_grams.dedup();
    let covered = own_grams.iter().filter(|gram| query_grams.binary_search(gram).is_ok()).count();
    let coverage = if own_grams.is_empty() { 0.0 } else { covered as f64 / own_grams.len() as f64 };
    let name_letters = letters(&entry.dba_name);
    let common = common_prefix(query_letters, &own_letters).max(common_prefix(query_letters, &name_letters));
    let start = common as f64 / query_letters.len().min(own_letters.len()).clamp(1, 12) as f64;
    let number = number_match(query_numbers, &digit_runs(rest));
    0.65 * containment + 0.1 * coverage + 0.1 * start.min(1.0) + 0.15 * number
}

/// How well the store numbers agree: the same digits; the query's last number cut short
/// (`#04` of `#0423`); the same number padded otherwise (`423` and `0423`); none given (0.5).
fn number_match(query: &[&str], own: &[&str]) -> f64 {
    let Some(last) = query.last() else { return 0.5 };
    let mut best: f64 = 0.0;
    for (position, digits) in query.iter().enumerate() {
        for candidate in own {
            let score = if digits == candidate {
                1.0
            } else if position == query.len() - 1 && digits.len() >= 2 && candidate.starts_with(last) {
                0.9
            } else if digits.trim_start_matches('0') == candidate.trim_start_matches('0') {
                0.85
            } else {
                0.0
            };
            best = best.max(score);
        }
    }
    best
}

/// `HARTWELLS STORE 135` -> `HARTWELLS 135`: the word is how some statements print a store
/// number, not part of the name.
fn without_store_word(printed: &str) -> String {
    let words: Vec<&str> = printed.split(' ').collect();
    let mut kept = Vec::with_capacity(words.len());
    for (position, word) in words.iter().enumerate() {
        let next_is_number = words
            .get(position + 1)
            .is_some_and(|next| next.trim_start_matches('#').starts_with(|c: char| c.is_ascii_digit()));
        if !(matches!(*word, "STORE" | "STORE#" | "NO" | "NO.") && next_is_number) {
            kept.push(*word);
        }
    }
    kept.join(" ")
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Trigrams of upper-case ASCII letters, as indices 0..26³.
fn trigrams(letters: &str) -> impl Iterator<Item = u32> + '_ {
    letters.as_bytes().windows(3).filter(|window| window.iter().all(u8::is_ascii_uppercase)).map(|window| {
        let [a, b, c] = [window[0], window[1], window[2]].map(|byte| u32::from(byte - b'A'));
        (a * 26 + b) * 26 + c
    })
}

/// Postcodes compared as typed, without leading zeros: discovery prints `zip` as a number.
pub fn zip_key(zip: &str) -> String {
    let folded: String = zip.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_uppercase()).collect();
    if folded.bytes().all(|byte| byte.is_ascii_digit()) {
        let trimmed = folded.trim_start_matches('0');
        return if trimmed.is_empty() && !folded.is_empty() { "0".to_owned() } else { trimmed.to_owned() };
    }
    folded
}

/// A street name with its kind spelled one way: `Main Street` = `main st`, `Hauptstraße` =
/// `Hauptstr.`, `Avenue Foch` = `ave foch`.
pub fn street_key(street: &str) -> String {
    let folded = fold(street);
    let words: Vec<String> = folded
        .split(' ')
        .filter(|word| !word.is_empty())
        .map(|word| {
            let short = match word {
                "street" => "st",
                "avenue" | "av" => "ave",
                "boulevard" => "blvd",
                "road" => "rd",
                "drive" => "dr",
                "lane" => "ln",
                "place" => "pl",
                "court" => "ct",
                "highway" => "hwy",
                "parade" => "pde",
                "strasse" | "str" => "str",
                other => other,
            };
            match short.strip_suffix("strasse").or_else(|| short.strip_suffix("str")) {
                Some(stem) if !stem.is_empty() && short.len() > 3 => format!("{stem}str"),
                _ => short.to_owned(),
            }
        })
        .collect();
    words.join(" ")
}

fn street_similarity(query: &str, candidate: &str) -> f64 {
    if query == candidate {
        return 1.0;
    }
    if candidate.contains(query) || query.contains(candidate) {
        return 0.8;
    }
    let a: Vec<u32> = trigrams(&letters(query)).collect();
    let b: Vec<u32> = trigrams(&letters(candidate)).collect();
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.iter().filter(|gram| b.contains(gram)).count();
    let dice = 2.0 * shared as f64 / (a.len() + b.len()) as f64;
    if dice >= 0.6 { dice * 0.8 } else { 0.0 }
}

fn cell_of(latitude: f64, longitude: f64) -> Option<(i32, i32)> {
    if !latitude.is_finite() || !longitude.is_finite() {
        return None;
    }
    let cell = ((latitude / CELL_DEGREES).floor() as i32, (longitude / CELL_DEGREES).floor() as i32);
    Some(cell)
}

fn cells_for(degrees: f64) -> i32 {
    let cells = (degrees / CELL_DEGREES).ceil().min(5000.0) as i32;
    cells.max(1)
}

/// Great-circle distance.
pub fn haversine_metres(latitude_a: f64, longitude_a: f64, latitude_b: f64, longitude_b: f64) -> f64 {
    const EARTH_RADIUS: f64 = 6_371_008.8;
    let (phi_a, phi_b) = (latitude_a.to_radians(), latitude_b.to_radians());
    let d_phi = (latitude_b - latitude_a).to_radians();
    let d_lambda = (longitude_b - longitude_a).to_radians();
    let h = (d_phi / 2.0).sin().powi(2) + phi_a.cos() * phi_b.cos() * (d_lambda / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS * h.sqrt().asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn street_kinds_are_spelled_one_way() {
        assert_eq!(street_key("Main Street"), street_key("main st"));
        assert_eq!(street_key("Hauptstraße"), street_key("Hauptstr."));
        assert_eq!(street_key("Avenue Foch"), "ave foch");
        assert_eq!(zip_key("02139"), "2139");
        assert_eq!(zip_key("2139"), "2139");
        assert!(street_similarity("main st", "main st") > 0.99);
        assert!(street_similarity("washington", "washington ave") >= 0.8);
        assert_eq!(street_similarity("oak st", "broadway"), 0.0);
    }

    #[test]
    fn distances_are_great_circle_metres() {
        let paris_london = haversine_metres(48.8566, 2.3522, 51.5074, -0.1278);
        assert!((paris_london - 343_500.0).abs() < 2_000.0, "{paris_london}");
        assert!(haversine_metres(40.0, -70.0, 40.0, -70.0) < 1e-6);
    }
}
