//! The synthetic identity behind a person's questions: what a credit bureau would know
//! (past streets, employers, vehicles, lenders, the year of a first credit account),
//! made deterministically from the sandbox seed and the person, and the multiple-choice
//! questions drawn from it.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subscriber_protocol::PersonId;

pub const NONE_OF_THE_ABOVE: &str = "None of the above";
pub const QUESTIONS_PER_SET: usize = 4;
pub const CHOICES_PER_QUESTION: usize = 5;

const STREET_NAMES: &[&str] = &[
    "Maple",
    "Oak",
    "Cedar",
    "Pine",
    "Elm",
    "Willow",
    "Birch",
    "Chestnut",
    "Walnut",
    "Spruce",
    "Hickory",
    "Magnolia",
    "Sycamore",
    "Poplar",
    "Aspen",
    "Juniper",
    "Laurel",
    "Cypress",
    "Hawthorn",
    "Linden",
    "Lakeview",
    "Hillcrest",
    "Riverside",
    "Sunset",
    "Highland",
    "Fairview",
    "Meadow",
    "Orchard",
    "Park",
    "Washington",
    "Lincoln",
    "Franklin",
    "Jefferson",
    "Madison",
    "Monroe",
    "Jackson",
    "Church",
    "Mill",
    "Spring",
    "Valley",
    "Ridge",
    "Harbor",
];
const STREET_KINDS: &[&str] = &["Street", "Avenue", "Road", "Lane", "Drive", "Court", "Boulevard", "Way", "Place"];
const EMPLOYERS: &[&str] = &[
    "Brightline Logistics",
    "Cobalt Health Partners",
    "Northgate Insurance",
    "Silverleaf Foods",
    "Ironwood Construction",
    "Bluewater Shipping",
    "Crescent Software",
    "Redstone Manufacturing",
    "Evergreen Retail Group",
    "Summit Engineering",
    "Harborview Hospital",
    "Prairie State Bank",
    "Copperfield Energy",
    "Lakeside School District",
    "Granite Telecom",
    "Sunrise Home Care",
    "Westbrook Media",
    "Pioneer Freight",
    "Clearwater Utilities",
    "Oakmont Hotels",
    "Maplewood Pharmacy",
    "Keystone Data Systems",
    "Riverbend Auto Parts",
    "Starlight Cinemas",
    "Beacon Security",
    "Trailhead Outfitters",
    "Fairmont Dental",
    "Union Square Bakery",
    "Horizon Airlines",
    "Atlas Staffing",
];
const VEHICLE_MODELS: &[&str] = &[
    "Toyota Corolla",
    "Toyota Camry",
    "Honda Civic",
    "Honda Accord",
    "Ford F-150",
    "Ford Focus",
    "Chevrolet Malibu",
    "Chevrolet Silverado",
    "Nissan Altima",
    "Nissan Rogue",
    "Hyundai Elantra",
    "Kia Sorento",
    "Subaru Outback",
    "Mazda CX-5",
    "Volkswagen Jetta",
    "Jeep Cherokee",
    "Dodge Grand Caravan",
    "GMC Sierra",
    "Tesla Model 3",
    "Volvo XC60",
    "BMW 3 Series",
    "Audi A4",
    "Buick Enclave",
    "Chrysler Pacifica",
];
const LENDERS: &[&str] = &[
    "Summit Auto Finance",
    "Keystone Mortgage",
    "Bluebird Credit Union",
    "First Harbor Lending",
    "Cornerstone Savings",
    "Pinnacle Consumer Loans",
    "Heritage Home Loans",
    "Midland Student Finance",
    "Liberty Auto Credit",
    "Greenway Mortgage",
    "Northstar Federal Credit Union",
    "Trustline Personal Loans",
    "Red Rock Financial",
    "Sterling Home Equity",
    "Meridian Installment Credit",
];

/// What the bureau knows about the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    pub past_streets: Vec<String>,
    pub employers: Vec<String>,
    pub vehicles: Vec<String>,
    pub lenders: Vec<String>,
    pub first_credit_year: i32,
}

