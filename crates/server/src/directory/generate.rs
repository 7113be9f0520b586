//! Makes the sandbox directory from a seed: the same seed and size give the same merchants,
//! with the same ids, on every machine.

use std::collections::{HashMap, HashSet};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use subscriber_protocol::DirectoryEntryId;

use super::catalog::{self, CATEGORIES, Category, Language};
use super::descriptor::{self, DESCRIPTOR_WIDTH, cut, statement_text};
use super::{Entry, Interner};
use crate::reference::places::{self, Postcode};

/// Bumped whenever the generator's output changes, so a stored directory is made anew.
pub const GENERATOR_VERSION: i64 = 1;

/// Directory merchants' ids start above this, so that a `locationId` tells a directory merchant
/// (above) from an enrolled merchant's location (a small number) at a glance.
pub const ID_BASE: i64 = 100_000_000;

/// Where the directory's merchants are: mostly the United States, and the European and
/// Australian cities whose postcodes are numbers.
const COUNTRY_WEIGHTS: &[(&str, u32)] =
    &[("USA", 62), ("DEU", 10), ("FRA", 7), ("ITA", 6), ("ESP", 5), ("AUS", 4), ("AUT", 2), ("CHE", 2), ("BEL", 2)];

struct CountryPool {
    alpha3: &'static str,
    calling_code: u16,
    national_length: u8,
    currency: &'static str,
    language: Language,
    rows: &'static [Postcode],
    /// Running sums of the rows' people, to draw a postcode as likely as its share of people.
    cumulative_people: Vec<u64>,
    streets: &'static [&'static str],
    /// Postcodes per city: bigger cities spread their merchants wider.
    city_sizes: HashMap<&'static str, usize>,
}

/// Merchants every sandbox directory holds, whatever its seed and size, so that the README can
/// list descriptors that always resolve. US phone numbers are in the 555-01xx range kept for
/// fiction.
pub struct Showcase {
    pub dba_name: &'static str,
    pub descriptor: &'static str,
    pub mcc: u16,
    pub street: &'static str,
    pub street_no: &'static str,
    pub city: &'static str,
    pub region: &'static str,
    pub country: &'static str,
    pub zip: &'static str,
    pub phone: u64,
    pub latitude: f64,
    pub longitude: f64,
    pub currency: &'static str,
}

macro_rules! showcase {
    ($name:literal, $descriptor:literal, $mcc:literal, $street:literal, $no:literal, $city:literal, $region:literal,
     $country:literal, $zip:literal, $phone:literal, $lat:literal, $lon:literal, $currency:literal) => {
        Showcase {
            dba_name: $name,
            descriptor: $descriptor,
            mcc: $mcc,
            street: $street,
            street_no: $no,
            city: $city,
            region: $region,
            country: $country,
            zip: $zip,
            phone: $phone,
            latitude: $lat,
            longitude: $lon,
            currency: $currency,
        }
    };
}

