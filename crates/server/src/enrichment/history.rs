//! What a card's or bank account's history says of each of its transactions: the recurring
//! stream it belongs to and, for a refund, the purchase it gives back. Found once per read of
//! the history (the card's kept rows, an account's generated 90 days) and looked up for each
//! transaction shown, including ones newer than the history read (an event, a stream).

use std::collections::HashMap;

use chrono::{Duration, NaiveDate};
use subscriber_protocol::{Confidence, Direction, RecurringStream, StreamStatus, TransactionEnrichment, TransactionId};

use super::recurring::{self, Payment};

/// A transaction as the history reads it.
pub struct Item<'a> {
    pub id: TransactionId,
    pub date: NaiveDate,
    /// Minor units; positive for money out (a purchase, a bill), negative for money in (a
    /// refund on a card, pay on an account).
    pub amount_minor: i64,
    pub currency: &'a str,
    /// What the statement prints.
    pub description: &'a str,
    pub enrichment: &'a TransactionEnrichment,
}

/// Whether negative amounts are refunds of purchases (a card) or money in (an account).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Card,
    Account,
}

/// How far back a refund's purchase is looked for.
const REFUND_DAYS: i64 = 120;

/// A purchase a refund may give back: `(date, id, amount_minor)`.
type Purchase = (NaiveDate, TransactionId, i64);

/// A history's streams and what it says of each transaction.
#[derive(Debug, Default)]
pub struct History {
    /// Newest last payment first.
    pub streams: Vec<RecurringStream>,
    facts: HashMap<TransactionId, (Option<usize>, Option<TransactionId>)>,
    /// Streams by counterparty key and direction, for transactions newer than the history.
    by_key: HashMap<(String, Direction, String), Vec<usize>>,
    /// Purchases by counterparty key and currency, oldest first: `(date, id, amount_minor)`.
    purchases: HashMap<(String, String), Vec<Purchase>>,
}

/// The counterparty a transaction is grouped by: its brand when the match is at least
/// `medium`, else the letters of what the statement prints.
fn key_of(item: &Item<'_>) -> String {
    match &item.enrichment.counterparty {
        Some(found) if found.confidence >= Confidence::Medium => found.brand_id.clone(),
        _ => recurring::name_key(item.description),
    }
}

fn direction_of(kind: Kind, amount_minor: i64) -> Option<Direction> {
    match (kind, amount_minor) {
        (_, 1..) => Some(Direction::Outflow),
        (Kind::Account, ..=-1) => Some(Direction::Inflow),
        _ => None,
    }
}

impl History {
    /// The history of `owner` (`card 12`, `account 7`) as of `today`.
    pub fn of(owner: &str, kind: Kind, items: &[Item<'_>], today: NaiveDate) -> Self {
        let payments: Vec<Payment> = items
            .iter()
            .filter_map(|item| {
                let direction = direction_of(kind, item.amount_minor)?;
                let counterparty = item.enrichment.counterparty.as_ref();
                let sure = counterparty.filter(|found| found.confidence >= Confidence::Medium);
                Some(Payment {
                    transaction_id: item.id,
                    date: item.date,
                    amount: item.amount_minor.unsigned_abs() as f64 / 100.0,
                    direction,
                    currency: item.currency.to_owned(),
                    brand_id: sure.map(|found| found.brand_id.clone()),
                    name: sure.map_or_else(|| item.description.to_owned(), |found| found.name.clone()),
                    description: item.description.to_owned(),
                    category: item.enrichment.personal_finance_category,
                })
            })
            .collect();
        let streams = recurring::streams(owner, &payments, today);
        let mut history = Self { streams, ..Self::default() };
        let keys: HashMap<TransactionId, String> = items.iter().map(|item| (item.id, key_of(item))).collect();
        for (index, stream) in history.streams.iter().enumerate() {
            for id in &stream.transaction_ids {
                history.facts.entry(*id).or_default().0 = Some(index);
            }
            if let Some(key) = stream.transaction_ids.last().and_then(|id| keys.get(id)) {
                history.by_key.entry((key.clone(), stream.direction, stream.currency.clone())).or_default().push(index);
            }
        }
        let mut ordered: Vec<&Item<'_>> = items.iter().collect();
        ordered.sort_by_key(|item| (item.date, item.id));
        for item in ordered {
            let key = (keys.get(&item.id).cloned().unwrap_or_default(), item.currency.to_owned());
            if item.amount_minor > 0 {
                history.purchases.entry(key).or_default().push((item.date, item.id, item.amount_minor));
            } else if kind == Kind::Card
                && item.amount_minor < 0
                && let Some(purchase) =
                    item.enrichment.refund_of.or_else(|| history.refunded(&key, item.date, -item.amount_minor))
            {
                history.facts.entry(item.id).or_default().1 = Some(purchase);
            }
        }
        history
    }

    /// The purchase a refund of `amount_minor` on `date` gives back: the latest one before it
    /// with the same counterparty and currency for that amount, else for more (a part refunded).
    fn refunded(&self, key: &(String, String), date: NaiveDate, amount_minor: i64) -> Option<TransactionId> {
        let earlier: Vec<&Purchase> = self
            .purchases
            .get(key)?
            .iter()
            .filter(|(bought, _, _)| *bought <= date && date - *bought <= Duration::days(REFUND_DAYS))
            .collect();
        let exact = earlier.iter().rev().find(|(_, _, amount)| *amount == amount_minor);
        exact.or_else(|| earlier.iter().rev().find(|(_, _, amount)| *amount > amount_minor)).map(|(_, id, _)| *id)
    }

    /// `item`'s enrichment with the stream and refunded purchase the history knows of it; a
    /// transaction newer than the history joins the live stream of its counterparty whose
    /// amounts it fits.
    pub fn placed(&self, kind: Kind, item: &Item<'_>) -> TransactionEnrichment {
        let mut enrichment = item.enrichment.clone();
        self.place(kind, item, &mut enrichment);
        enrichment
    }

    fn place(&self, kind: Kind, item: &Item<'_>, enrichment: &mut TransactionEnrichment) {
        if let Some((stream, refund_of)) = self.facts.get(&item.id) {
            enrichment.recurring_stream_id = stream.map(|index| self.streams[index].stream_id.clone());
            enrichment.refund_of = *refund_of;
            return;
        }
        let key = key_of(item);
        if let Some(direction) = direction_of(kind, item.amount_minor) {
            let amount = item.amount_minor.unsigned_abs() as f64 / 100.0;
            enrichment.recurring_stream_id = self
                .by_key
                .get(&(key.clone(), direction, item.currency.to_owned()))
                .into_iter()
                .flatten()
                .map(|index| &self.streams[*index])
                .find(|stream| {
                    stream.status != StreamStatus::Tombstoned
                        && (amount - stream.average_amount).abs() <= 0.3 * stream.average_amount
                        && item.date > stream.last_date
                })
                .map(|stream| stream.stream_id.clone());
        }
        if kind == Kind::Card && item.amount_minor < 0 && enrichment.refund_of.is_none() {
            enrichment.refund_of = self.refunded(&(key, item.currency.to_owned()), item.date, -item.amount_minor);
        }
    }

    /// The streams with their status as of `today` (a stream whose predicted date passed by
    /// more than a period since the history was read is tombstoned now).
    pub fn streams_on(&self, today: NaiveDate) -> Vec<RecurringStream> {
        self.streams
            .iter()
            .map(|stream| {
                let mut stream = stream.clone();
                stream.status = recurring::status_on(&stream, today);
                stream
            })
            .collect()
    }
}
