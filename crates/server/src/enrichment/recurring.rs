//! Recurring streams of one card's or bank account's transactions: payments to or from one
//! counterparty at a steady rhythm (subscriptions, bills, rent, salaries). A pure function of
//! the transactions and the day it is asked on, so `GET /card/{id}/recurring` and
//! `GET /account/{id}/recurring` can call it on what they read.
//!
//! How a stream is told from shopping: transactions are grouped by counterparty (brand, else
//! the name), direction and currency; in each group the longest chain of transactions whose
//! gaps fit one frequency is found, and kept only when it is nearly all of the group's
//! transactions over its span (a restaurant visited every few weeks fits "monthly" by
//! skipping visits, and is not a stream), with steady amounts for weekly and fortnightly ones.
//! Two transactions on cadence are an early detection only when they are all the counterparty
//! has and their amounts agree.

use std::collections::BTreeMap;

use chrono::{Datelike, Duration, Months, NaiveDate};
use sha2::{Digest, Sha256};
use subscriber_protocol::{
    Direction, Frequency, PersonalFinanceCategory, RecurringStream, StreamCounterparty, StreamStatus, TransactionId,
};

/// A transaction as the stream finder needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Payment {
    pub transaction_id: TransactionId,
    pub date: NaiveDate,
    /// Positive, major units.
    pub amount: f64,
    pub direction: Direction,
    pub currency: String,
    /// The counterparty's brand, when one was matched.
    pub brand_id: Option<String>,
    /// The counterparty's name, else the descriptor.
    pub name: String,
    /// What the statement prints.
    pub description: String,
    pub category: Option<PersonalFinanceCategory>,
}

/// The gaps in days between two payments of a frequency.
fn gaps(frequency: Frequency) -> std::ops::RangeInclusive<i64> {
    match frequency {
        Frequency::Weekly => 6..=8,
        Frequency::Biweekly => 13..=15,
        Frequency::SemiMonthly => 12..=19,
        Frequency::Monthly => 26..=35,
        Frequency::Quarterly => 84..=98,
        Frequency::Annually => 358..=372,
    }
}

/// About one period of a frequency, in days.
fn period_days(frequency: Frequency) -> i64 {
    match frequency {
        Frequency::Weekly => 7,
        Frequency::Biweekly => 14,
        Frequency::SemiMonthly => 15,
        Frequency::Monthly => 30,
        Frequency::Quarterly => 91,
        Frequency::Annually => 365,
    }
}

/// Longest period first: a monthly bill is not also reported as quarterly (its chain at that
/// gap skips two of every three payments, and is not kept).
const FREQUENCIES: [Frequency; 6] = [
    Frequency::Annually,
    Frequency::Quarterly,
    Frequency::Monthly,
    Frequency::SemiMonthly,
    Frequency::Biweekly,
    Frequency::Weekly,
];

/// Share of a counterparty's transactions over a stream's span the stream must hold.
const DENSITY: f64 = 0.8;

/// The streams of one card's or account's payments, as of `today`, newest last payment first.
/// `owner` (`card 12`, `account 7`) keeps two cards' streams with one brand apart.
pub fn streams(owner: &str, payments: &[Payment], today: NaiveDate) -> Vec<RecurringStream> {
    let mut groups: BTreeMap<(String, Direction, String), Vec<&Payment>> = BTreeMap::new();
    for payment in payments {
        if payment.amount <= 0.0 || !payment.amount.is_finite() {
            continue;
        }
        let key = match &payment.brand_id {
            Some(brand) => brand.clone(),
            None => name_key(&payment.name),
        };
        if key.is_empty() {
            continue;
        }
        groups.entry((key, payment.direction, payment.currency.clone())).or_default().push(payment);
    }
    let mut found = Vec::new();
    for ((key, direction, _), mut group) in groups {
        group.sort_by_key(|payment| (payment.date, payment.transaction_id));
        let key = format!("{owner}\n{key}\n{direction:?}");
        match stream_of(&key, &group, today) {
            Some(stream) => found.push(stream),
            None => {
                // Two streams with one counterparty (two subscriptions on other days of the
                // month): each day of the month on its own.
                for (anchor, cluster) in by_day_of_month(&group) {
                    if cluster.len() >= 3
                        && cluster.len() < group.len()
                        && let Some(stream) = stream_of(&format!("{key}\nday {anchor}"), &cluster, today)
                        && steady_amounts(&cluster, &stream.transaction_ids)
                    {
                        found.push(stream);
                    }
                }
            }
        }
    }
    found.sort_by(|a, b| b.last_date.cmp(&a.last_date).then(a.stream_id.cmp(&b.stream_id)));
    found
}

