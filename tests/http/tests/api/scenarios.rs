//! Sandbox scenarios (contract: "Sandbox scenarios, snapshots, request history"): a tip at
//! settlement, refunds naming their purchase, a backdated purchase. Each flows like real
//! activity: both sides' lists, sync (`modified` for a tip, `added` for the rest), the event
//! log and a webhook receiver; every bad input is a 400 or 409 that changes nothing.

use serde_json::{Value, json};
use subscriber_testkit::WebhookReceiver;

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TEST_PANS, TestServer, assert_error, send};
use crate::lifecycle::count;
use crate::realtime::{Shop, buy, shop};
use crate::webhooks::{add_receiver, next_accepted};

fn post(server: &TestServer, subscriber: &Subscriber, path: &str, body: &Value) -> (u16, Value) {
    send(subscriber.auth(server.post(path, body)))
}

/// The card's changes since `cursor` (none: everything), and the next cursor.
fn sync(server: &TestServer, shop: &Shop, cursor: &str) -> Value {
    let path = format!("/card/{}/transactions/sync?count=500&cursor={cursor}", shop.card_id);
    let (status, body) = send(shop.subscriber.auth(server.get(&path)));
    assert_eq!(status, 200, "{body}");
    body
}

/// A cursor past everything the card has now.
fn cursor_now(server: &TestServer, shop: &Shop) -> String {
    let mut cursor = String::new();
    loop {
        let body = sync(server, shop, &cursor);
        cursor = body["next_cursor"].as_str().expect("next_cursor").to_owned();
        if body["has_more"] != true {
            return cursor;
        }
    }
}

fn ids(list: &Value) -> Vec<i64> {
    let mut ids: Vec<i64> =
        list.as_array().expect("a list").iter().filter_map(|row| row["transactionId"].as_i64()).collect();
    ids.sort_unstable();
    ids
}

/// The transaction `id` in a list the owner reads at `path` (from today).
fn listed(server: &TestServer, subscriber: &Subscriber, path: &str, id: i64) -> Option<Value> {
    let (status, body) = send(subscriber.auth(server.get(path)));
    assert_eq!(status, 200, "{body}");
    body["transactions"].as_array().expect("transactions").iter().find(|row| row["transactionId"] == id).cloned()
}

fn settle(server: &TestServer, shop: &Shop, id: i64, body: &Value) -> (u16, Value) {
    post(server, &shop.subscriber, &format!("/sandbox/transactions/{id}/settle"), body)
}

fn refund(server: &TestServer, subscriber: &Subscriber, id: i64, body: &Value) -> (u16, Value) {
    post(server, subscriber, &format!("/sandbox/transactions/{id}/refund"), body)
}

