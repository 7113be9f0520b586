use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{Subscriber, TEST_PAN, TEST_PANS, TestServer, assert_error, send};
use crate::merchants::{create_location, enroll_merchant};

/// Makes a sandbox purchase; returns the response body.
pub fn purchase(server: &TestServer, subscriber: &Subscriber, body: &Value) -> Value {
    let (status, response) = send(subscriber.auth(server.post("/sandbox/transactions", body)));
    assert_eq!(status, 201, "sandbox purchase {body}: {response}");
    response
}

/// The card's newest transactions (a sandbox card also has a long history before them).
fn card_transactions(server: &TestServer, subscriber: &Subscriber, card_id: i64) -> Vec<Value> {
    card_transactions_since(server, subscriber, card_id, "2000-01-01")
}

fn card_transactions_since(server: &TestServer, subscriber: &Subscriber, card_id: i64, from: &str) -> Vec<Value> {
    let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions?from={from}"))));
    assert_eq!(status, 200, "{body}");
    body["transactions"].as_array().expect("transactions").clone()
}

fn merchant_transactions(server: &TestServer, subscriber: &Subscriber, merchant_id: i64, query: &str) -> Vec<Value> {
    let (status, body) = send(subscriber.auth(server.get(&format!("/merchant/{merchant_id}/transactions{query}"))));
    assert_eq!(status, 200, "{body}");
    body["transactions"].as_array().expect("transactions").clone()
}

/// Now as an RFC 3339 `from` bound: what the test does from here on, not the card's history.
pub fn from_now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn find(transactions: &[Value], transaction_id: &Value) -> Option<Value> {
    transactions.iter().find(|transaction| &transaction["transactionId"] == transaction_id).cloned()
}

#[test]
fn a_sandbox_purchase_is_seen_by_the_card_and_by_the_merchant() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let merchant_id = enroll_merchant(&server, &subscriber, "Mission Books");
    let location_id = create_location(&server, &subscriber, "Valencia St");

    let created =
        purchase(&server, &subscriber, &json!({"cardId": card_id, "locationId": location_id, "amount": 12.34}));
    assert_eq!(created["error"], Value::Null);
    assert_eq!(created["message"], "Transaction created");
    assert_eq!(created["cardId"].as_i64(), Some(card_id));
    assert_eq!(created["lastFour"], 4242);
    let transaction_id = created["transactionId"].clone();
    assert!(transaction_id.as_i64().is_some_and(|id| id > 0), "{created}");
    assert_eq!(created["transaction"]["transactionId"], transaction_id);

    let on_card = find(&card_transactions(&server, &subscriber, card_id), &transaction_id).expect("on the card's list");
    assert_eq!(on_card["pending"], true);
    assert_eq!(on_card["amount"], 12.34);
    assert_eq!(on_card["currency"], "USD");
    assert_eq!(on_card["merchantName"], "Mission Books");
    assert_eq!(on_card["street"], "Valencia St");
    assert_eq!(on_card["streetNo"], "600");
    assert_eq!(on_card["city"], "San Francisco");
    assert_eq!(on_card["country"], "USA");
    assert_eq!(on_card["zip"], "94110");
    assert_eq!(on_card["category"], "5812 Eating Places, Restaurants");
    assert_eq!(on_card["merchantId"].as_i64(), Some(merchant_id));
    assert_eq!(on_card["locationId"].as_i64(), Some(location_id));
    assert!(on_card["descriptor"].as_str().is_some_and(|descriptor| descriptor.starts_with("MISSION BOOKS")));
    assert!(chrono::DateTime::parse_from_rfc3339(on_card["createdAt"].as_str().expect("createdAt")).is_ok());

    let at_merchant = find(&merchant_transactions(&server, &subscriber, merchant_id, ""), &transaction_id)
        .expect("on the merchant's list");
    assert_eq!(at_merchant["lastFour"], 4242, "the card's last four, as an integer");
    assert_eq!(at_merchant["amount"], 12.34);
    assert_eq!(at_merchant["currency"], "USD");
    assert_eq!(at_merchant["pending"], true);
    assert_eq!(at_merchant["locationId"].as_i64(), Some(location_id));
    assert_eq!(at_merchant["street"], "Valencia St");
    assert_eq!(at_merchant["streetNo"], "600");
    assert_eq!(at_merchant["city"], "San Francisco");
    assert_eq!(at_merchant["country"], "USA");
    assert_eq!(at_merchant["zip"], "94110");
    assert_eq!(at_merchant["createdAt"], on_card["createdAt"]);
}

