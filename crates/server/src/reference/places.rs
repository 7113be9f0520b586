//! Places the service knows: cities with their country, region, postcodes, coordinates and
//! telephone area codes, and the common street names of each country (`assets/places.tsv`,
//! made from PyPI packages by `assets/tools/make_places.py`; never downloaded).

use std::collections::HashMap;
use std::sync::LazyLock;

/// A known city.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub city: String,
    pub region: Option<String>,
    /// ISO 3166-1 alpha-3.
    pub country: String,
    pub latitude: f64,
    pub longitude: f64,
}

/// A country the place data covers.
#[derive(Debug)]
pub struct Country {
    /// ISO 3166-1 alpha-3.
    pub alpha3: &'static str,
    /// International calling code (`1`, `49`).
    pub calling_code: u16,
    /// Digits of a national telephone number (area code included).
    pub national_length: u8,
    /// ISO 4217.
    pub currency: &'static str,
    pub streets: Vec<&'static str>,
    /// The country's postcodes: a slice of [`postcodes`].
    pub postcodes: std::ops::Range<usize>,
}

/// A postcode of a city, with its position and the city's telephone area code.
#[derive(Debug)]
pub struct Postcode {
    pub country: &'static str,
    pub region: &'static str,
    pub city: &'static str,
    pub zip: &'static str,
    pub latitude: f64,
    pub longitude: f64,
    pub area_code: &'static str,
    /// People living in the postcode's area (estimated): merchants are spread like people.
    pub people: u32,
}

struct Places {
    countries: Vec<Country>,
    postcodes: Vec<Postcode>,
    /// (alpha-3, folded city name) -> indices into `postcodes`.
    by_city: HashMap<(&'static str, String), Vec<usize>>,
}

static PLACES: LazyLock<Places> = LazyLock::new(|| parse(include_str!("../../../../assets/places.tsv")));

fn parse(text: &'static str) -> Places {
    let mut countries: Vec<Country> = Vec::new();
    let mut postcodes = Vec::new();
    for line in text.lines() {
        let fields: Vec<&'static str> = line.split('\t').collect();
        match fields.as_slice() {
            ["C", alpha3, calling_code, national_length, currency, _language] => {
                let start = postcodes.len();
                countries.push(Country {
                    alpha3,
                    calling_code: calling_code.parse().unwrap_or(0),
                    national_length: national_length.parse().unwrap_or(10),
                    currency,
                    streets: Vec::new(),
                    postcodes: start..start,
                });
            }
            ["P", country, region, city, zip, latitude, longitude, area_code, people] => {
                let (Ok(latitude), Ok(longitude)) = (latitude.parse(), longitude.parse()) else { continue };
                let people = people.parse().unwrap_or(1);
                postcodes.push(Postcode { country, region, city, zip, latitude, longitude, area_code, people });
                if let Some(current) = countries.last_mut().filter(|current| current.alpha3 == *country) {
                    current.postcodes.end = postcodes.len();
                }
            }
            ["S", country, street] => {
                if let Some(current) = countries.iter_mut().find(|current| current.alpha3 == *country) {
                    current.streets.push(street);
                }
            }
            _ => {}
        }
    }
    let mut by_city: HashMap<(&'static str, String), Vec<usize>> = HashMap::new();
    for (index, postcode) in postcodes.iter().enumerate() {
        by_city.entry((postcode.country, fold_city(postcode.city))).or_default().push(index);
    }
    Places { countries, postcodes, by_city }
}

/// The covered country of an alpha-3 code (upper case).
pub fn country(alpha3: &str) -> Option<&'static Country> {
    PLACES.countries.iter().find(|country| country.alpha3 == alpha3)
}

/// Every postcode, grouped by country in the order of [`countries`].
pub fn postcodes() -> &'static [Postcode] {
    &PLACES.postcodes
}

/// The currency of a country (ISO 4217), for countries beyond the place data too.
pub fn currency_of(alpha3: &str) -> &'static str {
    country(alpha3).map(|country| country.currency).or_else(|| super::currencies::of_country(alpha3)).unwrap_or("USD")
}

/// The place an address is in, when the service knows its city (matched without regard to
/// case or accents; the postcode picks among cities of the same name).
pub fn locate(country_alpha3: &str, city: &str, zip: &str) -> Option<Place> {
    let places = &*PLACES;
    let country = country_alpha3.trim().to_ascii_uppercase();
    let country = places.countries.iter().find(|known| known.alpha3 == country)?.alpha3;
    let rows = places.by_city.get(&(country, fold_city(city)))?;
    let zip = zip.trim();
    if let Some(row) = rows.iter().map(|index| &places.postcodes[*index]).find(|row| row.zip == zip) {
        return Some(place_of(row, row.latitude, row.longitude));
    }
    // Without its postcode, the biggest town of that name (most postcodes), at its centre.
    let mut regions: HashMap<&str, Vec<&Postcode>> = HashMap::new();
    for index in rows {
        let row = &places.postcodes[*index];
        regions.entry(row.region).or_default().push(row);
    }
    let town = regions.into_values().max_by(|a, b| a.len().cmp(&b.len()).then_with(|| b[0].zip.cmp(a[0].zip)))?;
    let count = town.len() as f64;
    let latitude = town.iter().map(|row| row.latitude).sum::<f64>() / count;
    let longitude = town.iter().map(|row| row.longitude).sum::<f64>() / count;
    Some(place_of(town[0], latitude, longitude))
}

