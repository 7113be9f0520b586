//! How money moves, from rows the service returned: a period of whole days beside the period it
//! is compared with, a merchant's sales per location (count, average ticket, refunds, the change
//! against before, a trend), and the money in and out of a subscriber. Pure functions over rows,
//! so every figure a screen shows is tested here.

use std::collections::{BTreeMap, HashMap};

use chrono::{Datelike, Duration, Months, NaiveDate};
use serde::{Deserialize, Serialize};
use subscriber_protocol::{CardTransaction, LocationId, MerchantTransaction};

/// Whole UTC days, both ends included (as the transaction filters count them), and the days it
/// is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Period {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub previous_from: NaiveDate,
    pub previous_to: NaiveDate,
}

impl Period {
    /// `from` to `to` against as many days just before it.
    pub fn against_previous(from: NaiveDate, to: NaiveDate) -> Self {
        let (from, to) = if to < from { (to, from) } else { (from, to) };
        let length = (to - from).num_days() + 1;
        let previous_to = from.pred_opt().unwrap_or(from);
        let previous_from = previous_to.checked_sub_signed(Duration::days(length - 1)).unwrap_or(previous_to);
        Self { from, to, previous_from, previous_to }
    }

    /// This month up to `today` against the same days of the month before (to its last day
    /// when it is shorter): on 31 March, 1–31 March against 1–28 February.
    pub fn month_to_date(today: NaiveDate) -> Self {
        let from = today.with_day(1).unwrap_or(today);
        let previous_from = from.checked_sub_months(Months::new(1)).unwrap_or(from);
        let last_of_previous = from.pred_opt().unwrap_or(from);
        let previous_to = previous_from.with_day(today.day()).map_or(last_of_previous, |day| day.min(last_of_previous));
        Self { from, to: today, previous_from, previous_to }
    }

    /// Days in the period.
    pub fn days(&self) -> u32 {
        u32::try_from((self.to - self.from).num_days() + 1).unwrap_or(1)
    }

    fn current(&self, day: NaiveDate) -> bool {
        self.from <= day && day <= self.to
    }

    fn previous(&self, day: NaiveDate) -> bool {
        self.previous_from <= day && day <= self.previous_to
    }

    /// The buckets a chart of the period draws: days up to three months, then weeks (from
    /// the first day), then months.
    pub fn bucket(&self) -> Bucket {
        match self.days() {
            0..=92 => Bucket::Day,
            93..=731 => Bucket::Week,
            _ => Bucket::Month,
        }
    }

    /// The first day of the bucket `day` falls in.
    fn bucket_start(&self, bucket: Bucket, day: NaiveDate) -> NaiveDate {
        match bucket {
            Bucket::Day => day,
            Bucket::Week => {
                let offset = (day - self.from).num_days().div_euclid(7) * 7;
                self.from + Duration::days(offset)
            }
            Bucket::Month => day.with_day(1).unwrap_or(day),
        }
    }

    /// Every bucket's first day, oldest first.
    fn bucket_starts(&self, bucket: Bucket) -> Vec<NaiveDate> {
        let mut starts = Vec::new();
        let mut day = self.bucket_start(bucket, self.from);
        while day <= self.to {
            starts.push(day);
            day = match bucket {
                Bucket::Day => day + Duration::days(1),
                Bucket::Week => day + Duration::days(7),
                Bucket::Month => match day.checked_add_months(Months::new(1)) {
                    Some(next) => next,
                    None => break,
                },
            };
        }
        starts
    }
}

/// What one bar of a chart (one point of a trend) covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum Bucket {
    Day,
    Week,
    Month,
}

/// `merchant_sales`: the days to sum; without `from` since the first sale, without `to` up to today.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct SalesQuery {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub from: Option<NaiveDate>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub to: Option<NaiveDate>,
}

/// One bar of a chart: what was sold in a bucket (a day, a week or a month).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct BucketSales {
    /// The bucket's first day.
    pub start: NaiveDate,
    pub sales: f64,
    pub count: u32,
    pub refunds: f64,
}

/// Sales over a period beside the period before: the merchant's total or one location's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct SalesFigures {
    /// The sum of the sales (purchases; refunds apart), and how many.
    pub sales: f64,
    pub count: u32,
    /// `sales / count`; 0 without a sale.
    pub average_ticket: f64,
    /// Refunds given, as a positive sum, and how many.
    pub refunds: f64,
    pub refund_count: u32,
    /// Sales less refunds.
    pub net: f64,
    /// The sales of the period before.
    pub previous_sales: f64,
    pub previous_count: u32,
    /// `sales` against `previous_sales` (0.25: a quarter more); `None` without sales before.
    pub change: Option<f64>,
    /// The sales of each bucket of the period, oldest first (every bucket, empty ones at 0).
    pub trend: Vec<BucketSales>,
}