#[test]
fn a_pending_purchase_settles_on_request_for_its_owners_only() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let stranger = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let merchant_id = enroll_merchant(&server, &subscriber, "Mission Books");
    let location_id = create_location(&server, &subscriber, "Valencia St");
    let created = purchase(&server, &subscriber, &json!({"cardId": card_id, "locationId": location_id}));
    let transaction_id = created["transactionId"].clone();
    // Read once, so the page kept in memory must give way to the settlement.
    let before = find(&card_transactions(&server, &subscriber, card_id), &transaction_id).expect("listed");
    assert_eq!(before["pending"], true);

    let settle = |who: &Subscriber, id: &str| {
        send(who.auth(server.post(&format!("/sandbox/transactions/{id}/settle"), &json!({}))))
    };
    let (status, body) = settle(&stranger, &transaction_id.to_string());
    assert_error(status, &body, 404, "not_found");
    let (status, body) = settle(&subscriber, "not-a-number");
    assert_error(status, &body, 404, "not_found");
    let (status, body) = settle(&subscriber, "999999");
    assert_error(status, &body, 404, "not_found");
    assert_eq!(
        find(&card_transactions(&server, &subscriber, card_id), &transaction_id).expect("listed")["pending"],
        true,
        "nothing settled by the refusals"
    );

    let (status, settled) = settle(&subscriber, &transaction_id.to_string());
    assert_eq!(status, 200, "{settled}");
    assert_eq!(settled["message"], "Transaction settled");
    assert_eq!((&settled["transactionId"], &settled["transaction"]["pending"]), (&transaction_id, &json!(false)));
    let on_card = find(&card_transactions(&server, &subscriber, card_id), &transaction_id).expect("listed");
    assert_eq!(on_card["pending"], false, "the card's list shows it settled at once");
    let at_merchant =
        find(&merchant_transactions(&server, &subscriber, merchant_id, ""), &transaction_id).expect("listed");
    assert_eq!(at_merchant["pending"], false);
    let (status, again) = settle(&subscriber, &transaction_id.to_string());
    assert_eq!((status, &again["transaction"]), (200, &settled["transaction"]), "a retry changes nothing");

    let live = TestServer::spawn_with(&["--environment", "expansion"]);
    let live_subscriber = live.subscriber();
    let (status, body) = send(live_subscriber.auth(live.post("/sandbox/transactions/1/settle", &json!({}))));
    assert_error(status, &body, 404, "not_found");
}

#[test]
fn a_card_cannot_pay_at_another_subscribers_location_and_each_sees_only_their_side() {
    let server = TestServer::spawn();
    let shopper = server.subscriber();
    let card_id = server.enroll_card(&shopper, "5555555555554444");
    let shopkeeper = server.subscriber();
    let merchant_id = enroll_merchant(&server, &shopkeeper, "Corner Store");
    let location_id = create_location(&server, &shopkeeper, "Corner St");
    let own = purchase(&server, &shopkeeper, &json!({"locationId": location_id, "amount": 5}));
    let before = merchant_transactions(&server, &shopkeeper, merchant_id, "");
    assert!(find(&before, &own["transactionId"]).is_some());

    // Live-environment rule: only the caller's own location (or a directory merchant's).
    let since = from_now();
    let (status, body) = send(shopper.auth(server.post(
        "/sandbox/transactions",
        &json!({"cardId": card_id, "locationId": location_id, "amount": 5, "merchantName": "Not Yours"}),
    )));
    assert_error(status, &body, 404, "not_found");
    assert_eq!(merchant_transactions(&server, &shopkeeper, merchant_id, ""), before, "nothing written");
    assert_eq!(card_transactions_since(&server, &shopper, card_id, &since), Vec::<Value>::new());

    let (status, body) = send(shopper.auth(server.get(&format!("/merchant/{merchant_id}/transactions"))));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = send(shopkeeper.auth(server.get(&format!("/card/{card_id}/transactions"))));
    assert_error(status, &body, 404, "not_found");
    // The shopkeeper cannot pay with the shopper's card.
    let (status, body) = send(shopkeeper.auth(server.post("/sandbox/transactions", &json!({"cardId": card_id}))));
    assert_error(status, &body, 404, "not_found");
}