#[test]
fn a_tip_at_settlement_changes_the_amount_everywhere_and_sync_reports_it_modified() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let shop = shop(&server);
    let receiver = WebhookReceiver::start();
    add_receiver(&server, &shop.subscriber, &receiver, &["transaction.updated"]);
    let bill = buy(&server, &shop, 40.0);
    let cursor = cursor_now(&server, &shop);

    // Refused, and nothing changed: still pending at its amount.
    for (body, field) in
        [(json!({"amount": 0}), "amount"), (json!({"amount": -48.0}), "amount"), (json!({"amount": 48.001}), "amount")]
    {
        let (status, answer) = settle(&server, &shop, bill, &body);
        assert_error(status, &answer, 400, "invalid_request");
        assert!(answer.to_string().contains(field), "{answer}");
    }
    let (status, answer) = settle(&server, &shop, bill, &json!({"amount": "48"}));
    assert_eq!(status, 400, "{answer}");
    let card_list = format!("/card/{}/transactions?pending=true", shop.card_id);
    let row = listed(&server, &shop.subscriber, &card_list, bill).expect("still pending");
    assert_eq!(row["amount"], 40.0);

    let (status, settled) = settle(&server, &shop, bill, &json!({"amount": 48.0}));
    assert_eq!(status, 200, "{settled}");
    assert_eq!((&settled["transaction"]["amount"], &settled["transaction"]["pending"]), (&json!(48.0), &json!(false)));

    let merchant_list = format!("/merchant/{}/transactions?pending=false", shop.merchant_id);
    let at_merchant = listed(&server, &shop.subscriber, &merchant_list, bill).expect("the merchant's list");
    assert_eq!(at_merchant["amount"], 48.0);
    let on_card = format!("/card/{}/transactions?pending=false", shop.card_id);
    assert_eq!(listed(&server, &shop.subscriber, &on_card, bill).expect("the card's list")["amount"], 48.0);
    let changes = sync(&server, &shop, &cursor);
    assert_eq!(ids(&changes["modified"]), [bill], "{changes}");
    assert!(ids(&changes["added"]).is_empty(), "{changes}");
    assert_eq!(changes["modified"][0]["amount"], 48.0);

    // The event, in the log and at the receiver, with the settled amount.
    let (status, events) = send(shop.subscriber.auth(server.get("/events?type=transaction.updated&limit=10")));
    assert_eq!(status, 200, "{events}");
    let event = &events["events"][0];
    assert_eq!(event["data"]["transactionId"], bill, "{event}");
    assert_eq!(event["data"]["transaction"]["amount"], 48.0, "{event}");
    let delivered: Value = serde_json::from_slice(&next_accepted(&receiver).body).expect("JSON");
    assert_eq!(
        (&delivered["type"], &delivered["data"]["transactionId"]),
        (&json!("transaction.updated"), &json!(bill))
    );

    // Settled: the same amount again is the same answer; another is a conflict.
    let (status, again) = settle(&server, &shop, bill, &json!({"amount": 48.0}));
    assert_eq!((status, &again["transaction"]), (200, &settled["transaction"]));
    let (status, answer) = settle(&server, &shop, bill, &json!({"amount": 50.0}));
    assert_error(status, &answer, 409, "conflict");
    let (status, answer) = settle(&server, &shop, bill, &json!({}));
    assert_eq!(status, 200, "{answer}");
}

#[test]
fn a_refund_names_its_purchase_and_refunds_give_back_at_most_its_amount() {
    let server = TestServer::spawn();
    let shop = shop(&server);
    let stranger = server.subscriber();
    server.enroll_card(&stranger, TEST_PANS[1]);
    let purchase = buy(&server, &shop, 20.0);

    let (status, answer) = refund(&server, &shop.subscriber, purchase, &json!({}));
    assert_error(status, &answer, 409, "conflict");
    assert!(answer["error"].as_str().is_some_and(|text| text.contains("pending")), "{answer}");
    assert_eq!(settle(&server, &shop, purchase, &json!({})).0, 200);
    let cursor = cursor_now(&server, &shop);
    // Counted from the test's start: a card's generated history may still be arriving.
    let refunds = format!(
        "SELECT count(*) FROM transactions WHERE amount_minor < 0 AND created_at >= {}",
        chrono::Utc::now().timestamp() - 60
    );
    let refunds_before = count(&server, &refunds);

    // Refused, and nothing made.
    let (status, answer) = refund(&server, &stranger, purchase, &json!({}));
    assert_error(status, &answer, 404, "not_found");
    for body in [json!({"amount": 0}), json!({"amount": -5.0}), json!({"amount": 20.01}), json!({"amount": 1.001})] {
        let (status, answer) = refund(&server, &shop.subscriber, purchase, &body);
        assert_error(status, &answer, 400, "invalid_request");
        assert!(answer.to_string().contains("amount"), "{answer}");
    }
    assert_eq!(count(&server, &refunds), refunds_before);

    // A part, replayed by its key: one refund.
    let keyed = || {
        shop.subscriber
            .auth(server.post(&format!("/sandbox/transactions/{purchase}/refund"), &json!({"amount": 5.0})))
            .header("Idempotency-Key", "refund-1")
    };
    let (status, part) = send(keyed());
    assert_eq!(status, 201, "{part}");
    let (status, replayed) = send(keyed());
    assert_eq!((status, &replayed), (201, &part));
    assert_eq!(part["message"], "Refund created");
    assert_eq!(part["transaction"]["amount"], -5.0);
    assert_eq!(part["transaction"]["refundOf"], purchase, "{part}");
    let part_id = part["transactionId"].as_i64().expect("transactionId");

    let (status, answer) = refund(&server, &shop.subscriber, purchase, &json!({"amount": 15.01}));
    assert_error(status, &answer, 400, "invalid_request");
    assert!(answer.to_string().contains("15.00"), "what is left is named: {answer}");
    let (status, rest) = refund(&server, &shop.subscriber, purchase, &json!({}));
    assert_eq!(status, 201, "{rest}");
    assert_eq!(rest["transaction"]["amount"], -15.0);
    let rest_id = rest["transactionId"].as_i64().expect("transactionId");
    let (status, answer) = refund(&server, &shop.subscriber, purchase, &json!({"amount": 0.01}));
    assert_error(status, &answer, 409, "conflict");
    let (status, answer) = refund(&server, &shop.subscriber, part_id, &json!({}));
    assert_error(status, &answer, 409, "conflict");

    // Both sides list them where the purchase was; sync adds them; the card's list names the
    // purchase on each.
    let changes = sync(&server, &shop, &cursor);
    assert_eq!(ids(&changes["added"]), [part_id, rest_id], "{changes}");
    let on_card = format!("/card/{}/transactions?limit=100", shop.card_id);
    for id in [part_id, rest_id] {
        let row = listed(&server, &shop.subscriber, &on_card, id).expect("on the card's list");
        assert_eq!(row["refundOf"], purchase, "{row}");
        assert_eq!(row["locationId"], shop.location_id);
        let at_merchant = format!("/merchant/{}/transactions?limit=100", shop.merchant_id);
        assert!(listed(&server, &shop.subscriber, &at_merchant, id).is_some(), "the merchant sees refund {id}");
    }
    let (status, events) = send(shop.subscriber.auth(server.get("/events?type=transaction.created&limit=10")));
    assert_eq!(status, 200, "{events}");
    let announced: Vec<&Value> =
        events["events"].as_array().expect("events").iter().map(|e| &e["data"]["transactionId"]).collect();
    assert!(announced.contains(&&json!(part_id)) && announced.contains(&&json!(rest_id)), "{events}");
}