/// The letters of a name, upper case: how a counterparty without a brand is grouped.
pub(crate) fn name_key(name: &str) -> String {
    deunicode::deunicode(name).chars().filter(char::is_ascii_alphabetic).map(|c| c.to_ascii_uppercase()).collect()
}

/// The best stream of one counterparty's payments, oldest first; `key` names it.
fn stream_of(key: &str, group: &[&Payment], today: NaiveDate) -> Option<RecurringStream> {
    let mut best: Option<(Frequency, Vec<usize>)> = None;
    for frequency in FREQUENCIES {
        let chain = longest_chain(group, frequency);
        if chain.len() < 2 || !acceptable(group, &chain, frequency) {
            continue;
        }
        let frequency = if frequency == Frequency::SemiMonthly {
            match semi_monthly_or_biweekly(group, &chain) {
                Some(frequency) => frequency,
                None => continue,
            }
        } else {
            frequency
        };
        if best.as_ref().is_none_or(|(_, known)| chain.len() > known.len() * 3 / 2) {
            best = Some((frequency, chain));
        }
    }
    let (frequency, chain) = best?;
    Some(describe(key, group, &chain, frequency, today))
}

/// The longest run of payments whose successive gaps all fit the frequency (payments between
/// them may be skipped), latest-ending first among equals.
fn longest_chain(group: &[&Payment], frequency: Frequency) -> Vec<usize> {
    let gaps = gaps(frequency);
    let mut length = vec![1usize; group.len()];
    let mut previous = vec![usize::MAX; group.len()];
    for i in 0..group.len() {
        for j in (0..i).rev() {
            let gap = (group[i].date - group[j].date).num_days();
            if gap > *gaps.end() {
                break;
            }
            if gaps.contains(&gap) && length[j] + 1 > length[i] {
                length[i] = length[j] + 1;
                previous[i] = j;
            }
        }
    }
    let Some(end) = (0..group.len()).max_by_key(|i| (length[*i], *i)) else { return Vec::new() };
    let mut chain = vec![end];
    while let Some(&last) = chain.last() {
        match previous[last] {
            usize::MAX => break,
            before => chain.push(before),
        }
    }
    chain.reverse();
    chain
}

/// Whether a chain is a stream rather than shopping that happens to fit the gaps.
fn acceptable(group: &[&Payment], chain: &[usize], frequency: Frequency) -> bool {
    let (Some(first), Some(last)) = (chain.first(), chain.last()) else { return false };
    let (start, end) = (group[*first].date, group[*last].date);
    let in_span = group.iter().filter(|payment| payment.date >= start && payment.date <= end).count();
    // Nearly all over its span, and most of all ever: a filling station that happened to be
    // visited monthly for a season, among weekly visits to it, is not a bill.
    if (chain.len() as f64) < DENSITY * in_span as f64 || chain.len() * 2 < group.len() {
        return false;
    }
    let amounts: Vec<f64> = chain.iter().map(|at| group[*at].amount).collect();
    let median = median(&amounts);
    let steady = amounts.iter().filter(|amount| (*amount - median).abs() <= 0.3 * median).count();
    if chain.len() == 2 {
        // Two are a stream only when they are all there is, for the same amount.
        // (Two flights a year apart cost about the same; a subscription costs the same.)
        return group.len() == 2
            && steady == 2
            && amounts.iter().all(|amount| (amount - median).abs() <= 0.01 * median);
    }
    match frequency {
        // Shopping can be weekly too (the groceries on Saturdays): a weekly or fortnightly stream
        // is a subscription or pay, whose amount hardly moves.
        Frequency::Weekly | Frequency::Biweekly | Frequency::SemiMonthly => {
            let exact = amounts.iter().filter(|amount| (*amount - median).abs() <= 0.05 * median).count();
            exact as f64 >= 0.75 * chain.len() as f64
        }
        _ => true,
    }
}