/// A question as stored: the right choice stays on the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IssuedQuestion {
    pub text: String,
    /// `CHOICES_PER_QUESTION` texts; the last is always "None of the above".
    pub choices: Vec<String>,
    /// Index into `choices`.
    pub correct: usize,
}

/// A generator seeded by the sandbox seed and what the value is for.
pub fn seeded(seed: u64, label: &str, parts: &[i64]) -> ChaCha8Rng {
    let mut hasher = Sha256::new();
    hasher.update(seed.to_le_bytes());
    hasher.update(label.as_bytes());
    for part in parts {
        hasher.update(part.to_le_bytes());
    }
    ChaCha8Rng::from_seed(hasher.finalize().into())
}

fn street(rng: &mut ChaCha8Rng) -> String {
    let name = STREET_NAMES.choose(rng).copied().unwrap_or("Main");
    let kind = STREET_KINDS.choose(rng).copied().unwrap_or("Street");
    format!("{name} {kind}")
}

fn vehicle(rng: &mut ChaCha8Rng) -> String {
    let model = VEHICLE_MODELS.choose(rng).copied().unwrap_or("Toyota Corolla");
    format!("{} {model}", rng.random_range(2004..=2022))
}

fn distinct<T: Clone>(pool: &[T], count: usize, rng: &mut ChaCha8Rng) -> Vec<T> {
    pool.choose_multiple(rng, count).cloned().collect()
}

/// The identity of a person: the same seed and person always give the same one. Years
/// fit the date of birth the person gave (a first credit account at 18 or later).
pub fn identity(seed: u64, person_id: PersonId, birth_year: i32, this_year: i32) -> Identity {
    let mut rng = seeded(seed, "identity", &[person_id.get()]);
    let mut past_streets = Vec::new();
    while past_streets.len() < 2 {
        let candidate = street(&mut rng);
        if !past_streets.contains(&candidate) {
            past_streets.push(candidate);
        }
    }
    let employers = distinct(EMPLOYERS, 2, &mut rng).into_iter().map(str::to_owned).collect();
    let vehicles = vec![vehicle(&mut rng)];
    let lenders = distinct(LENDERS, 2, &mut rng).into_iter().map(str::to_owned).collect();
    let earliest = (birth_year + 18).max(this_year - 40).min(this_year - 1);
    let latest = (this_year - 1).max(earliest);
    // A fraction rather than a year, so the identity stays put while the range follows the birth date.
    let fraction: f64 = rng.random();
    let span = f64::from(latest - earliest + 1);
    let first_credit_year = earliest + ((fraction * span) as i32).min(latest - earliest);
    Identity { past_streets, employers, vehicles, lenders, first_credit_year }
}

#[derive(Clone, Copy)]
enum Topic {
    Street,
    Employer,
    Vehicle,
    Lender,
    Year,
}

/// Four questions for the person's `set_number`-th authentication: a different pick of
/// topics and choices each time, from the same identity.
pub fn questions(seed: u64, person_id: PersonId, set_number: u32, identity: &Identity) -> Vec<IssuedQuestion> {
    let mut rng = seeded(seed, "questions", &[person_id.get(), i64::from(set_number)]);
    let mut topics = [Topic::Street, Topic::Employer, Topic::Vehicle, Topic::Lender, Topic::Year];
    topics.shuffle(&mut rng);
    topics
        .iter()
        .take(QUESTIONS_PER_SET)
        .map(|topic| {
            let (text, truths, pool): (&str, &[String], Vec<String>) = match topic {
                Topic::Street => (
                    "Which of these streets have you lived on?",
                    &identity.past_streets,
                    (0..40).map(|_| street(&mut rng)).collect(),
                ),
                Topic::Employer => (
                    "Which of these companies have you worked for?",
                    &identity.employers,
                    EMPLOYERS.iter().map(|name| (*name).to_owned()).collect(),
                ),
                Topic::Vehicle => (
                    "Which of these vehicles have you owned?",
                    &identity.vehicles,
                    (0..40).map(|_| vehicle(&mut rng)).collect(),
                ),
                Topic::Lender => (
                    "Which of these lenders has given you a loan?",
                    &identity.lenders,
                    LENDERS.iter().map(|name| (*name).to_owned()).collect(),
                ),
                Topic::Year => {
                    let year = identity.first_credit_year;
                    let pool = (year - 8..=year + 8).filter(|other| *other != year).map(|other| other.to_string());
                    let truth = [year.to_string()];
                    return build_question(
                        "In which year did you open your first credit account?",
                        &truth,
                        pool.collect(),
                        &mut rng,
                    );
                }
            };
            build_question(text, truths, pool, &mut rng)
        })
        .collect()
}