#[test]
fn every_field_of_a_sandbox_purchase_is_optional() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    // An empty object, and no body at all.
    let first = purchase(&server, &subscriber, &json!({}));
    let (status, second) = send(subscriber.auth(server.http.post(server.url("/sandbox/transactions"))));
    assert_eq!(status, 201, "no body: {second}");
    for created in [&first, &second] {
        assert_eq!(created["cardId"].as_i64(), Some(card_id), "the caller's card pays");
        let amount = created["transaction"]["amount"].as_f64().expect("amount");
        assert!(amount > 0.0, "{created}");
        assert!(!created["transaction"]["merchantName"].as_str().unwrap_or_default().is_empty());
        assert!(find(&card_transactions(&server, &subscriber, card_id), &created["transactionId"]).is_some());
    }

    let named = purchase(&server, &subscriber, &json!({"merchantName": "Joe's Pizza", "amount": -3.5}));
    let on_card = find(&card_transactions(&server, &subscriber, card_id), &named["transactionId"]).expect("listed");
    assert_eq!(on_card["merchantName"], "Joe's Pizza");
    assert_eq!(on_card["amount"], -3.5, "a negative amount is a refund");
}

#[test]
fn without_a_card_the_purchase_happens_at_the_callers_own_location() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/sandbox/transactions", &json!({}))));
    assert_error(status, &body, 409, "conflict");

    let merchant_id = enroll_merchant(&server, &subscriber, "Solo Shop");
    let location_id = create_location(&server, &subscriber, "Solo St");
    let created = purchase(&server, &subscriber, &json!({"amount": 7.5}));
    assert_eq!(created["cardId"], Value::Null, "a card of the synthetic population: {created}");
    let last_four = created["lastFour"].as_i64().expect("lastFour");
    assert!((0..=9999).contains(&last_four));
    let at_merchant =
        find(&merchant_transactions(&server, &subscriber, merchant_id, ""), &created["transactionId"]).expect("listed");
    assert_eq!(at_merchant["locationId"].as_i64(), Some(location_id));
    assert_eq!(at_merchant["lastFour"].as_i64(), Some(last_four));

    // Without a card of its own, the caller cannot make a stranger's shop busy.
    let stranger = server.subscriber();
    enroll_merchant(&server, &stranger, "Stranger Shop");
    let stranger_location = create_location(&server, &stranger, "Far St");
    let (status, body) =
        send(subscriber.auth(server.post("/sandbox/transactions", &json!({"locationId": stranger_location}))));
    assert_error(status, &body, 404, "not_found");
}

#[test]
fn invalid_sandbox_purchases_are_rejected_and_create_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let since = from_now();
    let cases = [
        (json!({"amount": 0}), "amount"),
        (json!({"amount": 1.234}), "amount"),
        (json!({"amount": 2_000_000}), "amount"),
        (json!({"amount": "12.00"}), "amount"),
        (json!({"cardId": "one"}), "cardId"),
        (json!({"merchantName": "M".repeat(101)}), "merchantName"),
    ];
    for (body, field) in cases {
        let (status, response) = send(subscriber.auth(server.post("/sandbox/transactions", &body)));
        assert_error(status, &response, 400, "invalid_request");
        assert_eq!(response["details"][0]["field"], field, "{body}");
    }
    for body in [json!({"cardId": 999_999}), json!({"locationId": 999_999})] {
        let (status, response) = send(subscriber.auth(server.post("/sandbox/transactions", &body)));
        assert_error(status, &response, 404, "not_found");
    }
    assert_eq!(card_transactions_since(&server, &subscriber, card_id, &since), Vec::<Value>::new());
}

