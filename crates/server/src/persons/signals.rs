//! The data signals a verified identity unlocks: income, spending by category, and how fast
//! spending changes. Deterministic per person in the sandbox.

use rand::Rng;
use rand::seq::SliceRandom;
use subscriber_protocol::PersonId;
use subscriber_protocol::{IncomeSignal, Signals, SpendingCategory, SpendingDelta};

use crate::simulation::identity::seeded;

const CATEGORIES: &[&str] = &[
    "Groceries",
    "Dining",
    "Transportation",
    "Housing",
    "Utilities",
    "Entertainment",
    "Shopping",
    "Health",
    "Travel",
    "Education",
];

const SPENDING_DELTA_PERIOD_DAYS: u32 = 90;

/// The currency of the person's country (the address given at authentication).
pub fn currency_of(country_code: Option<&str>) -> &'static str {
    match country_code.unwrap_or("USA") {
        "CAN" => "CAD",
        "GBR" => "GBP",
        "AUS" => "AUD",
        "NZL" => "NZD",
        "CHE" => "CHF",
        "JPN" => "JPY",
        "SWE" => "SEK",
        "NOR" => "NOK",
        "DNK" => "DKK",
        "MEX" => "MXN",
        "BRA" => "BRL",
        "IND" => "INR",
        "AUT" | "BEL" | "CYP" | "DEU" | "ESP" | "EST" | "FIN" | "FRA" | "GRC" | "HRV" | "IRL" | "ITA" | "LTU"
        | "LUX" | "LVA" | "MLT" | "NLD" | "PRT" | "SVK" | "SVN" => "EUR",
        _ => "USD",
    }
}

fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

pub fn signals(seed: u64, person_id: PersonId, country_code: Option<&str>) -> Signals {
    let mut rng = seeded(seed, "signals", &[person_id.get()]);
    // Log-uniform: most incomes modest, a few high.
    let income = (rng.random_range(28_000f64.ln()..185_000f64.ln())).exp();
    let annual_amount = (income / 500.0).round() * 500.0;
    let confidence = round_to(rng.random_range(0.62..0.95), 2);

    let monthly_spending = annual_amount / 12.0 * rng.random_range(0.45..0.8);
    let mut names: Vec<&str> = CATEGORIES.to_vec();
    names.shuffle(&mut rng);
    names.truncate(rng.random_range(5..=7));
    let weights: Vec<f64> = names.iter().map(|_| rng.random_range(0.5..4.0)).collect();
    let total: f64 = weights.iter().sum();
    let mut shares: Vec<f64> = weights.iter().map(|weight| round_to(weight / total, 4)).collect();
    // Rounding leaves a few ten-thousandths over or under: the largest share absorbs them, so
    // the shares sum to 1.
    if let Some(largest) = (0..shares.len()).max_by(|a, b| shares[*a].total_cmp(&shares[*b])) {
        let others: f64 =
            shares.iter().enumerate().filter(|(index, _)| *index != largest).map(|(_, share)| share).sum();
        shares[largest] = round_to(1.0 - others, 4);
    }
    let mut spending_categories: Vec<SpendingCategory> = names
        .iter()
        .zip(shares)
        .map(|(name, share)| SpendingCategory {
            category: (*name).to_owned(),
            monthly_average: round_to(monthly_spending * share, 2),
            share,
        })
        .collect();
    spending_categories.sort_by(|a, b| b.share.total_cmp(&a.share));

    let value = round_to(rng.random_range(-0.2..0.3), 3);
    let direction = if value > 0.02 {
        "increasing"
    } else if value < -0.02 {
        "decreasing"
    } else {
        "stable"
    };
    Signals {
        income: IncomeSignal { annual_amount, currency: currency_of(country_code).to_owned(), confidence },
        spending_categories,
        spending_delta: SpendingDelta {
            value,
            direction: direction.to_owned(),
            period_days: SPENDING_DELTA_PERIOD_DAYS,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_sum_to_one_and_signals_are_plausible() {
        for person in 1..300 {
            let signals = signals(11, PersonId(person), Some("DEU"));
            let sum: f64 = signals.spending_categories.iter().map(|category| category.share).sum();
            assert!((sum - 1.0).abs() < 1e-9, "person {person}: {sum}");
            assert!(signals.spending_categories.iter().all(|category| category.share > 0.0));
            assert!((28_000.0..=185_000.0).contains(&signals.income.annual_amount));
            assert_eq!(signals.income.currency, "EUR");
            assert!((0.0..=1.0).contains(&signals.income.confidence));
            let delta = &signals.spending_delta;
            let expected = if delta.value > 0.02 {
                "increasing"
            } else if delta.value < -0.02 {
                "decreasing"
            } else {
                "stable"
            };
            assert_eq!(delta.direction, expected);
        }
    }

    #[test]
    fn the_same_person_gets_the_same_signals() {
        assert_eq!(signals(11, PersonId(3), None), signals(11, PersonId(3), None));
        assert_ne!(signals(11, PersonId(3), None), signals(11, PersonId(4), None));
    }
}