/// One location's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LocationSales {
    pub location_id: LocationId,
    pub figures: SalesFigures,
}

/// `merchant_sales`: the merchant's sales over a period against the period before, in total
/// and per location.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct MerchantSales {
    pub period: Period,
    pub bucket: Bucket,
    /// The currency of every figure (the one most sales were in).
    pub currency: String,
    pub total: SalesFigures,
    /// Every location given, in their order, then any other location sold at.
    pub locations: Vec<LocationSales>,
    /// Currencies of sales left out of the figures, with how many sales.
    pub other_currencies: Vec<CurrencyCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct CurrencyCount {
    pub currency: String,
    pub count: u32,
}

/// A sum now and the same sum over the period it is compared with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Compared {
    pub current: f64,
    pub previous: f64,
}

/// Money in and out of the subscriber over a period against the period before, in one currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct MoneyFlow {
    pub currency: String,
    /// Spent with the subscriber's cards.
    pub card_spending: Compared,
    /// Refunded to the subscriber's cards.
    pub card_refunds: Compared,
    /// Sold at the merchant's locations, less its refunds.
    pub sales: Compared,
    /// `sales` and `card_refunds`.
    pub money_in: Compared,
    /// `card_spending`.
    pub money_out: Compared,
    /// Currencies of rows left out of the sums, with how many rows.
    pub other_currencies: Vec<CurrencyCount>,
}

/// A row of money: a sale, a purchase or a refund (negative).
pub trait MoneyRow {
    fn day(&self) -> NaiveDate;
    fn amount(&self) -> f64;
    fn currency(&self) -> &str;
}

/// The transactions that are rows of money: each has its time, amount and currency.
macro_rules! money_rows {
    ($($row:ty),*) => {$(
        impl MoneyRow for $row {
            fn day(&self) -> NaiveDate {
                self.created_at.date_naive()
            }
            fn amount(&self) -> f64 {
                self.amount
            }
            fn currency(&self) -> &str {
                &self.currency
            }
        }
    )*};
}
money_rows!(MerchantTransaction, CardTransaction);

/// Amounts are major units with two decimals: sums are kept in cents, so a thousand sales of
/// 0.10 sum to 100.00 exactly.
fn cents(amount: f64) -> i64 {
    // Saturating: amounts are a few thousand at most.
    #[allow(clippy::cast_possible_truncation)]
    let rounded = (amount * 100.0).round() as i64;
    rounded
}

fn major(cents: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let amount = cents as f64 / 100.0;
    amount
}

/// The currency most rows of the period (and the one before) are in; `fallback` without rows.
pub fn main_currency<'a, R: MoneyRow + 'a>(
    rows: impl IntoIterator<Item = &'a R>,
    period: &Period,
    fallback: &str,
) -> (String, Vec<CurrencyCount>) {
    let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
    for row in rows {
        let day = row.day();
        if period.current(day) || period.previous(day) {
            *counts.entry(row.currency()).or_default() += 1;
        }
    }
    let main = counts.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map_or(fallback, |(currency, _)| currency);
    let main = main.to_owned();
    let others = counts
        .into_iter()
        .filter(|(currency, _)| *currency != main)
        .map(|(currency, count)| CurrencyCount { currency: currency.to_owned(), count })
        .collect();
    (main, others)
}

/// Sums in cents while rows are added, then the figures.
#[derive(Default)]
struct Tally {
    sales: i64,
    count: u32,
    refunds: i64,
    refund_count: u32,
    previous_sales: i64,
    previous_count: u32,
    /// By bucket start: sales, count, refunds.
    buckets: HashMap<NaiveDate, (i64, u32, i64)>,
}

impl Tally {
    fn add(&mut self, period: &Period, bucket: Bucket, day: NaiveDate, amount: i64) {
        if period.current(day) {
            let slot = self.buckets.entry(period.bucket_start(bucket, day)).or_default();
            if amount >= 0 {
                self.sales += amount;
                self.count += 1;
                slot.0 += amount;
                slot.1 += 1;
            } else {
                self.refunds -= amount;
                self.refund_count += 1;
                slot.2 -= amount;
            }
        } else if period.previous(day) && amount >= 0 {
            self.previous_sales += amount;
            self.previous_count += 1;
        }
    }