pub static SHOWCASE: &[Showcase] = &[
    showcase!(
        "Blue Heron Coffee",
        "SQ *BLUE HERON COFFEE",
        5814,
        "Valencia St",
        "1022",
        "San Francisco",
        "CA",
        "USA",
        "94110",
        14_155_550_101,
        37.7557,
        -122.4211,
        "USD"
    ),
    showcase!(
        "Golden Lantern",
        "TST* GOLDEN LANTERN",
        5812,
        "W 46th St",
        "312",
        "New York",
        "NY",
        "USA",
        "10036",
        12_125_550_102,
        40.7596,
        -73.9883,
        "USD"
    ),
    showcase!(
        "Lakeshore Market",
        "LAKESHORE MARKET #0042",
        5411,
        "N Clark St",
        "2901",
        "Chicago",
        "IL",
        "USA",
        "60657",
        17_735_550_103,
        41.9339,
        -87.6450,
        "USD"
    ),
    showcase!(
        "Prairie Fuel",
        "PRAIRIE FUEL 01187 AUS",
        5541,
        "S Congress Ave",
        "1900",
        "Austin",
        "TX",
        "USA",
        "78704",
        15_125_550_104,
        30.2476,
        -97.7507,
        "USD"
    ),
    showcase!(
        "Nightjar Streaming",
        "PAYPAL *NIGHTJAR",
        4899,
        "Lark Ave",
        "100",
        "Los Gatos",
        "CA",
        "USA",
        "95032",
        14_085_550_105,
        37.2358,
        -121.9624,
        "USD"
    ),
    showcase!(
        "Fernwood Supply Co",
        "SP FERNWOOD SUPPLY CO",
        5999,
        "NW 23rd Ave",
        "812",
        "Portland",
        "OR",
        "USA",
        "97210",
        15_035_550_106,
        45.5289,
        -122.6985,
        "USD"
    ),
    showcase!(
        "Harborlight Hotel",
        "HARBORLIGHT HOTEL SEAT",
        7011,
        "1st Ave",
        "1400",
        "Seattle",
        "WA",
        "USA",
        "98101",
        12_065_550_107,
        47.6085,
        -122.3385,
        "USD"
    ),
    showcase!(
        "Copley Pharmacy",
        "COPLEY PHARMACY #0310",
        5912,
        "Boylston St",
        "565",
        "Boston",
        "MA",
        "USA",
        "02116",
        16_175_550_108,
        42.3499,
        -71.0770,
        "USD"
    ),
    showcase!(
        "Northwind Air",
        "NORTHWIND AIR",
        4511,
        "Pena Blvd",
        "8500",
        "Denver",
        "CO",
        "USA",
        "80249",
        13_035_550_109,
        39.8561,
        -104.6737,
        "USD"
    ),
    showcase!(
        "Café Kranich",
        "CAFE KRANICH BERLIN",
        5814,
        "Oranienstraße",
        "24",
        "Berlin",
        "BE",
        "DEU",
        "10999",
        493_061_650_240,
        52.5008,
        13.4190,
        "EUR"
    ),
    showcase!(
        "Boulangerie Lemoine",
        "BOULANGERIE LEMOINE PA",
        5462,
        "rue de Bretagne",
        "18",
        "Paris",
        "75",
        "FRA",
        "75003",
        33_142_720_318,
        48.8630,
        2.3620,
        "EUR"
    ),
    showcase!(
        "Trattoria da Gino",
        "TRATTORIA DA GINO ROMA",
        5812,
        "Via dei Coronari",
        "45",
        "Roma",
        "RM",
        "ITA",
        "00186",
        390_668_210_045,
        41.8995,
        12.4705,
        "EUR"
    ),
];

fn showcase_entries(interner: &mut Interner) -> Vec<Entry> {
    SHOWCASE
        .iter()
        .zip(1..)
        .map(|(merchant, number)| Entry {
            id: DirectoryEntryId(ID_BASE + number),
            dba_name: merchant.dba_name.into(),
            descriptor: merchant.descriptor.into(),
            mcc: merchant.mcc,
            street: interner.get(merchant.street),
            street_no: merchant.street_no.into(),
            city: interner.get(merchant.city),
            region: Some(interner.get(merchant.region)),
            country: interner.get(merchant.country),
            zip: interner.get(merchant.zip),
            phone: merchant.phone,
            latitude: merchant.latitude,
            longitude: merchant.longitude,
            currency: interner.get(merchant.currency),
            merchant_id: None,
            location_id: None,
            retired: false,
        })
        .collect()
}

