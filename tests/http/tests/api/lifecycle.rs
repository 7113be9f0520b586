//! Removing what was created (contract: "Lifecycle"): a removal is an erasure. Every read of
//! the object answers 404 afterwards, on every instance; its streams end; its data leaves the
//! database (read here from the file, or PostgreSQL's dump, not through the API); one
//! `*.removed` event with the id alone is left and delivered; nothing of anyone else's changes.

use std::time::Duration;

use serde_json::{Value, json};
use subscriber_testkit::WebhookReceiver;

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TEST_PANS, TestServer, assert_error, card_json, delete, psql, send};
use crate::instances::two_instances;
use crate::persons::{answers_with, authenticate, onboard, right_answers, verify};
use crate::realtime::{EventStream, buy, shop};
use crate::webhooks::{add_receiver, next_accepted};

/// Every read of the card, each expected to be 404.
fn card_reads(card_id: i64) -> Vec<String> {
    vec![
        format!("/card/{card_id}"),
        format!("/card/{card_id}/transactions"),
        format!("/card/{card_id}/transactions/sync"),
        format!("/card/{card_id}/recurring"),
        format!("/card/{card_id}/transactions/stream"),
    ]
}

fn events_of_type(server: &TestServer, subscriber: &Subscriber, event_type: &str) -> Vec<Value> {
    let (status, body) = send(subscriber.auth(server.get(&format!("/events?type={event_type}&limit=100"))));
    assert_eq!(status, 200, "{body}");
    body["events"].as_array().expect("events").clone()
}

/// Counts in the server's database itself (the SQLite file, or PostgreSQL through `psql`).
pub fn count(server: &TestServer, sql: &str) -> i64 {
    if server.on_postgres() {
        let url = server.database.to_str().expect("a postgres:// address");
        return psql(url, sql).trim().parse().expect("a count");
    }
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = rusqlite::Connection::open_with_flags(&server.database, flags).expect("the database opens");
    connection.query_row(sql, [], |row| row.get(0)).expect("a count")
}

/// How many events' data names `key`: `id` (as `{"cardId":17,…}` or `…,"cardId":17}`).
fn naming(key: &str, id: i64) -> String {
    format!("SELECT count(*) FROM events WHERE data LIKE '%\"{key}\":{id},%' OR data LIKE '%\"{key}\":{id}}}%'")
}

/// What the database held before a removal.
struct Stored {
    transactions: i64,
    own: i64,
    replays: i64,
}

