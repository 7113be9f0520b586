//! What the sandbox banks hold for a linked account: a balance, the cards the bank issued,
//! and 90 days of transactions. Made from the sandbox seed and the account, so the same
//! account always shows the same data, and never stored.

use rand::seq::IndexedRandom;
use rand::{Rng, RngCore};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{AccountId, TransactionId};

use crate::simulation::identity::seeded;

pub const HISTORY_DAYS: i64 = 90;
const DAY: i64 = 86_400;

pub struct BankTransaction {
    pub id: TransactionId,
    pub created_at: UnixSeconds,
    pub pending: bool,
    /// Minor units; positive for money out (purchases, bills), negative for money in.
    pub amount_minor: i64,
    pub description: String,
}

pub struct Balance {
    pub available_minor: i64,
    pub current_minor: i64,
}

const MERCHANTS: &[(&str, i64, i64)] = &[
    ("Card purchase · Green Basket Grocers", 1_500, 14_000),
    ("Card purchase · Corner Coffee Co", 350, 1_200),
    ("Card purchase · Fuel Stop", 2_500, 7_500),
    ("Card purchase · Riverside Pharmacy", 600, 6_000),
    ("Card purchase · Hearth Pizza", 1_800, 5_500),
    ("Card purchase · Online Marketplace", 900, 18_000),
    ("Card purchase · City Transit", 250, 3_000),
    ("Card purchase · Cinema Lux", 1_200, 4_000),
];

pub fn balance(seed: u64, account_id: AccountId) -> Balance {
    let mut rng = seeded(seed, "bank-balance", &[account_id.get()]);
    let current_minor = rng.random_range(20_000..2_500_000);
    let held = rng.random_range(0..30_000).min(current_minor);
    Balance { available_minor: current_minor - held, current_minor }
}

/// The names the sandbox banks give a current account (its history is a current account's:
/// salary in, card purchases and bills out).
const ACCOUNT_NAMES: &[&str] = &["Everyday Checking", "Premier Checking", "Joint Checking", "Essential Checking"];

/// The account as its bank names it: a name and the last four digits of its number.
pub struct Naming {
    pub name: &'static str,
    pub mask: String,
}

pub fn naming(seed: u64, account_id: AccountId) -> Naming {
    let mut rng = seeded(seed, "bank-account-name", &[account_id.get()]);
    let name = ACCOUNT_NAMES.choose(&mut rng).copied().unwrap_or(ACCOUNT_NAMES[0]);
    Naming { name, mask: format!("{:04}", rng.random_range(0..10_000)) }
}

/// Last four digits of the cards the bank issued for the account.
pub fn cards(seed: u64, account_id: AccountId) -> Vec<u16> {
    let mut rng = seeded(seed, "bank-cards", &[account_id.get()]);
    let count = rng.random_range(1..=2);
    (0..count).map(|_| rng.random_range(1000..=9999)).collect()
}