#[test]
fn a_backdated_purchase_is_settled_in_its_place_and_bad_times_change_nothing() {
    let server = TestServer::spawn();
    let shop = shop(&server);
    let cursor = cursor_now(&server, &shop);
    // Counted from the test's start: a card's generated history may still be arriving.
    let made = format!("SELECT count(*) FROM transactions WHERE created_at >= {}", chrono::Utc::now().timestamp() - 1);
    let made_before = count(&server, &made);

    let month_ahead = (chrono::Utc::now() + chrono::Duration::days(30)).to_rfc3339();
    let too_old = (chrono::Utc::now() - chrono::Duration::days(37 * 31)).to_rfc3339();
    for created_at in [json!("yesterday"), json!(month_ahead), json!(too_old), json!("2026-13-01T00:00:00Z")] {
        let body = json!({"cardId": shop.card_id, "amount": 9.99, "createdAt": created_at});
        let (status, answer) = post(&server, &shop.subscriber, "/sandbox/transactions", &body);
        assert_error(status, &answer, 400, "invalid_request");
        assert!(answer.to_string().contains("createdAt"), "{answer}");
    }
    assert_eq!(count(&server, &made), made_before, "nothing made");

    let when = chrono::Utc::now() - chrono::Duration::days(45);
    let body = json!({"cardId": shop.card_id, "locationId": shop.location_id, "amount": 9.99,
                      "createdAt": when.to_rfc3339()});
    let (status, made) = post(&server, &shop.subscriber, "/sandbox/transactions", &body);
    assert_eq!(status, 201, "{made}");
    let id = made["transactionId"].as_i64().expect("transactionId");
    assert_eq!(made["transaction"]["pending"], false, "older than the settlement delay: settled");
    let at = chrono::DateTime::parse_from_rfc3339(made["transaction"]["createdAt"].as_str().expect("createdAt"))
        .expect("RFC 3339");
    assert_eq!(at.timestamp(), when.timestamp());

    let day = when.format("%Y-%m-%d");
    let on_that_day = format!("/card/{}/transactions?from={day}&to={day}&limit=100", shop.card_id);
    assert!(listed(&server, &shop.subscriber, &on_that_day, id).is_some(), "listed on its day");
    let at_merchant = format!("/merchant/{}/transactions?from={day}&to={day}", shop.merchant_id);
    assert!(listed(&server, &shop.subscriber, &at_merchant, id).is_some(), "the merchant's list, on its day");
    let changes = sync(&server, &shop, &cursor);
    assert_eq!(ids(&changes["added"]), [id], "{changes}");
}

