//! Discovery quality: descriptors drawn from the default-size directory and mangled the way
//! statements mangle them still find their merchant. Prints both rates (`--nocapture`).
//!
//! Each query applies one or two mangles: case, a processor prefix added, swapped or dropped
//! (the 22-character field then cuts the end; chain stores get none), a narrower field (18 to
//! 21 characters; store numbers stay whole), store
//! numbers printed another way or added, spaces dropped, the city or state run into the name.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use subscriber_protocol::DirectoryEntryId;
use subscriber_server::directory::descriptor::{cut, split_prefix};
use subscriber_server::directory::generate::ID_BASE;
use subscriber_server::directory::{Directory, DirectoryMerchant, Query};

const DIRECTORY_SIZE: u32 = 50_000;
const QUERIES: usize = 1_000;

/// What one statement prints differently from another.
#[derive(Debug, Clone, Copy)]
enum Mangle {
    Case,
    Prefix,
    Truncation,
    StoreNumber,
    MissingSpaces,
    Suffix,
}

const MANGLES: [Mangle; 6] =
    [Mangle::Case, Mangle::Prefix, Mangle::Truncation, Mangle::StoreNumber, Mangle::MissingSpaces, Mangle::Suffix];

fn mangle(rng: &mut ChaCha8Rng, merchant: &DirectoryMerchant, text: &str, how: Mangle) -> String {
    match how {
        Mangle::Case => {
            if rng.random_bool(0.5) {
                text.to_lowercase()
            } else {
                text.split(' ')
                    .map(|word| {
                        let mut characters = word.chars();
                        characters.next().map_or_else(String::new, |first| {
                            first.to_uppercase().chain(characters.flat_map(char::to_lowercase)).collect()
                        })
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        }
        Mangle::Prefix => match split_prefix(text) {
            (Some(_), rest) => rest.to_owned(),
            // Chains' stores (store numbers) are not paid through Square or PayPal.
            (None, rest) if has_store_number(rest) => rest.to_owned(),
            (None, rest) => {
                let prefix = ["SQ *", "TST* ", "PAYPAL *", "SP ", "SQ*"][rng.random_range(0..5)];
                cut(format!("{prefix}{rest}"))
            }
        },
        // A narrower statement field.
        // Store numbers are printed in full.
        Mangle::Truncation => {
            let keep = text.rfind(|c: char| c.is_ascii_digit()).map_or(0, |last| last + 1);
            text.chars().take(rng.random_range(18..=21).max(keep)).collect()
        }
        // Store numbers printed another way (`#0423`, `0423`, `423`, `STORE 423`), or one
        // printed for a merchant whose descriptor has none.
        Mangle::StoreNumber => {
            let Some(digits) = text.split(|c: char| !c.is_ascii_digit()).find(|digits| !digits.is_empty()) else {
                return format!("{text} #{}", rng.random_range(10..9999));
            };
            let position = text.find(digits).unwrap_or(0);
            let before = text[..position].trim_end_matches('#').trim_end();
            let after = &text[position + digits.len()..];
            let reprinted = match rng.random_range(0..3) {
                0 => format!("#{digits}"),
                1 => digits.trim_start_matches('0').to_owned(),
                _ => format!("STORE {}", digits.trim_start_matches('0')),
            };
            format!("{before} {reprinted}{after}")
        }
        Mangle::MissingSpaces => text.replace(' ', ""),
        // The location column run into the name: the city and state, or the state alone.
        Mangle::Suffix => {
            let city = merchant.city.to_uppercase();
            let region = merchant.region.clone().unwrap_or_default();
            match text.strip_suffix(&format!(" {city}")) {
                Some(stripped) if !region.is_empty() => format!("{stripped} {region}"),
                _ if rng.random_bool(0.5) => format!("{text} {city} {region}"),
                _ => format!("{text} {region}"),
            }
        }
    }
}

fn has_store_number(text: &str) -> bool {
    text.chars().any(|character| character.is_ascii_digit())
}

#[test]
fn mangled_descriptors_find_their_merchant() {
    let directory = Directory::generate(20_261_122, DIRECTORY_SIZE);
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut first = 0;
    let mut top_three = 0;
    let mut misses = Vec::new();
    for _ in 0..QUERIES {
        let id = DirectoryEntryId(ID_BASE + rng.random_range(1..=i64::from(DIRECTORY_SIZE)));
        let merchant = directory.get(id).expect("a directory merchant");
        let mut text = merchant.descriptor.clone();
        let count = rng.random_range(1..=2);
        let mut applied = Vec::new();
        for _ in 0..count {
            let how = MANGLES[rng.random_range(0..MANGLES.len())];
            text = mangle(&mut rng, &merchant, &text, how);
            applied.push(how);
        }
        let found = directory.search(&Query::Descriptor { text: text.clone(), exact: false }, 3);
        let rank = found.iter().position(|candidate| candidate.merchant.id == id);
        match rank {
            Some(0) => {
                first += 1;
                top_three += 1;
            }
            Some(_) => top_three += 1,
            None => {}
        }
        if rank != Some(0) && misses.len() < 15 {
            let got: Vec<String> = found
                .iter()
                .map(|candidate| format!("{} ({:.2})", candidate.merchant.descriptor, candidate.score))
                .collect();
            misses.push(format!("{:?} {text:?} <- {:?}: got {got:?}", applied, merchant.descriptor));
        }
    }
    let (first_rate, top_three_rate) = (first as f64 / QUERIES as f64, top_three as f64 / QUERIES as f64);
    println!("discovery quality on {DIRECTORY_SIZE} merchants, {QUERIES} mangled descriptors:");
    println!("  right merchant first: {:.1}%", first_rate * 100.0);
    println!("  right merchant in the top 3: {:.1}%", top_three_rate * 100.0);
    for miss in &misses {
        println!("  miss: {miss}");
    }
    assert!(first_rate >= 0.90, "first {first_rate}");
    assert!(top_three_rate >= 0.98, "top three {top_three_rate}");
}