/// Gaps of 12 to 19 days: twice a month on two fixed days, or every other week.
fn semi_monthly_or_biweekly(group: &[&Payment], chain: &[usize]) -> Option<Frequency> {
    let mut days: Vec<u32> = chain.iter().map(|at| group[*at].date.day()).collect();
    days.sort_unstable();
    // Two days of the month, each kept within a few days (the 1st and the 15th).
    let first = days.first().copied().unwrap_or(1);
    let (early, late): (Vec<u32>, Vec<u32>) = days.iter().partition(|day| **day <= first + 4);
    let spread = |days: &[u32]| days.last().zip(days.first()).map_or(0, |(last, first)| last - first);
    if !early.is_empty() && !late.is_empty() && spread(&early) <= 4 && spread(&late) <= 4 {
        return Some(Frequency::SemiMonthly);
    }
    let fortnightly = chain
        .windows(2)
        .all(|pair| gaps(Frequency::Biweekly).contains(&(group[pair[1]].date - group[pair[0]].date).num_days()));
    fortnightly.then_some(Frequency::Biweekly)
}

/// Payments grouped by day of the month (within three days of each other, across month ends).
fn by_day_of_month<'a>(group: &[&'a Payment]) -> Vec<(u32, Vec<&'a Payment>)> {
    let mut clusters: Vec<(u32, Vec<&'a Payment>)> = Vec::new();
    for payment in group {
        let day = payment.date.day();
        let near = |anchor: u32| {
            let distance = anchor.abs_diff(day);
            distance.min(31 - distance.min(31)) <= 3
        };
        match clusters.iter_mut().find(|(anchor, _)| near(*anchor)) {
            Some((_, members)) => members.push(payment),
            None => clusters.push((day, vec![payment])),
        }
    }
    clusters
}

/// Whether a stream's amounts hold from one payment to the next, now and then a price change
/// aside (two subscriptions with one counterparty do; the groceries bought on the same days of
/// some months do not).
fn steady_amounts(group: &[&Payment], ids: &[TransactionId]) -> bool {
    let amounts: Vec<f64> =
        group.iter().filter(|payment| ids.contains(&payment.transaction_id)).map(|payment| payment.amount).collect();
    let held = amounts.windows(2).filter(|pair| (pair[1] - pair[0]).abs() <= 0.1 * pair[0]).count();
    held as f64 >= 0.75 * amounts.len().saturating_sub(1) as f64
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

fn describe(key: &str, group: &[&Payment], chain: &[usize], frequency: Frequency, today: NaiveDate) -> RecurringStream {
    let payments: Vec<&Payment> = chain.iter().map(|at| group[*at]).collect();
    let first = payments[0];
    let last = payments[payments.len() - 1];
    let dates: Vec<NaiveDate> = payments.iter().map(|payment| payment.date).collect();
    let predicted = predict(&dates, frequency);
    let status = status_of(frequency, payments.len(), predicted, today);
    let total: f64 = payments.iter().map(|payment| payment.amount).sum();
    // The owner, counterparty, direction, currency and rhythm: the same while the stream lasts,
    // whichever of its payments the 36-month window still holds.
    let digest = Sha256::digest(format!("recurring v1\n{key}\n{}\n{frequency:?}", last.currency).as_bytes());
    RecurringStream {
        stream_id: format!("rst_{}", hex::encode(&digest[..8])),
        counterparty: StreamCounterparty { brand_id: last.brand_id.clone(), name: last.name.clone() },
        description: last.description.clone(),
        personal_finance_category: last.category,
        frequency,
        direction: last.direction,
        average_amount: (total / payments.len() as f64 * 100.0).round() / 100.0,
        last_amount: last.amount,
        currency: last.currency.clone(),
        first_date: first.date,
        last_date: last.date,
        predicted_next_date: predicted,
        status,
        transaction_ids: payments.iter().map(|payment| payment.transaction_id).collect(),
    }
}

/// A stream's status as of `today`.
pub fn status_on(stream: &RecurringStream, today: NaiveDate) -> StreamStatus {
    status_of(stream.frequency, stream.transaction_ids.len(), stream.predicted_next_date, today)
}

fn status_of(frequency: Frequency, payments: usize, predicted: NaiveDate, today: NaiveDate) -> StreamStatus {
    let mature = payments >= 3 || frequency == Frequency::Annually && payments >= 2;
    if today > predicted + Duration::days(period_days(frequency)) {
        StreamStatus::Tombstoned
    } else if mature {
        StreamStatus::Mature
    } else {
        StreamStatus::EarlyDetection
    }
}

/// The next date: a day of the month (or the month's end) the payments keep, a period on.
fn predict(dates: &[NaiveDate], frequency: Frequency) -> NaiveDate {
    let Some(&last) = dates.last() else { return NaiveDate::MIN };
    let months = match frequency {
        Frequency::Weekly => return last + Duration::days(7),
        Frequency::Biweekly => return last + Duration::days(14),
        Frequency::SemiMonthly => {
            // The other of the two days: the earliest date after `last` whose day the stream
            // keeps.
            let anchors: Vec<u32> = dates.iter().rev().take(4).map(Datelike::day).collect();
            return (1..=20)
                .map(|ahead| last + Duration::days(ahead))
                .find(|day| day.day() != last.day() && anchors.iter().any(|anchor| anchor.abs_diff(day.day()) == 0))
                .unwrap_or(last + Duration::days(15));
        }
        Frequency::Monthly => 1,
        Frequency::Quarterly => 3,
        Frequency::Annually => 12,
    };
    let recent: Vec<NaiveDate> = dates.iter().rev().take(6).copied().collect();
    let days: Vec<u32> = recent.iter().map(Datelike::day).collect();
    let to_end: Vec<u32> = recent.iter().map(|date| days_in_month(*date) - date.day()).collect();
    let spread = |values: &[u32]| values.iter().max().zip(values.iter().min()).map_or(0, |(max, min)| max - min);
    // The day the payments keep, in a month: counted from the month's end for payments on the
    // month's last days (a day that is the 28th to the 31st), else the most common day.
    let from_end = (spread(&days) > 3 && spread(&to_end) <= 1).then(|| *to_end.iter().min().unwrap_or(&0));
    let day = most_common(&days).unwrap_or(last.day());
    let on_the_day = |month: NaiveDate| match from_end {
        Some(from_end) => month.with_day(days_in_month(month).saturating_sub(from_end).max(1)),
        None => month.with_day(day.min(days_in_month(month))),
    };
    // The first such day at least half a period after the last payment: a bill kept on the 30th
    // and paid late on the 4th is next due on the 30th of the same month, not of the next one.
    let month_of_last = last.with_day(1).unwrap_or(last);
    (0..=months + 1)
        .filter_map(|ahead| month_of_last.checked_add_months(Months::new(ahead)).and_then(on_the_day))
        .find(|next| (*next - last).num_days() >= period_days(frequency) / 2)
        .unwrap_or(last + Duration::days(period_days(frequency)))
}

fn days_in_month(date: NaiveDate) -> u32 {
    let first = date.with_day(1).unwrap_or(date);
    let next = first.checked_add_months(Months::new(1)).unwrap_or(first);
    u32::try_from((next - first).num_days()).unwrap_or(30)
}

/// The most common value, the latest among equals.
fn most_common(values: &[u32]) -> Option<u32> {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for value in values {
        *counts.entry(*value).or_default() += 1;
    }
    let top = counts.values().copied().max()?;
    values.iter().find(|value| counts.get(value) == Some(&top)).copied()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashMap};

    use sha2::Sha256;

    use super::*;
    use crate::directory::Directory;
    use crate::simulation::history::{self, HistoryInput};
    use subscriber_protocol::UnixSeconds;

    fn payment(id: i64, date: &str, amount: f64, name: &str) -> Payment {
        Payment {
            transaction_id: TransactionId(id),
            date: NaiveDate::parse_from_str(date, "%Y-%m-%d").expect("date"),
            amount,
            direction: Direction::Outflow,
            currency: "USD".to_owned(),
            brand_id: None,
            name: name.to_owned(),
            description: name.to_uppercase(),
            category: None,
        }
    }

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("date")
    }

    #[test]
    fn a_monthly_subscription_is_a_mature_stream() {
        let payments: Vec<Payment> = ["2026-07-14", "2026-08-14", "2026-09-14", "2026-10-14"]
            .iter()
            .zip(1..)
            .map(|(date, id)| payment(id, date, 15.49, "StreamBox"))
            .collect();
        let found = streams("card 1", &payments, day("2026-10-20"));
        assert_eq!(found.len(), 1);
        let stream = &found[0];
        assert_eq!(stream.frequency, Frequency::Monthly);
        assert_eq!(stream.status, StreamStatus::Mature);
        assert_eq!(stream.predicted_next_date, day("2026-11-14"));
        assert_eq!(stream.transaction_ids, [1, 2, 3, 4].map(TransactionId));
        assert!((stream.average_amount - 15.49).abs() < 1e-9);
        let later = streams("card 1", &payments, day("2027-01-01"));
        assert_eq!(later[0].status, StreamStatus::Tombstoned, "a predicted date passed by more than a period");
        assert_eq!(later[0].stream_id, stream.stream_id, "the same stream");
    }

    #[test]
    fn two_on_cadence_are_an_early_detection() {
        let payments = [payment(1, "2026-09-03", 49.99, "IronWorks"), payment(2, "2026-10-03", 49.99, "IronWorks")];
        let found = streams("card 1", &payments, day("2026-10-10"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].status, StreamStatus::EarlyDetection);
        assert_eq!(found[0].predicted_next_date, day("2026-11-03"));
    }

    #[test]
    fn weekly_and_semi_monthly_rhythms_are_told_apart() {
        let weekly: Vec<Payment> = (0..8)
            .map(|week| payment(week, &(day("2026-09-04") + Duration::days(7 * week)).to_string(), 12.0, "Yoga"))
            .collect();
        let found = streams("card 1", &weekly, day("2026-10-30"));
        assert_eq!(found[0].frequency, Frequency::Weekly);
        let mut pay = Vec::new();
        for (id, date) in
            ["2026-07-01", "2026-07-15", "2026-08-01", "2026-08-15", "2026-09-01", "2026-09-15"].iter().enumerate()
        {
            let mut salary = payment(id as i64, date, 2_400.0, "Acme Payroll");
            salary.direction = Direction::Inflow;
            pay.push(salary);
        }
        let found = streams("card 1", &pay, day("2026-09-20"));
        assert_eq!(found[0].frequency, Frequency::SemiMonthly, "{found:?}");
        assert_eq!(found[0].direction, Direction::Inflow);
        assert_eq!(found[0].predicted_next_date, day("2026-10-01"));
    }

    #[test]
    fn a_bill_paid_late_is_next_due_on_its_own_day() {
        // Kept on the 30th; the last one paid on the 4th: next due on the 30th of that month.
        let payments: Vec<Payment> = ["2026-08-30", "2026-09-30", "2026-11-04"]
            .iter()
            .zip(1..)
            .map(|(date, id)| payment(id, date, 40.0, "Little Apothecary"))
            .collect();
        let found = streams("card 1", &payments, day("2026-11-27"));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].predicted_next_date, day("2026-11-30"));
        // Paid early, on the 1st for the 30th: not due again the next day.
        assert_eq!(
            predict(&[day("2026-08-30"), day("2026-09-30"), day("2026-11-01")], Frequency::Monthly),
            day("2026-11-30")
        );
        assert_eq!(
            predict(&[day("2026-09-30"), day("2026-10-30"), day("2026-10-29")], Frequency::Monthly),
            day("2026-11-30")
        );
    }

    #[test]
    fn shopping_is_not_a_stream() {
        // A restaurant visited every two or three weeks fits "monthly" only by skipping visits.
        let dates = ["2026-01-03", "2026-01-20", "2026-02-05", "2026-02-21", "2026-03-07", "2026-03-28", "2026-04-11"];
        let visits: Vec<Payment> =
            dates.iter().zip(1..).map(|(date, id)| payment(id, date, 40.0 + id as f64 * 7.0, "Golden Fork")).collect();
        let found = streams("card 1", &visits, day("2026-04-20"));
        assert!(found.is_empty(), "{found:#?}");
        let once = [payment(1, "2026-01-03", 20.0, "A"), payment(2, "2026-02-03", 80.0, "A")];
        assert!(streams("card 1", &once, day("2026-02-10")).is_empty(), "two unlike amounts are not a stream");
    }

    /// The sandbox's own bills and subscriptions (rent, utilities, phone, streaming, gym) of
    /// five cards' histories all come out as mature monthly streams with the next bill's date.
    #[test]
    fn the_sandbox_subscriptions_and_bills_are_found() {
        let directory = Directory::generate(20_261_122, 3000);
        let enrolled_at = UnixSeconds(1_790_000_000);
        let today = enrolled_at.to_datetime().expect("time").date_naive();
        let mut expected_series = 0;
        for (card, country) in ["USA", "USA", "DEU", "FRA", "ITA"].iter().enumerate() {
            let input = HistoryInput {
                seed: 42,
                fingerprint: Sha256::digest((card as u32).to_le_bytes()).to_vec(),
                last_four: 4242,
                country_code: (*country).to_owned(),
                enrolled_at,
            };
            let rows = history::generate(&directory, &input);
            let payments: Vec<Payment> = rows
                .iter()
                .enumerate()
                .map(|(id, row)| {
                    let date = row.created_at.to_datetime().expect("time").date_naive();
                    let amount = row.amount_minor as f64 / 100.0;
                    Payment {
                        transaction_id: TransactionId(id as i64),
                        date,
                        amount: amount.abs(),
                        direction: if amount >= 0.0 { Direction::Outflow } else { Direction::Inflow },
                        currency: row.currency.clone(),
                        brand_id: None,
                        name: row.merchant_name.clone(),
                        description: row.descriptor.clone(),
                        category: None,
                    }
                })
                .collect();
            let found = streams("card 1", &payments, today);
            // The generator's bills: a merchant billed on a fixed day every month.
            let mut bills: HashMap<(String, u32), Vec<NaiveDate>> = HashMap::new();
            for (row, payment) in rows.iter().zip(&payments) {
                if ["6513", "4900", "4814", "4899", "7997"].contains(&row.category.as_str())
                    && payment.direction == Direction::Outflow
                {
                    bills.entry((row.merchant_name.clone(), payment.date.day())).or_default().push(payment.date);
                }
            }
            for ((name, bill_day), dates) in bills.iter().filter(|(_, dates)| dates.len() >= 6) {
                expected_series += 1;
                let stream = found
                    .iter()
                    .find(|stream| stream.counterparty.name == *name && stream.last_date.day() == *bill_day)
                    .unwrap_or_else(|| {
                        panic!("card {card}: {name} on day {bill_day} ({} bills) found in {found:#?}", dates.len())
                    });
                assert_eq!(stream.frequency, Frequency::Monthly, "{name}");
                assert_eq!(stream.status, StreamStatus::Mature, "{name}");
                let last = *dates.iter().max().expect("dates");
                assert_eq!(stream.last_date, last, "{name}");
                let next = last.checked_add_months(Months::new(1)).expect("a month on");
                assert_eq!(stream.predicted_next_date, next, "{name}: the next bill");
                assert!(stream.predicted_next_date > today - Duration::days(3), "{name}: due next");
                assert!(stream.transaction_ids.len() >= dates.len() - 1, "{name}: the bills are the stream's");
            }
            // Nothing else is taken for a subscription: shopping is not.
            let named: BTreeSet<&str> = found.iter().map(|stream| stream.counterparty.name.as_str()).collect();
            for name in named {
                let categories: BTreeSet<&str> =
                    rows.iter().filter(|row| row.merchant_name == name).map(|row| row.category.as_str()).collect();
                assert!(
                    categories.iter().all(|code| ["6513", "4900", "4814", "4899", "7997"].contains(code)),
                    "card {card}: {name} ({categories:?}) is not a bill: {:#?}",
                    found.iter().filter(|stream| stream.counterparty.name == name).collect::<Vec<_>>()
                );
            }
        }
        assert!(expected_series >= 25, "{expected_series} series in five histories");
    }
}