#[test]
fn a_reversed_authorization_leaves_both_sides_and_sync_reports_it_removed() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    // A card and a merchant of one subscriber (a purchase crosses subscribers only when the
    // simulator makes it), a stranger beside them.
    let shop = shop(&server);
    let receiver = WebhookReceiver::start();
    add_receiver(&server, &shop.subscriber, &receiver, &["transaction.removed"]);
    // Rows of that amount made from now on (the card's generated history, written in the
    // background, may hold the same amount at an earlier time).
    let start = chrono::Utc::now().timestamp() - 1;
    let of_that_amount = || {
        count(
            &server,
            &format!("SELECT count(*) FROM transactions WHERE amount_minor = 6137 AND created_at >= {start}"),
        )
    };
    let id = buy(&server, &shop, 61.37);
    let cursor = cursor_now(&server, &shop);
    let other = buy(&server, &shop, 12.0);
    let reverse = |subscriber: &Subscriber, id: i64| {
        post(&server, subscriber, &format!("/sandbox/transactions/{id}/reverse"), &json!({}))
    };

    // Not a stranger's to reverse; a settled one is refunded instead, and stays.
    let stranger = server.subscriber();
    server.enroll_card(&stranger, TEST_PANS[1]);
    let (status, answer) = reverse(&stranger, id);
    assert_error(status, &answer, 404, "not_found");
    assert_eq!(settle(&server, &shop, other, &json!({})).0, 200);
    let (status, answer) = reverse(&shop.subscriber, other);
    assert_error(status, &answer, 409, "conflict");

    let (status, reversed) = reverse(&shop.subscriber, id);
    assert_eq!(status, 200, "{reversed}");
    assert_eq!((&reversed["message"], &reversed["transactionId"]), (&json!("Transaction reversed"), &json!(id)));

    // Gone from both lists, reported once by sync, told once naming both sides.
    let card_list = format!("/card/{}/transactions?limit=100", shop.card_id);
    assert!(listed(&server, &shop.subscriber, &card_list, id).is_none(), "off the card's list");
    let merchant_list = format!("/merchant/{}/transactions?limit=100", shop.merchant_id);
    assert!(listed(&server, &shop.subscriber, &merchant_list, id).is_none(), "off the merchant's list");
    assert!(listed(&server, &shop.subscriber, &merchant_list, other).is_some(), "the other sale stays");
    let changes = sync(&server, &shop, &cursor);
    assert_eq!(changes["removed"], json!([id]), "{changes}");
    assert!(!ids(&changes["added"]).contains(&id), "{changes}");
    let next = changes["next_cursor"].as_str().expect("next_cursor");
    let after = sync(&server, &shop, next);
    assert_eq!((&after["removed"], &after["added"]), (&json!([]), &json!([])), "reported once: {after}");
    let told: Value = serde_json::from_slice(&next_accepted(&receiver).body).expect("JSON");
    assert_eq!(told["type"], "transaction.removed");
    assert_eq!(told["data"], json!({"transactionId": id, "cardId": shop.card_id, "merchantId": shop.merchant_id}));
    let (status, events) = send(shop.subscriber.auth(server.get("/events?limit=100")));
    assert_eq!(status, 200, "{events}");
    let about: Vec<&Value> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|event| event["data"]["transactionId"] == id)
        .map(|event| &event["type"])
        .collect();
    assert_eq!(about, [&json!("transaction.removed")], "its earlier events went with it: {events}");

    // In the database: the row is gone and nothing of it is left but its id.
    assert_eq!(count(&server, &format!("SELECT count(*) FROM transactions WHERE id = {id}")), 0);
    assert_eq!(of_that_amount(), 0, "nothing of it stored");
    assert_eq!(count(&server, &format!("SELECT count(*) FROM removed_transactions WHERE transaction_id = {id}")), 1);
    let (status, answer) = reverse(&shop.subscriber, id);
    assert_error(status, &answer, 404, "not_found");
}