/// The account's transactions from `HISTORY_DAYS` before `linked_at` up to `until` (the
/// link's time, or the last refresh), newest first. Ids are the account's id followed by a
/// running number; a later `until` adds the days after and changes none before.
pub fn transactions(
    seed: u64,
    account_id: AccountId,
    linked_at: UnixSeconds,
    until: UnixSeconds,
) -> Vec<BankTransaction> {
    let mut rng = seeded(seed, "bank-transactions", &[account_id.get()]);
    // Day arithmetic in plain seconds; each transaction's time typed again below.
    let (linked_at, until) = (linked_at.get(), until.get());
    let start = linked_at - HISTORY_DAYS * DAY;
    // At most three years on from the link.
    let days = ((until.max(linked_at) - start) / DAY + 1).min(HISTORY_DAYS + 3 * 366);
    let salary = rng.random_range(150_000..650_000);
    let rent = rng.random_range(80_000..260_000);
    let payday_offset = rng.random_range(0..14);
    let rent_day = rng.random_range(0..28);
    let mut items: Vec<(i64, i64, String)> = Vec::new();
    for day in 0..days {
        let midnight = start + day * DAY;
        let at = |rng: &mut dyn RngCore| midnight + i64::from(rng.next_u32() % 50_000) + 28_800;
        if (day + payday_offset) % 14 == 0 {
            items.push((at(&mut rng), -salary, "Payroll deposit · Employer".to_owned()));
        }
        if day % 30 == rent_day {
            items.push((at(&mut rng), rent, "Rent payment".to_owned()));
            items.push((at(&mut rng), rng.random_range(4_000..16_000), "Electricity and water".to_owned()));
        }
        for _ in 0..rng.random_range(0..=3) {
            if let Some((name, low, high)) = MERCHANTS.choose(&mut rng) {
                items.push((at(&mut rng), rng.random_range(*low..*high), (*name).to_owned()));
            }
        }
    }
    items.retain(|(created_at, _, _)| *created_at < until);
    items.sort_by_key(|(created_at, _, _)| *created_at);
    let pending_after = until - 2 * DAY;
    let mut transactions: Vec<BankTransaction> = items
        .into_iter()
        .enumerate()
        .map(|(index, (created_at, amount_minor, description))| BankTransaction {
            id: TransactionId(account_id.get() * 1_000_000 + i64::try_from(index).unwrap_or(0) + 1),
            created_at: UnixSeconds(created_at),
            pending: created_at >= pending_after,
            amount_minor,
            description,
        })
        .collect();
    transactions.reverse();
    transactions
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINKED: UnixSeconds = UnixSeconds(1_800_000_000);

    #[test]
    fn a_refresh_adds_the_days_after_and_changes_none_before() {
        let linked = transactions(3, AccountId(12), LINKED, LINKED);
        let refreshed = transactions(3, AccountId(12), LINKED, UnixSeconds(LINKED.get() + 20 * DAY));
        assert!(refreshed.len() > linked.len() + 10, "{} then {}", linked.len(), refreshed.len());
        let settled = |list: &[BankTransaction]| {
            list.iter()
                .filter(|t| t.created_at < UnixSeconds(LINKED.get() - 2 * DAY))
                .map(|t| (t.id, t.created_at, t.amount_minor))
                .collect::<Vec<_>>()
        };
        assert_eq!(settled(&linked), settled(&refreshed));
    }

    #[test]
    fn the_same_account_shows_the_same_data() {
        let first = transactions(3, AccountId(12), LINKED, LINKED);
        let again = transactions(3, AccountId(12), LINKED, LINKED);
        assert!(first.len() > 60, "{} transactions", first.len());
        assert_eq!(
            first.iter().map(|t| (t.id, t.created_at, t.amount_minor)).collect::<Vec<_>>(),
            again.iter().map(|t| (t.id, t.created_at, t.amount_minor)).collect::<Vec<_>>()
        );
        assert!(first.windows(2).all(|pair| pair[0].created_at >= pair[1].created_at), "newest first");
        assert!(
            first
                .iter()
                .all(|t| t.created_at < LINKED && t.created_at >= UnixSeconds(LINKED.get() - HISTORY_DAYS * DAY))
        );
        assert!(first.iter().any(|t| t.amount_minor < 0), "pay comes in");
        let balance = balance(3, AccountId(12));
        assert!(balance.available_minor <= balance.current_minor);
        assert_eq!(cards(3, AccountId(12)), cards(3, AccountId(12)));
        let naming = naming(3, AccountId(12));
        assert_eq!(
            (naming.name, &naming.mask),
            (super::naming(3, AccountId(12)).name, &super::naming(3, AccountId(12)).mask)
        );
        assert!(naming.mask.len() == 4 && naming.mask.bytes().all(|b| b.is_ascii_digit()), "{}", naming.mask);
    }
}