#[test]
fn the_merchant_list_filters_by_location_and_time_and_pages() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let merchant_id = enroll_merchant(&server, &subscriber, "Two Sites");
    let first_site = create_location(&server, &subscriber, "First St");
    let second_site = create_location(&server, &subscriber, "Second St");
    let mut created = Vec::new();
    for (location_id, amount) in [(first_site, 1.0), (second_site, 2.0), (first_site, 3.0)] {
        let body = json!({"cardId": card_id, "locationId": location_id, "amount": amount});
        created.push(purchase(&server, &subscriber, &body)["transactionId"].as_i64().expect("id"));
    }

    let all = merchant_transactions(&server, &subscriber, merchant_id, "");
    let ids = all.iter().map(|transaction| transaction["transactionId"].as_i64().expect("id")).collect::<Vec<_>>();
    assert_eq!(ids, [created[2], created[1], created[0]], "newest first");

    let at_first = merchant_transactions(&server, &subscriber, merchant_id, &format!("?locationId={first_site}"));
    assert_eq!(at_first.len(), 2);
    assert!(at_first.iter().all(|transaction| transaction["locationId"].as_i64() == Some(first_site)));

    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1)).format("%Y-%m-%d");
    let yesterday = (chrono::Utc::now() - chrono::Duration::days(1)).format("%Y-%m-%d");
    assert!(merchant_transactions(&server, &subscriber, merchant_id, &format!("?from={tomorrow}")).is_empty());
    assert!(merchant_transactions(&server, &subscriber, merchant_id, &format!("?to={yesterday}")).is_empty());
    assert_eq!(
        merchant_transactions(&server, &subscriber, merchant_id, &format!("?from={yesterday}&to={tomorrow}")).len(),
        3
    );

    let (status, page) = send(subscriber.auth(server.get(&format!("/merchant/{merchant_id}/transactions?limit=2"))));
    assert_eq!(status, 200);
    assert_eq!(page["transactions"].as_array().map(Vec::len), Some(2));
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let (status, page) =
        send(subscriber.auth(server.get(&format!("/merchant/{merchant_id}/transactions?limit=2&cursor={cursor}"))));
    assert_eq!(status, 200);
    assert_eq!(page["transactions"][0]["transactionId"].as_i64(), Some(created[0]));
    assert_eq!(page["transactions"].as_array().map(Vec::len), Some(1));
    assert_eq!(page["next_cursor"], Value::Null);
}

#[test]
fn a_retried_sandbox_purchase_with_the_same_idempotency_key_happens_once() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let since = from_now();
    let request = || {
        subscriber
            .auth(server.post("/sandbox/transactions", &json!({"cardId": card_id, "amount": 9.99})))
            .header("Idempotency-Key", "purchase-1")
    };
    let (status, first) = send(request());
    assert_eq!(status, 201, "{first}");
    let (status, second) = send(request());
    assert_eq!(status, 201, "{second}");
    assert_eq!(second["transactionId"], first["transactionId"]);
    let purchases = card_transactions_since(&server, &subscriber, card_id, &since);
    assert_eq!(purchases.len(), 1, "{purchases:?}");
    assert_eq!(purchases[0]["amount"], 9.99);
}