/// Scenarios through one instance are what the other answers at once: its kept pages and rows
/// of the card and the merchant are stale from the change on (two instances on PostgreSQL).
#[test]
fn scenarios_through_one_instance_are_what_the_other_answers_at_once() {
    let Some((first, second)) = crate::instances::two_instances() else { return };
    let shop = shop(&first);
    let (tipped, reversed) = (buy(&first, &shop, 30.0), buy(&first, &shop, 45.5));
    let card_list = format!("/card/{}/transactions?limit=100", shop.card_id);
    let merchant_list = format!("/merchant/{}/transactions?limit=100", shop.merchant_id);
    // The second instance reads (and keeps) both lists first.
    for path in [&card_list, &merchant_list] {
        assert!(listed(&second, &shop.subscriber, path, reversed).is_some(), "{path}");
    }
    let cursor = cursor_now(&second, &shop);

    assert_eq!(settle(&first, &shop, tipped, &json!({"amount": 36.0})).0, 200);
    let (status, body) =
        post(&first, &shop.subscriber, &format!("/sandbox/transactions/{reversed}/reverse"), &json!({}));
    assert_eq!(status, 200, "{body}");
    let (status, refund) = refund(&first, &shop.subscriber, tipped, &json!({"amount": 6.0}));
    assert_eq!(status, 201, "{refund}");
    let refund_id = refund["transactionId"].as_i64().expect("transactionId");

    for path in [&card_list, &merchant_list] {
        assert!(listed(&second, &shop.subscriber, path, reversed).is_none(), "{path}: the reversed one is gone");
        let row = listed(&second, &shop.subscriber, path, tipped).expect("the tipped one");
        assert_eq!((&row["amount"], &row["pending"]), (&json!(36.0), &json!(false)), "{path}: {row}");
        assert!(listed(&second, &shop.subscriber, path, refund_id).is_some(), "{path}: the refund is there");
    }
    let changes = sync(&second, &shop, &cursor);
    assert_eq!(changes["removed"], json!([reversed]), "{changes}");
    assert_eq!(ids(&changes["modified"]), [tipped], "{changes}");
    assert_eq!(ids(&changes["added"]), [refund_id], "{changes}");
}

#[test]
fn every_catalogue_event_can_be_sent_and_arrives_marked_as_the_sandboxs() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let shop = shop(&server);
    let receiver = WebhookReceiver::start();
    add_receiver(&server, &shop.subscriber, &receiver, &["*"]);
    let purchase = buy(&server, &shop, 17.25);
    let real: Value = serde_json::from_slice(&next_accepted(&receiver).body).expect("JSON");
    assert_eq!((&real["type"], real.get("sandbox")), (&json!("transaction.created"), None), "a real one: {real}");
    let types = crate::events::TYPES;
    let logged_before = count(&server, "SELECT count(*) FROM events");

    // Refused, and nothing recorded.
    let stranger = server.subscriber();
    for (who, body, code) in [
        (&shop.subscriber, json!({"type": "card.exploded"}), "invalid_request"),
        (&shop.subscriber, json!({"type": "card.enrolled", "objectId": 0}), "invalid_request"),
        (&shop.subscriber, json!({}), "invalid_request"),
        (&stranger, json!({"type": "transaction.created", "objectId": purchase}), "not_found"),
    ] {
        let (status, answer) = post(&server, who, "/sandbox/events", &body);
        assert_error(status, &answer, if code == "not_found" { 404 } else { 400 }, code);
    }
    assert_eq!(count(&server, "SELECT count(*) FROM events"), logged_before, "nothing recorded");

    for event_type in &types {
        let (status, sent) = post(&server, &shop.subscriber, "/sandbox/events", &json!({"type": event_type}));
        assert_eq!(status, 201, "{event_type}: {sent}");
        assert_eq!((&sent["type"], &sent["sandbox"]), (&json!(event_type), &json!(true)), "{sent}");
        assert!(sent["data"].is_object() && sent["id"].as_str().is_some_and(|id| id.starts_with("evt_")), "{sent}");
        let id = sent["id"].as_str().expect("id");
        let (status, logged) = send(shop.subscriber.auth(server.get(&format!("/events/{id}"))));
        assert_eq!((status, &logged["sandbox"], &logged["data"]), (200, &json!(true), &sent["data"]), "{logged}");
        // A test event goes to one endpoint, through POST /webhooks/<id>/test; every other one
        // to each endpoint that wants it.
        if *event_type != "webhook.test" {
            let delivered: Value = serde_json::from_slice(&next_accepted(&receiver).body).expect("JSON");
            assert_eq!((&delivered["id"], &delivered["sandbox"]), (&sent["id"], &json!(true)), "{delivered}");
        }
    }

    // About the caller's transaction: it, as the card's list shows it.
    let body = json!({"type": "transaction.updated", "objectId": purchase});
    let (status, sent) = post(&server, &shop.subscriber, "/sandbox/events", &body);
    assert_eq!(status, 201, "{sent}");
    assert_eq!(
        (&sent["data"]["transactionId"], &sent["data"]["transaction"]["amount"]),
        (&json!(purchase), &json!(17.25))
    );
    // A real event carries no mark.
    let (status, events) = send(shop.subscriber.auth(server.get("/events?type=transaction.created&limit=100")));
    assert_eq!(status, 200, "{events}");
    let real =
        events["events"].as_array().expect("events").iter().find(|event| event["data"]["transactionId"] == purchase);
    assert!(real.is_some_and(|event| event.get("sandbox").is_none()), "{events}");
    // Outside the sandbox there is no such route.
    let live = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = live.subscriber();
    let (status, answer) = send(subscriber.auth(live.post("/sandbox/events", &json!({"type": "card.enrolled"}))));
    assert_error(status, &answer, 404, "not_found");
}