    fn figures(&self, starts: &[NaiveDate]) -> SalesFigures {
        let trend = starts
            .iter()
            .map(|start| {
                let (sales, count, refunds) = self.buckets.get(start).copied().unwrap_or_default();
                BucketSales { start: *start, sales: major(sales), count, refunds: major(refunds) }
            })
            .collect();
        SalesFigures {
            sales: major(self.sales),
            count: self.count,
            average_ticket: if self.count == 0 { 0.0 } else { major(self.sales) / f64::from(self.count) },
            refunds: major(self.refunds),
            refund_count: self.refund_count,
            net: major(self.sales - self.refunds),
            previous_sales: major(self.previous_sales),
            previous_count: self.previous_count,
            change: change(self.sales, self.previous_sales),
            trend,
        }
    }
}

/// `current` against `previous` as a ratio; `None` when there was nothing before.
fn change(current: i64, previous: i64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)]
    (previous > 0).then(|| (current - previous) as f64 / previous as f64)
}

/// The merchant's sales over `period` against the period before, in total and for each of
/// `locations` (in their order; a location sold at but not given comes after them).
pub fn merchant_sales(rows: &[MerchantTransaction], period: Period, locations: &[LocationId]) -> MerchantSales {
    let bucket = period.bucket();
    let starts = period.bucket_starts(bucket);
    let (currency, other_currencies) = main_currency(rows, &period, "USD");
    let mut total = Tally::default();
    let mut by_location: HashMap<LocationId, Tally> = HashMap::new();
    let mut order: Vec<LocationId> = locations.to_vec();
    for row in rows.iter().filter(|row| row.currency == currency) {
        let day = row.day();
        let amount = cents(row.amount);
        total.add(&period, bucket, day, amount);
        let tally = by_location.entry(row.location_id).or_insert_with(|| {
            if !order.contains(&row.location_id) {
                order.push(row.location_id);
            }
            Tally::default()
        });
        tally.add(&period, bucket, day, amount);
    }
    let empty = Tally::default();
    let locations = order
        .into_iter()
        .map(|location_id| LocationSales {
            location_id,
            figures: by_location.get(&location_id).unwrap_or(&empty).figures(&starts),
        })
        .collect();
    MerchantSales { period, bucket, currency, total: total.figures(&starts), locations, other_currencies }
}

/// The period `query` asks for, on `today`: from the first sale when it gives no start.
pub fn sales_period(query: SalesQuery, today: NaiveDate, first_sale: Option<NaiveDate>) -> Period {
    let to = query.to.unwrap_or(today);
    let from = query.from.unwrap_or_else(|| first_sale.unwrap_or(to).min(to));
    Period::against_previous(from, to)
}