/// The showcase merchants, then `size` less their number made from `seed`.
pub fn generate(seed: u64, size: u32, interner: &mut Interner) -> Vec<Entry> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xD1EC_7042_u64);
    let pools: Vec<(CountryPool, u32)> = COUNTRY_WEIGHTS
        .iter()
        .filter_map(|(alpha3, weight)| {
            let country = places::country(alpha3)?;
            let rows = &places::postcodes()[country.postcodes.clone()];
            let mut city_sizes = HashMap::new();
            for row in rows {
                *city_sizes.entry(row.city).or_insert(0) += 1;
            }
            let cumulative_people = rows
                .iter()
                .scan(0u64, |sum, row| {
                    *sum += u64::from(row.people.max(1));
                    Some(*sum)
                })
                .collect();
            let pool = CountryPool {
                cumulative_people,
                alpha3: country.alpha3,
                calling_code: country.calling_code,
                national_length: country.national_length,
                currency: country.currency,
                language: Language::of_country(alpha3),
                rows,
                streets: &country.streets,
                city_sizes,
            };
            Some((pool, *weight))
        })
        .collect();
    let country_total: u32 = pools.iter().map(|(_, weight)| weight).sum();
    let category_total: u32 = CATEGORIES.iter().map(|category| category.weight).sum();
    let mut taken = Taken::default();
    let mut entries = showcase_entries(interner);
    for entry in &entries {
        taken.keys.insert(descriptor::exact_key(&entry.descriptor));
        taken.names.insert(descriptor::letters(&entry.dba_name));
    }
    entries.reserve(size as usize);
    let first = u32::try_from(entries.len()).unwrap_or(0);
    for index in first..size.max(first) {
        let pool = &pick_weighted(&mut rng, &pools, country_total, |(_, weight)| *weight).0;
        let category = pick_weighted(&mut rng, CATEGORIES, category_total, |category| category.weight);
        let row = pick_postcode(&mut rng, pool);
        let region = if row.region.is_empty() { None } else { Some(row.region) };
        let is_chain = rng.random_range(0..100) < u32::from(category.chain_percent);
        let (dba_name, descriptor) = unique_name(&mut rng, category, pool, row, is_chain, &mut taken);
        let (latitude, longitude) = position(&mut rng, pool, row);
        let street = pool.streets[rng.random_range(0..pool.streets.len())];
        entries.push(Entry {
            id: DirectoryEntryId(ID_BASE + i64::from(index) + 1),
            dba_name: dba_name.into(),
            descriptor: descriptor.into(),
            mcc: category.mcc.parse().unwrap_or(5999),
            street: interner.get(street),
            street_no: street_number(&mut rng, pool.alpha3).into(),
            city: interner.get(row.city),
            region: region.map(|region| interner.get(region)),
            country: interner.get(pool.alpha3),
            zip: interner.get(row.zip),
            phone: phone_number(&mut rng, pool, row.area_code),
            latitude,
            longitude,
            currency: interner.get(pool.currency),
            merchant_id: None,
            location_id: None,
            retired: false,
        });
    }
    entries
}

fn pick_postcode<'a>(rng: &mut ChaCha8Rng, pool: &'a CountryPool) -> &'a Postcode {
    let total = pool.cumulative_people.last().copied().unwrap_or(1);
    let roll = rng.random_range(0..total);
    let position = pool.cumulative_people.partition_point(|sum| *sum <= roll);
    &pool.rows[position.min(pool.rows.len() - 1)]
}

fn pick_weighted<'a, T>(rng: &mut ChaCha8Rng, items: &'a [T], total: u32, weight: impl Fn(&T) -> u32) -> &'a T {
    let mut roll = rng.random_range(0..total.max(1));
    for item in items {
        let item_weight = weight(item);
        if roll < item_weight {
            return item;
        }
        roll -= item_weight;
    }
    &items[items.len() - 1]
}

/// What merchants generated so far have claimed.
#[derive(Default)]
struct Taken {
    /// Exact keys of descriptors.
    keys: HashSet<String>,
    /// Independent merchants' names (letters only).
    names: HashSet<String>,
    /// The last store number of each chain.
    store_numbers: HashMap<&'static str, u32>,
    /// The last `#n` given to tell apart merchants printing the same descriptor.
    numbered: HashMap<String, u32>,
}