#[test]
fn a_removed_card_is_erased_everywhere_and_its_number_enrolls_again_with_a_new_id() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let other = server.subscriber();
    let receiver = WebhookReceiver::start();
    add_receiver(&server, &subscriber, &receiver, &["card.removed"]);
    let enroll = || {
        send(subscriber.auth(server.post("/card", &card_json(TEST_PANS[0])).header("Idempotency-Key", "enroll-once")))
    };
    let (status, enrolled) = enroll();
    assert_eq!(status, 201, "{enrolled}");
    let card_id = enrolled["cardId"].as_i64().expect("cardId");
    let kept_card = server.enroll_card(&subscriber, TEST_PANS[1]);
    let others_card = server.enroll_card(&other, TEST_PANS[2]);
    let others_before = send(other.auth(server.get(&format!("/card/{others_card}/transactions?limit=100")))).1;
    let kept_before = send(subscriber.auth(server.get(&format!("/card/{kept_card}/transactions?limit=100")))).1;
    // Read once so that this instance keeps its body, rows and recurring streams.
    for path in &card_reads(card_id)[..4] {
        assert_eq!(send(subscriber.auth(server.get(path))).0, 200, "{path}");
    }
    let stream = EventStream::open(&server, &subscriber, &format!("/card/{card_id}/transactions/stream"), None);
    let stored_before = Stored {
        transactions: count(&server, "SELECT count(*) FROM transactions"),
        own: count(&server, &format!("SELECT count(*) FROM transactions WHERE card_id = {card_id}")),
        replays: count(&server, "SELECT count(*) FROM idempotency_keys"),
    };
    assert!(stored_before.own > 0, "a sandbox card comes with a history");
    assert_eq!(count(&server, &naming("cardId", card_id)), 1, "card.enrolled names the card");

    let (status, removed) = delete(&server, &subscriber, &format!("/card/{card_id}"));
    assert_eq!(status, 200, "{removed}");
    assert_eq!(removed, json!({"error": null, "message": "Card removed", "cardId": card_id}));

    assert!(stream.ended_within(Duration::from_secs(5)), "the card's open stream ends");
    for path in card_reads(card_id) {
        let (status, body) = send(subscriber.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
    }
    let (status, body) = delete(&server, &subscriber, &format!("/card/{card_id}"));
    assert_error(status, &body, 404, "not_found");
    let (_, list) = send(subscriber.auth(server.get("/card")));
    let listed: Vec<i64> =
        list["cards"].as_array().expect("cards").iter().filter_map(|c| c["cardId"].as_i64()).collect();
    assert_eq!(listed, vec![kept_card], "{list}");

    // The event log keeps one card.removed with the id alone; card.enrolled of it is gone.
    let removed_events = events_of_type(&server, &subscriber, "card.removed");
    assert_eq!(removed_events.len(), 1, "{removed_events:?}");
    assert_eq!(removed_events[0]["data"], json!({"cardId": card_id}));
    let enrolled_events = events_of_type(&server, &subscriber, "card.enrolled");
    assert!(enrolled_events.iter().all(|event| event["data"]["cardId"] != card_id), "{enrolled_events:?}");
    assert_eq!(enrolled_events.len(), 1, "the kept card's enrollment stays: {enrolled_events:?}");
    let delivery = next_accepted(&receiver);
    let delivered: Value = serde_json::from_slice(&delivery.body).expect("JSON");
    assert_eq!(delivered["type"], "card.removed");
    assert_eq!(delivered["data"], json!({"cardId": card_id}));

    // Nothing of it in the database, read there rather than through the API: its transactions
    // are deleted (not only unlinked), its events and its row gone, the replay forgotten.
    assert_eq!(count(&server, &format!("SELECT count(*) FROM cards WHERE id = {card_id}")), 0);
    assert_eq!(count(&server, &format!("SELECT count(*) FROM transactions WHERE card_id = {card_id}")), 0);
    assert_eq!(count(&server, "SELECT count(*) FROM transactions"), stored_before.transactions - stored_before.own);
    assert_eq!(count(&server, &format!("SELECT count(*) FROM events WHERE card_id = {card_id}")), 0);
    assert_eq!(count(&server, &naming("cardId", card_id)), 1, "only card.removed names the card");
    assert_eq!(count(&server, "SELECT count(*) FROM idempotency_keys"), stored_before.replays - 1);

    // Everybody else's cards are as they were.
    assert_eq!(send(other.auth(server.get(&format!("/card/{others_card}/transactions?limit=100")))).1, others_before);
    assert_eq!(send(subscriber.auth(server.get(&format!("/card/{kept_card}/transactions?limit=100")))).1, kept_before);

    // The stored replay went too: the same request with the same key enrolls the number again,
    // as a new card with a new id.
    let (status, again) = enroll();
    assert_eq!(status, 201, "{again}");
    let new_id = again["cardId"].as_i64().expect("cardId");
    assert!(new_id > card_id, "ids are never given again: {new_id} after {card_id}");
    assert_eq!(send(subscriber.auth(server.get(&format!("/card/{new_id}")))).0, 200);
    assert_eq!(send(subscriber.auth(server.get(&format!("/card/{card_id}")))).0, 404);
}

#[test]
fn a_card_is_removed_only_by_its_subscriber_and_bad_ids_are_refused() {
    let server = TestServer::spawn();
    let owner = server.subscriber();
    let stranger = server.subscriber();
    let card_id = server.enroll_card(&owner, TEST_PANS[0]);
    let (status, body) = delete(&server, &stranger, &format!("/card/{card_id}"));
    assert_error(status, &body, 404, "not_found");
    for path in ["/card/0", "/card/-3", "/card/abc", "/card/99999999999999999999"] {
        let (status, body) = delete(&server, &owner, path);
        assert!(status == 400 || status == 404, "{path}: {status} {body}");
        assert!(body["error"].is_string(), "{path}: {body}");
    }
    let (status, body) = send(server.http.delete(server.url(&format!("/card/{card_id}"))));
    assert_error(status, &body, 401, "unauthorized");
    assert_eq!(send(owner.auth(server.get(&format!("/card/{card_id}")))).0, 200, "nothing changed");
}