/// Polls `check` until it holds or `timeout` passes.
pub fn eventually(timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if check() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn pending_purchases_settle_after_the_configured_delay() {
    let server = TestServer::spawn_with(&["--settle-after-seconds", "1"]);
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let merchant_id = enroll_merchant(&server, &subscriber, "Settle Shop");
    let location_id = create_location(&server, &subscriber, "Settle St");
    let created = purchase(&server, &subscriber, &json!({"cardId": card_id, "locationId": location_id}));
    assert_eq!(created["transaction"]["pending"], true);
    let settled = eventually(Duration::from_secs(15), || {
        let on_card = find(&card_transactions(&server, &subscriber, card_id), &created["transactionId"]);
        let at_merchant =
            find(&merchant_transactions(&server, &subscriber, merchant_id, ""), &created["transactionId"]);
        on_card.is_some_and(|t| t["pending"] == false) && at_merchant.is_some_and(|t| t["pending"] == false)
    });
    assert!(settled, "the purchase settled on both sides");
}

#[test]
fn the_simulator_makes_purchases_by_enrolled_and_synthetic_cards() {
    let server = TestServer::spawn_with(&["--simulate-rate", "600"]);
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PANS[1]);
    let merchant_id = enroll_merchant(&server, &subscriber, "Busy Shop");
    create_location(&server, &subscriber, "Busy St");
    std::thread::sleep(Duration::from_secs(1));
    let since = from_now();
    let by_our_card = eventually(Duration::from_secs(30), || {
        !card_transactions_since(&server, &subscriber, card_id, &since).is_empty()
    });
    assert!(by_our_card, "the enrolled card made simulated purchases");
    let by_strangers = eventually(Duration::from_secs(30), || {
        merchant_transactions(&server, &subscriber, merchant_id, "")
            .iter()
            .any(|transaction| transaction["lastFour"] != 5556)
    });
    assert!(by_strangers, "cards of the synthetic population bought at the enrolled location");
}

/// Two instances on one database simulate `--simulate-rate` purchases a minute together, not
/// each: the one holding the simulator's lease makes them.
#[test]
fn two_instances_on_one_database_simulate_at_the_rate_once() {
    const PER_MINUTE: f64 = 1200.0;
    let first = TestServer::spawn_with(&["--simulate-rate", "1200"]);
    let second = first.another_instance(&["--simulate-rate", "1200"]);
    let subscriber = first.subscriber();
    let card_id = first.enroll_card(&subscriber, TEST_PANS[1]);
    let since = from_now();
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(4));
    let made = card_transactions_since(&second, &subscriber, card_id, &since).len() as f64;
    // The clock's second in `since` may count up to a second more.
    let seconds = started.elapsed().as_secs_f64() + 1.0;
    // Half the simulated purchases are by an enrolled card (the only one is this card).
    let one_instance = PER_MINUTE / 60.0 * seconds / 2.0;
    assert!(made >= 1.0, "purchases were simulated");
    assert!(
        made < one_instance * 1.5,
        "{made} purchases in {seconds:.1} s: about {one_instance:.0} expected from one simulator"
    );
}

#[test]
fn sandbox_helpers_do_not_exist_outside_the_sandbox() {
    let server = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Live Shop");
    create_location(&server, &subscriber, "Live St");
    for body in [json!({}), json!({"amount": 1})] {
        let (status, response) = send(subscriber.auth(server.post("/sandbox/transactions", &body)));
        assert_error(status, &response, 404, "not_found");
    }
}

fn transaction_pending(server: &TestServer, subscriber: &Subscriber, card_id: i64, transaction_id: &Value) -> bool {
    let transactions = card_transactions_since(server, subscriber, card_id, &from_now_minus(600));
    find(&transactions, transaction_id).expect("listed")["pending"].as_bool().expect("pending")
}