/// Money in and out over `period` against the period before: the cards' purchases and refunds,
/// and the merchant's sales (less refunds), in the currency most of them are in.
pub fn money_flow(cards: &[CardTransaction], sales: &[MerchantTransaction], period: Period) -> MoneyFlow {
    // The currency of the most rows across both.
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    let days =
        cards.iter().map(|row| (row.day(), row.currency())).chain(sales.iter().map(|row| (row.day(), row.currency())));
    for (day, currency) in days {
        if period.current(day) || period.previous(day) {
            *counts.entry(currency.to_owned()).or_default() += 1;
        }
    }
    let currency = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map_or_else(|| "USD".to_owned(), |(currency, _)| currency.clone());
    let mut spending = (0i64, 0i64);
    let mut refunds = (0i64, 0i64);
    let mut sold = (0i64, 0i64);
    let add = |sum: &mut (i64, i64), day: NaiveDate, amount: i64| {
        if period.current(day) {
            sum.0 += amount;
        } else if period.previous(day) {
            sum.1 += amount;
        }
    };
    for row in cards.iter().filter(|row| row.currency == currency) {
        let amount = cents(row.amount);
        if amount >= 0 {
            add(&mut spending, row.day(), amount);
        } else {
            add(&mut refunds, row.day(), -amount);
        }
    }
    for row in sales.iter().filter(|row| row.currency == currency) {
        add(&mut sold, row.day(), cents(row.amount));
    }
    let compared = |(current, previous): (i64, i64)| Compared { current: major(current), previous: major(previous) };
    let other_currencies = counts
        .into_iter()
        .filter(|(other, _)| *other != currency)
        .map(|(currency, count)| CurrencyCount { currency, count })
        .collect();
    MoneyFlow {
        currency,
        card_spending: compared(spending),
        card_refunds: compared(refunds),
        sales: compared(sold),
        money_in: compared((sold.0 + refunds.0, sold.1 + refunds.1)),
        money_out: compared(spending),
        other_currencies,
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};

    use super::*;
    use subscriber_protocol::{CardId, TransactionId};

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("a day")
    }

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(&format!("{text}T12:00:00Z")).expect("a time").with_timezone(&Utc)
    }

    fn sale(id: i64, location_id: LocationId, when: &str, amount: f64) -> MerchantTransaction {
        MerchantTransaction {
            transaction_id: TransactionId(id),
            amount,
            currency: "USD".to_owned(),
            created_at: at(when),
            pending: false,
            location_id,
            street: "Valencia St".to_owned(),
            street_no: "1022".to_owned(),
            city: "San Francisco".to_owned(),
            country: "USA".to_owned(),
            zip: "94110".to_owned(),
            last_four: 4242,
        }
    }

    fn purchase(id: i64, when: &str, amount: f64, currency: &str) -> CardTransaction {
        CardTransaction {
            transaction_id: TransactionId(id),
            created_at: at(when),
            pending: false,
            amount,
            currency: currency.to_owned(),
            merchant_name: "Blue Heron Coffee".to_owned(),
            street: "Valencia St".to_owned(),
            street_no: "1022".to_owned(),
            city: "San Francisco".to_owned(),
            country: "USA".to_owned(),
            zip: "94110".to_owned(),
            category: "5812 Eating Places, Restaurants".to_owned(),
            descriptor: "BLUE HERON COFFEE SAN".to_owned(),
            card_id: CardId(1),
            merchant_id: None,
            location_id: None,
            enrichment: Default::default(),
        }
    }

    #[test]
    fn a_period_is_compared_with_as_many_days_before_it() {
        let period = Period::against_previous(day("2026-03-10"), day("2026-03-16"));
        assert_eq!((period.previous_from, period.previous_to), (day("2026-03-03"), day("2026-03-09")));
        assert_eq!(period.days(), 7);
        let single = Period::against_previous(day("2026-03-01"), day("2026-03-01"));
        assert_eq!((single.previous_from, single.previous_to), (day("2026-02-28"), day("2026-02-28")));
        let backwards = Period::against_previous(day("2026-03-16"), day("2026-03-10"));
        assert_eq!(backwards.from, day("2026-03-10"));
    }

    #[test]
    fn this_month_is_compared_with_the_same_days_of_the_month_before() {
        let period = Period::month_to_date(day("2026-03-31"));
        assert_eq!((period.from, period.to), (day("2026-03-01"), day("2026-03-31")));
        assert_eq!((period.previous_from, period.previous_to), (day("2026-02-01"), day("2026-02-28")));
        let early = Period::month_to_date(day("2026-01-05"));
        assert_eq!((early.previous_from, early.previous_to), (day("2025-12-01"), day("2025-12-05")));
    }

    #[test]
    fn sales_per_location_count_average_refunds_and_change() {
        let rows = vec![
            sale(1, LocationId(10), "2026-03-16", 12.50),
            sale(2, LocationId(10), "2026-03-15", 7.50),
            sale(3, LocationId(10), "2026-03-15", -2.00),
            sale(4, LocationId(20), "2026-03-12", 100.00),
            // The week before.
            sale(5, LocationId(10), "2026-03-05", 10.00),
            // Before both: not counted.
            sale(6, LocationId(10), "2026-02-01", 999.00),
        ];
        let period = Period::against_previous(day("2026-03-10"), day("2026-03-16"));
        let sales = merchant_sales(&rows, period, &[LocationId(10), LocationId(20), LocationId(30)]);
        assert_eq!(sales.currency, "USD");
        assert_eq!(sales.bucket, Bucket::Day);
        let ids: Vec<LocationId> = sales.locations.iter().map(|location| location.location_id).collect();
        assert_eq!(
            ids,
            [LocationId(10), LocationId(20), LocationId(30)],
            "every location, in the order given, the idle one too"
        );
        let first = &sales.locations[0].figures;
        assert_eq!((first.sales, first.count, first.average_ticket), (20.0, 2, 10.0));
        assert_eq!((first.refunds, first.refund_count, first.net), (2.0, 1, 18.0));
        assert_eq!((first.previous_sales, first.change), (10.0, Some(1.0)));
        assert_eq!(first.trend.len(), 7);
        assert_eq!(first.trend[5].start, day("2026-03-15"));
        assert_eq!((first.trend[5].sales, first.trend[5].count, first.trend[5].refunds), (7.5, 1, 2.0));
        let idle = &sales.locations[2].figures;
        assert_eq!((idle.sales, idle.count, idle.average_ticket, idle.change), (0.0, 0, 0.0, None));
        assert_eq!(sales.total.sales, 120.0);
        assert_eq!(sales.total.change, Some(11.0));
        assert_eq!(sales.locations[1].figures.change, None, "nothing sold there before");
    }

    #[test]
    fn a_location_sold_at_but_not_listed_still_counts() {
        let rows = vec![sale(1, LocationId(99), "2026-03-16", 5.0)];
        let sales =
            merchant_sales(&rows, Period::against_previous(day("2026-03-16"), day("2026-03-16")), &[LocationId(10)]);
        let ids: Vec<LocationId> = sales.locations.iter().map(|location| location.location_id).collect();
        assert_eq!(ids, [LocationId(10), LocationId(99)]);
    }

    #[test]
    fn sums_are_exact_to_the_cent() {
        let rows: Vec<_> = (0..1000).map(|id| sale(id, LocationId(1), "2026-03-16", 0.10)).collect();
        let sales =
            merchant_sales(&rows, Period::against_previous(day("2026-03-16"), day("2026-03-16")), &[LocationId(1)]);
        assert_eq!(sales.total.sales, 100.0);
    }

    #[test]
    fn long_periods_chart_weeks_then_months() {
        let quarter = Period::against_previous(day("2026-01-01"), day("2026-03-31"));
        assert_eq!(quarter.bucket(), Bucket::Day);
        let year = Period::against_previous(day("2025-04-01"), day("2026-03-31"));
        assert_eq!(year.bucket(), Bucket::Week);
        let rows = vec![sale(1, LocationId(1), "2025-04-09", 3.0)];
        let sales = merchant_sales(&rows, year, &[LocationId(1)]);
        assert_eq!(sales.total.trend.len(), 53);
        assert_eq!(sales.total.trend[1].start, day("2025-04-08"));
        assert_eq!(sales.total.trend[1].sales, 3.0);
        let long = Period::against_previous(day("2023-04-15"), day("2026-03-31"));
        assert_eq!(long.bucket(), Bucket::Month);
        assert_eq!(merchant_sales(&[], long, &[]).total.trend[0].start, day("2023-04-01"));
    }

    #[test]
    fn all_time_starts_at_the_first_sale() {
        let period = sales_period(SalesQuery::default(), day("2026-03-16"), Some(day("2026-01-02")));
        assert_eq!((period.from, period.to), (day("2026-01-02"), day("2026-03-16")));
        let none = sales_period(SalesQuery::default(), day("2026-03-16"), None);
        assert_eq!((none.from, none.to), (day("2026-03-16"), day("2026-03-16")));
    }

    #[test]
    fn the_figures_use_the_currency_most_sales_are_in() {
        let mut euro = sale(9, LocationId(10), "2026-03-16", 50.0);
        euro.currency = "EUR".to_owned();
        let rows = vec![sale(1, LocationId(10), "2026-03-16", 5.0), sale(2, LocationId(10), "2026-03-16", 5.0), euro];
        let sales =
            merchant_sales(&rows, Period::against_previous(day("2026-03-16"), day("2026-03-16")), &[LocationId(10)]);
        assert_eq!(sales.total.sales, 10.0);
        assert_eq!(sales.other_currencies, [CurrencyCount { currency: "EUR".to_owned(), count: 1 }]);
    }

    #[test]
    fn money_in_and_out_this_month_against_last() {
        let period = Period::month_to_date(day("2026-03-16"));
        let cards = vec![
            purchase(1, "2026-03-02", 40.0, "USD"),
            purchase(2, "2026-03-03", -5.0, "USD"),
            purchase(3, "2026-02-10", 30.0, "USD"),
            // After the same day of last month: not compared.
            purchase(4, "2026-02-20", 500.0, "USD"),
            purchase(5, "2026-03-04", 9.0, "GBP"),
        ];
        let sales = vec![
            sale(1, LocationId(1), "2026-03-10", 100.0),
            sale(2, LocationId(1), "2026-03-11", -10.0),
            sale(3, LocationId(1), "2026-02-11", 20.0),
        ];
        let flow = money_flow(&cards, &sales, period);
        assert_eq!(flow.currency, "USD");
        assert_eq!(flow.money_out, Compared { current: 40.0, previous: 30.0 });
        assert_eq!(flow.card_refunds, Compared { current: 5.0, previous: 0.0 });
        assert_eq!(flow.sales, Compared { current: 90.0, previous: 20.0 });
        assert_eq!(flow.money_in, Compared { current: 95.0, previous: 20.0 });
        assert_eq!(flow.other_currencies, [CurrencyCount { currency: "GBP".to_owned(), count: 1 }]);
    }
}
