//! The sandbox history of a newly enrolled card: 36 months of a person's spending at
//! directory merchants, newest first, the last days pending, descriptors discovery resolves.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Months, Utc};
use serde_json::Value;

use crate::discovery::discover;
use crate::helpers::{TEST_PAN, TestServer, send};

fn all_transactions(server: &TestServer, subscriber: &crate::helpers::Subscriber, card_id: i64) -> Vec<Value> {
    let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions?limit=5000"))));
    assert_eq!(status, 200, "{body}");
    assert!(body["next_cursor"].is_null(), "one page of 5000 holds the whole history");
    body["transactions"].as_array().expect("transactions").clone()
}

fn created_at(transaction: &Value) -> DateTime<Utc> {
    let text = transaction["createdAt"].as_str().expect("createdAt");
    DateTime::parse_from_rfc3339(text).expect("RFC 3339").with_timezone(&Utc)
}

#[test]
fn a_new_card_gets_36_months_of_history_newest_first() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let now = Utc::now();
    let transactions = all_transactions(&server, &subscriber, card_id);
    assert!((1000..=3000).contains(&transactions.len()), "{} transactions", transactions.len());
    let times: Vec<DateTime<Utc>> = transactions.iter().map(created_at).collect();
    assert!(times.windows(2).all(|pair| pair[0] >= pair[1]), "newest first");
    let oldest = *times.last().expect("oldest");
    let newest = times[0];
    let limit = now.checked_sub_months(Months::new(36)).expect("36 months ago");
    assert!(oldest >= limit, "never older than 36 months: {oldest}");
    assert!(oldest < limit + chrono::Duration::days(31), "spans 36 months: {oldest}");
    assert!(newest <= now && newest > now - chrono::Duration::days(3), "{newest}");
    for transaction in &transactions {
        assert!(transaction["merchantName"].as_str().is_some_and(|name| !name.is_empty()), "{transaction}");
        assert!(transaction["descriptor"].as_str().is_some_and(|text| !text.is_empty() && text.len() <= 22));
        assert!(transaction["amount"].is_number() && transaction["currency"].as_str().map(str::len) == Some(3));
        assert!(transaction["country"].as_str().map(str::len) == Some(3), "{transaction}");
    }
}

#[test]
fn the_last_days_are_pending_and_refunds_happen() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let now = Utc::now();
    let transactions = all_transactions(&server, &subscriber, card_id);
    let pending: Vec<&Value> = transactions.iter().filter(|transaction| transaction["pending"] == true).collect();
    assert!(!pending.is_empty(), "a few pending at the top");
    assert!(transactions[0]["pending"] == true, "the newest is pending");
    let first_settled =
        transactions.iter().position(|transaction| transaction["pending"] == false).expect("settled ones");
    assert!(transactions[..first_settled].iter().all(|transaction| transaction["pending"] == true), "pending on top");
    assert!(pending.iter().all(|transaction| created_at(transaction) > now - chrono::Duration::days(4)));
    assert!(
        transactions[first_settled..]
            .iter()
            .all(|transaction| created_at(transaction) < now - chrono::Duration::days(1)),
        "only the last two or three days are pending"
    );
    let refunds =
        transactions.iter().filter(|transaction| transaction["amount"].as_f64().is_some_and(|amount| amount < 0.0));
    assert!(refunds.count() >= 2, "refunds now and then");
    let (status, body) =
        send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions?pending=true&limit=5000"))));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["transactions"].as_array().map(Vec::len), Some(pending.len()));
}

#[test]
fn categories_and_amounts_fit_a_person() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let transactions = all_transactions(&server, &subscriber, card_id);
    let mut by_code: HashMap<String, Vec<f64>> = HashMap::new();
    for transaction in &transactions {
        let category = transaction["category"].as_str().expect("category");
        let amount = transaction["amount"].as_f64().expect("amount");
        by_code.entry(category[..4].to_owned()).or_default().push(amount);
    }
    let purchases = |code: &str| by_code.get(code).map_or(0, |amounts| amounts.iter().filter(|a| **a > 0.0).count());
    assert!((34..=37).contains(&purchases("6513")), "rent monthly: {}", purchases("6513"));
    assert!(purchases("5411") >= 150, "groceries weekly: {}", purchases("5411"));
    assert!(purchases("5814") >= 150, "coffee and quick lunches: {}", purchases("5814"));
    assert!(purchases("5812") >= 60, "restaurants: {}", purchases("5812"));
    let coffee_or_lunch_max = by_code["5814"].iter().copied().fold(0.0, f64::max);
    assert!(coffee_or_lunch_max < 40.0, "no 5814 purchase is a feast: {coffee_or_lunch_max}");
    let rent_min = by_code["6513"].iter().copied().fold(f64::MAX, f64::min);
    assert!(rent_min >= 500.0, "rent is rent: {rent_min}");
    assert!(transactions.iter().all(|transaction| transaction["category"].as_str().is_some_and(|c| c.len() > 5)));
}

#[test]
fn the_same_card_on_the_same_seed_gets_the_same_merchants() {
    let server = TestServer::spawn();
    let first = server.subscriber();
    let second = server.subscriber();
    let one = all_transactions(&server, &first, server.enroll_card(&first, TEST_PAN));
    // Always in another second: what happens when (trips, one-off shops) is drawn anew for each
    // enrollment; who the person is (the shops they keep going back to) is the card's own.
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    let other = all_transactions(&server, &second, server.enroll_card(&second, TEST_PAN));
    // The merchants the card goes back to: three visits or more in the 36 months.
    let regulars = |transactions: &[Value]| {
        let mut visits: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        for descriptor in transactions.iter().filter_map(|transaction| transaction["descriptor"].as_str()) {
            *visits.entry(descriptor.to_owned()).or_default() += 1;
        }
        visits.into_iter().filter(|(_, count)| *count >= 3).map(|(descriptor, _)| descriptor).collect::<BTreeSet<_>>()
    };
    let (a, b) = (regulars(&one), regulars(&other));
    let shared = a.intersection(&b).count();
    println!("regular shops: {shared} shared of {} and {}", a.len(), b.len());
    assert!(a.len() >= 10 && b.len() >= 10, "a person has regular shops: {} and {}", a.len(), b.len());
    assert!(shared * 10 >= a.len().min(b.len()) * 8, "{shared} of {} and {}: {a:?} {b:?}", a.len(), b.len());
}

#[test]
fn every_descriptor_resolves_to_its_merchant() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let transactions = all_transactions(&server, &subscriber, card_id);
    let mut seen = BTreeSet::new();
    for transaction in &transactions {
        let descriptor = transaction["descriptor"].as_str().expect("descriptor");
        if !seen.insert(descriptor.to_owned()) {
            continue;
        }
        let (status, body) = discover(&server, &subscriber, "/merchant/discover", &[("merchid", descriptor)]);
        assert_eq!(status, 200, "{body}");
        let first = &body["result"]["merchants"][0];
        assert_eq!(first["dbaName"], transaction["merchantName"], "{descriptor}: {body}");
        assert_eq!(first["ID"], descriptor);
        assert_eq!(first["city"], transaction["city"]);
    }
    assert!(seen.len() >= 20, "{} merchants", seen.len());
}