#[test]
fn a_declined_purchase_is_told_and_never_listed() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let shop = shop(&server);
    let receiver = WebhookReceiver::start();
    add_receiver(&server, &shop.subscriber, &receiver, &["transaction.declined"]);
    let cursor = cursor_now(&server, &shop);
    // Counted from the test's start: a card's generated history may still be arriving.
    let rows = format!("SELECT count(*) FROM transactions WHERE created_at >= {}", chrono::Utc::now().timestamp() - 1);
    let rows_before = count(&server, &rows);

    let body = json!({"cardId": shop.card_id, "locationId": shop.location_id, "amount": 250.0, "declined": true});
    let keyed =
        || shop.subscriber.auth(server.post("/sandbox/transactions", &body)).header("Idempotency-Key", "declined-1");
    let (status, declined) = send(keyed());
    assert_eq!(status, 201, "{declined}");
    assert_eq!((&declined["message"], &declined["declined"]), (&json!("Transaction declined"), &json!(true)));
    let id = declined["transactionId"].as_i64().expect("transactionId");
    let (status, again) = send(keyed());
    assert_eq!((status, &again), (201, &declined), "the key's answer, not a second decline");

    // Told once, in the log and at the receiver; in no list, not in sync; no row stored.
    let told: Value = serde_json::from_slice(&next_accepted(&receiver).body).expect("JSON");
    assert_eq!(told["type"], "transaction.declined");
    let data = &told["data"];
    assert_eq!(
        (&data["transactionId"], &data["cardId"], &data["merchantId"]),
        (&json!(id), &json!(shop.card_id), &json!(shop.merchant_id))
    );
    assert_eq!((&data["amount"], &data["reason"]), (&json!(250.0), &json!("insufficient_funds")), "{told}");
    let (status, events) = send(shop.subscriber.auth(server.get("/events?type=transaction.declined")));
    assert_eq!(status, 200, "{events}");
    assert_eq!(events["events"].as_array().map(Vec::len), Some(1), "one event: {events}");
    let card_list = format!("/card/{}/transactions?limit=100", shop.card_id);
    assert!(listed(&server, &shop.subscriber, &card_list, id).is_none(), "not on the card's list");
    let merchant_list = format!("/merchant/{}/transactions?limit=100", shop.merchant_id);
    assert!(listed(&server, &shop.subscriber, &merchant_list, id).is_none(), "not on the merchant's list");
    let changes = sync(&server, &shop, &cursor);
    assert_eq!((&changes["added"], &changes["removed"]), (&json!([]), &json!([])), "{changes}");
    assert_eq!(count(&server, &rows), rows_before, "no row stored");

    // Its id is its own: the next purchase gets a later one.
    let next = buy(&server, &shop, 3.0);
    assert!(next > id, "{next} after {id}");
}