/// A trading name and a descriptor no other merchant of the directory prints: a name already
/// taken is drawn again, and at last told apart by a store number.
fn unique_name(
    rng: &mut ChaCha8Rng,
    category: &'static Category,
    pool: &CountryPool,
    row: &Postcode,
    is_chain: bool,
    taken: &mut Taken,
) -> (String, String) {
    let Taken { keys: used_keys, names: used_names, store_numbers, numbered } = taken;
    let mut last = (String::new(), String::new());
    let mut fallback: Option<(String, String, String)> = None;
    for _attempt in 0..8 {
        let (name, descriptor) = if is_chain || category.names_in(pool.language).is_empty() {
            let brand = category.chains[rng.random_range(0..category.chains.len())];
            let counter = store_numbers.entry(brand).or_insert(0);
            *counter += 1;
            // Unique within the brand: each store draws from its own block of three numbers.
            let store = 10 + *counter * 3 + rng.random_range(0..3);
            (brand.to_owned(), chain_descriptor(brand, store, row.city))
        } else {
            let name = fill_name(rng, category, pool.language, row.city);
            let descriptor = independent_descriptor(rng, category, &name, row, pool.alpha3);
            (name, descriptor)
        };
        let key = descriptor::exact_key(&descriptor);
        // An independent merchant's name is its own (chains share theirs): a statement that
        // leaves out the city still names one merchant.
        let name_is_free = is_chain || used_names.insert(descriptor::letters(&name));
        if !key.is_empty() && !used_keys.contains(&key) {
            if name_is_free {
                used_keys.insert(key);
                return (name, descriptor);
            }
            if fallback.is_none() {
                fallback = Some((name.clone(), descriptor.clone(), key));
            }
        }
        last = (name, descriptor);
    }
    // No free name: one that another town has too, told apart by the city the descriptor prints.
    if let Some((name, descriptor, key)) = fallback {
        used_keys.insert(key);
        return (name, descriptor);
    }
    let (name, descriptor) = last;
    // Numbered from where the last merchant of this descriptor stopped, not from 2 again.
    let next = numbered.entry(descriptor.clone()).or_insert(1);
    for number in (*next + 1).. {
        *next = number;
        let suffix = format!(" #{number}");
        let mut base = descriptor.clone();
        base.truncate(DESCRIPTOR_WIDTH.saturating_sub(suffix.len()));
        let candidate = cut(format!("{}{suffix}", base.trim_end()));
        if used_keys.insert(descriptor::exact_key(&candidate)) {
            return (name, candidate);
        }
    }
    (name, descriptor)
}

/// An independent merchant's name from its category's patterns in the country's language.
fn fill_name(rng: &mut ChaCha8Rng, category: &Category, language: Language, city: &str) -> String {
    let patterns = category.names_in(language);
    let pattern = patterns[rng.random_range(0..patterns.len())];
    let words = catalog::words(language);
    let mut name = String::with_capacity(pattern.len() + 16);
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        name.push_str(&rest[..open]);
        let placeholder = rest.as_bytes().get(open + 1).copied();
        let pick = |rng: &mut ChaCha8Rng, list: &[&'static str]| list[rng.random_range(0..list.len())];
        match placeholder {
            Some(b'S') => name.push_str(pick(rng, words.surnames)),
            Some(b'F') => name.push_str(pick(rng, words.first_names)),
            Some(b'A') => name.push_str(pick(rng, words.adjectives)),
            Some(b'N') => name.push_str(pick(rng, words.nouns)),
            Some(b'C') => name.push_str(city),
            _ => {}
        }
        rest = rest.get(open + 3..).unwrap_or_default();
    }
    name.push_str(rest);
    name
}

/// `SQ *ROSAS TAQUERIA`, `GOLDEN DRAGON SEATTLE`, `HARPERS PUB TX`.
fn independent_descriptor(
    rng: &mut ChaCha8Rng,
    category: &Category,
    name: &str,
    row: &Postcode,
    country: &str,
) -> String {
    let printed = statement_text(name);
    let mut roll = rng.random_range(0..100u32);
    for (prefix, odds) in category.prefixes {
        if roll < u32::from(*odds) {
            return cut(format!("{prefix}{printed}"));
        }
        roll -= u32::from(*odds);
    }
    // What the statement's location column would show, when the name leaves room for it.
    match rng.random_range(0..10) {
        0..=4 => cut(format!("{printed} {}", statement_text(row.city))),
        5..=6 if country == "USA" => cut(format!("{printed} {}", row.region)),
        _ => cut(printed),
    }
}

/// `FRESHWAY MARKET #0423`, `PETRO STAR 01234 AUSTI`: the brand gives way to the store number.
fn chain_descriptor(brand: &str, store: u32, city: &str) -> String {
    let printed = statement_text(brand);
    let style = printed.bytes().map(u32::from).sum::<u32>() % 3;
    let number = match style {
        0 => format!("#{store:04}"),
        1 => format!("{store:05}"),
        _ => format!("#{store}"),
    };
    let room = DESCRIPTOR_WIDTH - number.len() - 1;
    let mut brand_part = printed;
    if brand_part.len() > room {
        brand_part.truncate(room);
    }
    let base = format!("{} {number}", brand_part.trim_end());
    if base.len() + 4 <= DESCRIPTOR_WIDTH { cut(format!("{base} {}", statement_text(city))) } else { base }
}