/// A purchase the card made at an enrolled merchant stays in the merchant's sales as it was.
#[test]
fn a_removed_cards_purchases_stay_in_the_merchants_sales() {
    let server = TestServer::spawn();
    let shop = shop(&server);
    let sale = buy(&server, &shop, 12.5);
    let sales_path = format!("/merchant/{}/transactions", shop.merchant_id);
    let (status, before) = send(shop.subscriber.auth(server.get(&sales_path)));
    assert_eq!(status, 200, "{before}");
    let (status, body) = delete(&server, &shop.subscriber, &format!("/card/{}", shop.card_id));
    assert_eq!(status, 200, "{body}");
    let (status, after) = send(shop.subscriber.auth(server.get(&sales_path)));
    assert_eq!(status, 200, "{after}");
    assert_eq!(after, before, "the merchant's record shows what it showed");
    assert!(after.to_string().contains(&sale.to_string()), "{after}");
}

/// On two instances: once DELETE has answered through one, the other answers 404 for the card
/// (it had the card's body and rows in memory) and its stream on the card ends.
#[test]
fn a_card_removed_through_one_instance_is_gone_from_the_other_at_once() {
    let Some((first, second)) = two_instances() else { return };
    let subscriber = first.subscriber();
    for pan in TEST_PANS.iter().take(3) {
        let card_id = first.enroll_card(&subscriber, pan);
        for path in &card_reads(card_id)[..4] {
            assert_eq!(send(subscriber.auth(second.get(path))).0, 200, "{path}");
        }
        let stream = EventStream::open(&second, &subscriber, &format!("/card/{card_id}/transactions/stream"), None);
        let (status, body) = delete(&first, &subscriber, &format!("/card/{card_id}"));
        assert_eq!(status, 200, "{body}");
        for path in card_reads(card_id) {
            let (status, body) = send(subscriber.auth(second.get(&path)));
            assert_error(status, &body, 404, "not_found");
        }
        assert!(stream.ended_within(Duration::from_secs(10)), "the other instance's stream ends");
    }
}

#[test]
fn a_removed_person_is_erased_with_their_answers() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let kept = onboard(&server, &subscriber);
    let issued = authenticate(&server, &subscriber, person_id);
    let right = right_answers(&server, &subscriber, person_id);
    let (status, verified) = verify(&server, &subscriber, person_id, &answers_with(&issued, &right, 4));
    assert_eq!(status, 200, "{verified}");
    let (status, body) = delete(&server, &subscriber, &format!("/persons/{person_id}"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"error": null, "message": "Person removed", "personId": person_id}));
    let (status, body) = send(subscriber.auth(server.get(&format!("/persons/{person_id}"))));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = delete(&server, &subscriber, &format!("/persons/{person_id}"));
    assert_error(status, &body, 404, "not_found");
    assert_eq!(send(subscriber.auth(server.get(&format!("/persons/{kept}")))).0, 200);
    let verified_events = events_of_type(&server, &subscriber, "person.verified");
    assert!(verified_events.iter().all(|event| event["data"]["personId"] != person_id), "{verified_events:?}");
    let removed = events_of_type(&server, &subscriber, "person.removed");
    assert_eq!(removed.len(), 1, "{removed:?}");
    assert_eq!(removed[0]["data"], json!({"personId": person_id}));
    // The questions asked, with their answers, are gone from the database.
    assert_eq!(count(&server, &format!("SELECT count(*) FROM person_question_sets WHERE person_id = {person_id}")), 0);
    assert_eq!(count(&server, &format!("SELECT count(*) FROM persons WHERE id = {person_id}")), 0);
    assert_eq!(count(&server, &naming("personId", person_id)), 1, "only person.removed names the person");
}

#[test]
fn a_removed_bank_account_is_gone_with_its_token() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let stranger = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/account", &json!({ "bank": "bluebird" }))));
    assert_eq!(status, 201, "{body}");
    let account_id = body["accountId"].as_i64().expect("accountId");
    let (status, body) = delete(&server, &stranger, &format!("/account/{account_id}"));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = delete(&server, &subscriber, &format!("/account/{account_id}"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"error": null, "message": "Account removed", "accountId": account_id}));
    for path in [
        format!("/account/{account_id}"),
        format!("/account/{account_id}/transactions"),
        format!("/account/{account_id}/recurring"),
    ] {
        let (status, body) = send(subscriber.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
    }
    let removed = events_of_type(&server, &subscriber, "account.removed");
    assert_eq!(removed.len(), 1, "{removed:?}");
    assert_eq!(removed[0]["data"], json!({"accountId": account_id}));
}