fn place_of(row: &Postcode, latitude: f64, longitude: f64) -> Place {
    Place {
        city: row.city.to_owned(),
        region: (!row.region.is_empty()).then(|| row.region.to_owned()),
        country: row.country.to_owned(),
        latitude: (latitude * 10_000.0).round() / 10_000.0,
        longitude: (longitude * 10_000.0).round() / 10_000.0,
    }
}

/// Lower-case ASCII letters and digits, words separated by one space: `Zürich` and `ZURICH`
/// fold alike, and so do `Saint-Étienne` and `St Etienne`.
pub fn fold(text: &str) -> String {
    let ascii = deunicode::deunicode(text);
    let mut folded = String::with_capacity(ascii.len());
    for word in ascii.split(|character: char| !character.is_ascii_alphanumeric()).filter(|word| !word.is_empty()) {
        if !folded.is_empty() {
            folded.push(' ');
        }
        folded.extend(word.chars().map(|character| character.to_ascii_lowercase()));
    }
    folded
}

/// [`fold`], with `St` read as `Saint` as town names write it.
pub fn fold_city(text: &str) -> String {
    fold(text).split(' ').map(|word| if word == "st" { "saint" } else { word }).collect::<Vec<_>>().join(" ")
}

/// One line as the country writes it: `1234 Main St, Austin, TX 78701`,
/// `Hauptstraße 12, 10115 Berlin`.
pub fn postal_address(
    street: &str,
    street_no: &str,
    city: &str,
    region: Option<&str>,
    zip: &str,
    country: &str,
) -> String {
    match country {
        "USA" | "AUS" | "CAN" => {
            let region = region.map(|region| format!("{region} ")).unwrap_or_default();
            format!("{street_no} {street}, {city}, {region}{zip}")
        }
        "FRA" | "BEL" | "GBR" => format!("{street_no} {street}, {zip} {city}"),
        _ => format!("{street} {street_no}, {zip} {city}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_data_covers_countries_with_numeric_postcodes() {
        let usa = country("USA").expect("USA");
        assert_eq!(usa.calling_code, 1);
        assert_eq!(usa.currency, "USD");
        assert!(usa.postcodes.len() > 20_000);
        assert!(usa.streets.contains(&"Main St"));
        for country in PLACES.countries.iter() {
            assert!(!country.postcodes.is_empty(), "{} has postcodes", country.alpha3);
            assert!(!country.streets.is_empty(), "{} has streets", country.alpha3);
            for row in &postcodes()[country.postcodes.clone()] {
                assert_eq!(row.country, country.alpha3);
                assert!(row.zip.bytes().all(|byte| byte.is_ascii_digit()), "{} is numeric", row.zip);
                assert!(!row.area_code.is_empty(), "{} {} has an area code", row.country, row.city);
                assert!(row.people > 0);
            }
        }
        assert_eq!(currency_of("DEU"), "EUR");
        assert_eq!(currency_of("GBR"), "GBP");
    }

    #[test]
    fn cities_are_found_without_regard_to_case_or_accents() {
        let munich = locate("DEU", "MUNCHEN", "").expect("München");
        assert_eq!(munich.city, "München");
        assert!((munich.latitude - 48.14).abs() < 0.1, "{munich:?}");
        let zurich = locate("che", "zürich", "8001").expect("Zürich");
        assert_eq!(zurich.country, "CHE");
        assert_eq!(locate("DEU", "Atlantis", ""), None);
        assert_eq!(locate("XYZ", "Berlin", ""), None);
    }

    #[test]
    fn the_postcode_picks_among_towns_of_the_same_name() {
        let texas = locate("USA", "Paris", "75460").expect("Paris, TX");
        assert_eq!(texas.region.as_deref(), Some("TX"));
        let tennessee = locate("USA", "paris", "38242").expect("Paris, TN");
        assert_eq!(tennessee.region.as_deref(), Some("TN"));
        let new_york = locate("USA", "New York", "").expect("New York");
        assert_eq!(new_york.region.as_deref(), Some("NY"));
        assert!((new_york.latitude - 40.75).abs() < 0.2, "{new_york:?}");
        let saint_louis = locate("USA", "St. Louis", "63101").expect("Saint Louis");
        assert_eq!(saint_louis.region.as_deref(), Some("MO"));
    }
}