/// Scattered around the postcode (US: each ZIP has its own centre) or the city centre.
fn position(rng: &mut ChaCha8Rng, pool: &CountryPool, row: &Postcode) -> (f64, f64) {
    let spread = if pool.alpha3 == "USA" {
        0.012
    } else {
        let city_size = pool.city_sizes.get(row.city).copied().unwrap_or(1) as f64;
        0.01 + 0.006 * city_size.sqrt()
    };
    let latitude = row.latitude + rng.random_range(-spread..spread);
    let longitude = row.longitude + rng.random_range(-spread..spread) / row.latitude.to_radians().cos().max(0.2);
    ((latitude * 1e6).round() / 1e6, (longitude * 1e6).round() / 1e6)
}

fn street_number(rng: &mut ChaCha8Rng, country: &str) -> String {
    if country == "USA" || country == "AUS" {
        let number = match rng.random_range(0..10) {
            0..=1 => rng.random_range(1..100),
            2..=6 => rng.random_range(100..2000),
            _ => rng.random_range(2000..12000),
        };
        return number.to_string();
    }
    let number = rng.random_range(1..=140u32);
    if country == "DEU" && rng.random_range(0..10) == 0 {
        return format!("{number}{}", ['a', 'b'][rng.random_range(0..2)]);
    }
    number.to_string()
}

/// Calling code, the city's area code, and a subscriber number filling the national length.
fn phone_number(rng: &mut ChaCha8Rng, pool: &CountryPool, area_code: &str) -> u64 {
    let mut digits = format!("{}{area_code}", pool.calling_code);
    let rest = usize::from(pool.national_length).saturating_sub(area_code.len()).max(4);
    digits.push(char::from(b'0' + rng.random_range(2..=9u8)));
    for _ in 1..rest {
        digits.push(char::from(b'0' + rng.random_range(0..=9u8)));
    }
    digits.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_directory() {
        let first = generate(7, 500, &mut Interner::default());
        let second = generate(7, 500, &mut Interner::default());
        let other = generate(8, 500, &mut Interner::default());
        assert_eq!(first.len(), 500);
        assert!(first.iter().zip(&second).all(|(a, b)| a.descriptor == b.descriptor && a.phone == b.phone));
        assert!(first.iter().zip(&other).any(|(a, b)| a.descriptor != b.descriptor));
        assert_eq!(first[0].id, DirectoryEntryId(ID_BASE + 1));
        assert_eq!(&*first[0].descriptor, SHOWCASE[0].descriptor);
        assert!(
            first.iter().enumerate().all(|(index, entry)| entry.id == DirectoryEntryId(ID_BASE + 1 + index as i64))
        );
    }

    #[test]
    fn merchants_look_like_real_statements_and_places() {
        let entries = generate(20_261_122, 5000, &mut Interner::default());
        let mut keys = HashSet::new();
        let mut prefixes = HashMap::new();
        for entry in &entries {
            let descriptor = &*entry.descriptor;
            assert!(descriptor.len() <= DESCRIPTOR_WIDTH, "{descriptor}");
            assert_eq!(descriptor, descriptor.to_ascii_uppercase(), "upper case");
            assert!(keys.insert(descriptor::exact_key(descriptor)), "{descriptor} is unique");
            assert!(crate::reference::mcc::describe(&format!("{:04}", entry.mcc)).is_some());
            assert!(entry.zip.bytes().all(|byte| byte.is_ascii_digit()));
            assert!((-90.0..=90.0).contains(&entry.latitude) && (-180.0..=180.0).contains(&entry.longitude));
            if let (Some(prefix), _) = descriptor::split_prefix(descriptor) {
                *prefixes.entry(prefix.trim().to_owned()).or_insert(0) += 1;
            }
            if &*entry.country == "USA" {
                let phone = entry.phone.to_string();
                assert_eq!(phone.len(), 11, "{phone}");
                assert!(phone.starts_with('1'));
                assert_eq!(&*entry.currency, "USD");
            }
        }
        for prefix in ["SQ", "TST", "PAYPAL", "SP"] {
            assert!(prefixes.get(prefix).copied().unwrap_or(0) > 10, "{prefix} in {prefixes:?}");
        }
        let with_store_numbers = entries.iter().filter(|entry| entry.descriptor.contains('#')).count();
        assert!(with_store_numbers > 200, "{with_store_numbers} store numbers");
        let countries: HashSet<&str> = entries.iter().map(|entry| &*entry.country).collect();
        assert!(countries.len() >= 8, "{countries:?}");
    }
}