/// Four listed choices and "None of the above"; one time in five the truth is not listed,
/// and "None of the above" is the right answer.
fn build_question(text: &str, truths: &[String], pool: Vec<String>, rng: &mut ChaCha8Rng) -> IssuedQuestion {
    let listed = CHOICES_PER_QUESTION - 1;
    let mut decoys: Vec<String> = Vec::new();
    for candidate in pool {
        if !truths.contains(&candidate) && !decoys.contains(&candidate) {
            decoys.push(candidate);
        }
    }
    decoys.shuffle(rng);
    let truth_listed = rng.random_ratio(4, 5);
    let mut choices: Vec<String> = decoys.into_iter().take(if truth_listed { listed - 1 } else { listed }).collect();
    if truth_listed && let Some(truth) = truths.choose(rng) {
        choices.push(truth.clone());
    }
    choices.shuffle(rng);
    let correct =
        if truth_listed { choices.iter().position(|choice| truths.contains(choice)).unwrap_or(listed) } else { listed };
    choices.push(NONE_OF_THE_ABOVE.to_owned());
    IssuedQuestion { text: text.to_owned(), choices, correct }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_person_has_the_same_identity() {
        assert_eq!(identity(7, PersonId(42), 1980, 2026), identity(7, PersonId(42), 1980, 2026));
        assert_ne!(identity(7, PersonId(42), 1980, 2026), identity(7, PersonId(43), 1980, 2026));
    }

    #[test]
    fn the_first_credit_year_fits_the_birth_year() {
        for person in 1..200 {
            let year = identity(7, PersonId(person), 2006, 2026).first_credit_year;
            assert!((2024..=2025).contains(&year), "{year}");
            let year = identity(7, PersonId(person), 1950, 2026).first_credit_year;
            assert!((1986..=2025).contains(&year), "{year}");
        }
    }

    #[test]
    fn every_question_has_five_distinct_choices_and_one_right_answer() {
        let mut none_right = 0;
        for person in 1..100 {
            let who = identity(7, PersonId(person), 1985, 2026);
            let set = questions(7, PersonId(person), 0, &who);
            assert_eq!(set.len(), QUESTIONS_PER_SET);
            for question in set {
                assert_eq!(question.choices.len(), CHOICES_PER_QUESTION);
                assert_eq!(question.choices.last().map(String::as_str), Some(NONE_OF_THE_ABOVE));
                let mut unique = question.choices.clone();
                unique.sort();
                unique.dedup();
                assert_eq!(unique.len(), CHOICES_PER_QUESTION, "{:?}", question.choices);
                assert!(question.correct < CHOICES_PER_QUESTION);
                if question.correct == CHOICES_PER_QUESTION - 1 {
                    none_right += 1;
                }
            }
        }
        assert!((20..=140).contains(&none_right), "None of the above is right now and then: {none_right} of 396");
    }

    #[test]
    fn each_authentication_asks_differently() {
        let who = identity(7, PersonId(5), 1985, 2026);
        assert_ne!(questions(7, PersonId(5), 0, &who), questions(7, PersonId(5), 1, &who));
        assert_eq!(questions(7, PersonId(5), 1, &who), questions(7, PersonId(5), 1, &who));
    }
}