fn from_now_minus(seconds: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::seconds(seconds)).format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The sandbox clock moves one subscriber's time: its purchases settle, another's stay pending.
#[test]
fn the_sandbox_clock_settles_the_callers_purchases_and_no_one_elses() {
    let server = TestServer::spawn();
    let (mine, theirs) = (server.subscriber(), server.subscriber());
    let my_card = server.enroll_card(&mine, TEST_PAN);
    let their_card = server.enroll_card(&theirs, TEST_PANS[1]);
    let my_sale = purchase(&server, &mine, &json!({ "cardId": my_card, "amount": 5.0 }))["transactionId"].clone();
    let their_sale =
        purchase(&server, &theirs, &json!({ "cardId": their_card, "amount": 5.0 }))["transactionId"].clone();
    assert!(transaction_pending(&server, &mine, my_card, &my_sale));

    for bad in [
        json!({ "seconds": 0 }),
        json!({ "seconds": -60 }),
        json!({ "seconds": 31_536_001 }),
        json!({ "seconds": "1h" }),
        json!({}),
    ] {
        let (status, body) = send(mine.auth(server.post("/sandbox/clock/advance", &bad)));
        assert_error(status, &body, 400, "invalid_request");
    }
    assert!(transaction_pending(&server, &mine, my_card, &my_sale), "a refused advance changes nothing");

    let (status, body) = send(mine.auth(server.post("/sandbox/clock/advance", &json!({ "seconds": 300 }))));
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["seconds"].as_i64(), body["settled"].as_i64()), (Some(300), Some(1)), "{body}");
    assert!(!transaction_pending(&server, &mine, my_card, &my_sale), "settled by the caller's clock");
    assert!(transaction_pending(&server, &theirs, their_card, &their_sale), "another subscriber's clock stays");

    let live = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = live.subscriber();
    for path in ["/sandbox/clock/advance", "/sandbox/reset"] {
        let (status, body) = send(subscriber.auth(live.post(path, &json!({ "seconds": 60 }))));
        assert_error(status, &body, 404, "not_found");
    }
}

/// A reset deletes everything of the caller's but the account, and nothing of anyone else's.
#[test]
fn a_reset_deletes_the_callers_data_and_nothing_of_anyone_elses() {
    let server = TestServer::spawn();
    let (mine, theirs) = (server.subscriber(), server.subscriber());
    let my_card = server.enroll_card(&mine, TEST_PAN);
    let merchant_id = enroll_merchant(&server, &mine, "Reset Bakery");
    create_location(&server, &mine, "Reset Street");
    purchase(&server, &mine, &json!({ "cardId": my_card, "amount": 2.0 }));
    let their_card = server.enroll_card(&theirs, TEST_PAN);
    let (_, before) = send(theirs.auth(server.get(&format!("/card/{their_card}/transactions?limit=100"))));
    let descriptor = {
        let (_, merchant) = send(mine.auth(server.get("/merchant")));
        merchant["locations"][0]["descriptor"].as_str().map(str::to_owned)
    };

    let (status, body) = send(mine.auth(server.post("/sandbox/reset", &json!({}))));
    assert_eq!(status, 200, "{body}");
    let (_, cards) = send(mine.auth(server.get("/card")));
    assert_eq!(cards["cards"], json!([]), "{cards}");
    for path in [
        format!("/card/{my_card}"),
        format!("/card/{my_card}/transactions"),
        format!("/merchant/{merchant_id}/transactions"),
    ] {
        let (status, body) = send(mine.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
    }
    let (_, events) = send(mine.auth(server.get("/events")));
    assert_eq!(events["events"], json!([]), "{events}");
    if let Some(descriptor) = descriptor {
        let (_, found) =
            send(theirs.auth(server.get(&format!("/merchant/discover?merchid={descriptor}&matchType=exact"))));
        let names: Vec<&str> = found["result"]["merchants"]
            .as_array()
            .expect("merchants")
            .iter()
            .filter_map(|found| found["dbaName"].as_str())
            .collect();
        assert!(!names.contains(&"Reset Bakery"), "the reset location is no longer found: {names:?}");
    }

    // The other subscriber's card and history are as they were.
    let (_, after) = send(theirs.auth(server.get(&format!("/card/{their_card}/transactions?limit=100"))));
    assert_eq!(after, before);
    // The account stays: the same card can be enrolled again, as new.
    let card_again = server.enroll_card(&mine, TEST_PAN);
    let (status, body) = send(mine.auth(server.get(&format!("/card/{card_again}"))));
    assert_eq!(status, 200, "{body}");
    let (status, body) = send(mine.auth(server.get("/merchant")));
    assert_error(status, &body, 404, "not_found");
}
