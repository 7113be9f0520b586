//! The subscriber's own users and notes (contract: "Lifecycle", fourth round): `clientUserId`
//! on the creating calls, `GET`/`DELETE /users/{clientUserId}`, and `metadata` with its limits
//! on cards, bank accounts, persons and locations.

use serde_json::{Value, json};

use crate::helpers::{Subscriber, TEST_PANS, TestServer, assert_error, card_json, delete, send};
use crate::lifecycle::count;

fn patch(server: &TestServer, subscriber: &Subscriber, path: &str, body: &Value) -> (u16, Value) {
    send(subscriber.auth(server.http.patch(server.url(path)).json(body)))
}

/// A card, a bank account and a person of the user; their ids.
fn objects_of(server: &TestServer, subscriber: &Subscriber, user: &str, pan: &str) -> (i64, i64, i64) {
    let mut card = card_json(pan);
    card["clientUserId"] = json!(user);
    card["metadata"] = json!({ "plan": "gold" });
    let (status, body) = send(subscriber.auth(server.post("/card", &card)));
    assert_eq!(status, 201, "{body}");
    let card_id = body["cardId"].as_i64().expect("cardId");
    let account = json!({ "bank": "bluebird", "clientUserId": user, "metadata": { "source": "app" } });
    let (status, body) = send(subscriber.auth(server.post("/account", &account)));
    assert_eq!(status, 201, "{body}");
    let account_id = body["accountId"].as_i64().expect("accountId");
    let person = json!({
        "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com",
        "clientUserId": user, "metadata": { "case": "7" }
    });
    let (status, body) = send(subscriber.auth(server.post("/persons", &person)));
    assert_eq!(status, 201, "{body}");
    (card_id, account_id, body["personId"].as_i64().expect("personId"))
}

fn ids(list: &Value, key: &str) -> Vec<i64> {
    list.as_array().expect("a list").iter().map(|item| item[key].as_i64().expect("an id")).collect()
}

/// What was created for a user is read back together, carries its `clientUserId` and notes on
/// every read and in its events, and goes in one call: rows gone from the database, 404 after,
/// one `*.removed` event each, another user's and another subscriber's left as they were.
#[test]
fn a_users_cards_accounts_and_persons_are_read_and_erased_together() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let other = server.subscriber();
    let user = "customer 42/eu";
    let path = "/users/customer%2042%2Feu";
    let (card_id, account_id, person_id) = objects_of(&server, &subscriber, user, TEST_PANS[0]);
    let kept = objects_of(&server, &subscriber, "customer 43", TEST_PANS[1]);
    let theirs = objects_of(&server, &other, user, TEST_PANS[0]);

    let (status, body) = send(subscriber.auth(server.get(path)));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clientUserId"], user);
    assert_eq!(ids(&body["cards"], "cardId"), vec![card_id]);
    assert_eq!(ids(&body["accounts"], "accountId"), vec![account_id]);
    assert_eq!(ids(&body["persons"], "personId"), vec![person_id]);
    assert_eq!(body["cards"][0]["metadata"], json!({ "plan": "gold" }));
    for read in [format!("/card/{card_id}"), format!("/account/{account_id}"), format!("/persons/{person_id}")] {
        let (status, body) = send(subscriber.auth(server.get(&read)));
        assert_eq!((status, &body["clientUserId"]), (200, &json!(user)), "{read}: {body}");
    }
    let (status, events) = send(subscriber.auth(server.get("/events?type=card.enrolled")));
    assert_eq!(status, 200, "{events}");
    let enrolled = &events["events"].as_array().expect("events")[1]["data"];
    assert_eq!((&enrolled["cardId"], &enrolled["clientUserId"]), (&json!(card_id), &json!(user)), "{events}");
    assert_eq!(enrolled["metadata"], json!({ "plan": "gold" }));

    let (status, body) = delete(&server, &subscriber, path);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "error": null, "message": "User removed", "clientUserId": user,
                "cardIds": [card_id], "accountIds": [account_id], "personIds": [person_id] })
    );
    for read in
        [format!("/card/{card_id}"), format!("/account/{account_id}"), format!("/persons/{person_id}"), path.into()]
    {
        let (status, body) = send(subscriber.auth(server.get(&read)));
        assert_error(status, &body, 404, "not_found");
    }
    let (status, body) = delete(&server, &subscriber, path);
    assert_error(status, &body, 404, "not_found");
    for (table, id) in [("cards", card_id), ("bank_accounts", account_id), ("persons", person_id)] {
        assert_eq!(count(&server, &format!("SELECT count(*) FROM {table} WHERE id = {id}")), 0, "{table}");
    }
    assert_eq!(count(&server, &format!("SELECT count(*) FROM transactions WHERE card_id = {card_id}")), 0);
    for event_type in ["card.removed", "account.removed", "person.removed"] {
        let (status, body) = send(subscriber.auth(server.get(&format!("/events?type={event_type}"))));
        assert_eq!((status, body["events"].as_array().map(Vec::len)), (200, Some(1)), "{event_type}: {body}");
    }
    for (owner, (card, account, person)) in [(&subscriber, kept), (&other, theirs)] {
        for read in [format!("/card/{card}"), format!("/account/{account}"), format!("/persons/{person}")] {
            assert_eq!(send(owner.auth(server.get(&read))).0, 200, "{read} stays");
        }
    }
    let (status, body) = send(other.auth(server.get(path)));
    assert_eq!((status, ids(&body["cards"], "cardId")), (200, vec![theirs.0]), "{body}");
}

/// A `clientUserId` or `metadata` past its limits is a 400 naming the field, and nothing is
/// created or changed.
#[test]
fn labels_past_their_limits_are_refused_and_change_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let many: serde_json::Map<String, Value> = (0..21).map(|at| (format!("k{at}"), json!("v"))).collect();
    let refused = [
        (json!({ "clientUserId": "" }), "clientUserId"),
        (json!({ "clientUserId": "u".repeat(129) }), "clientUserId"),
        (json!({ "clientUserId": " padded" }), "clientUserId"),
        (json!({ "metadata": { "k".repeat(41): "v" } }), "metadata."),
        (json!({ "metadata": { "key": "v".repeat(501) } }), "metadata.key"),
        (json!({ "metadata": { "": "v" } }), "metadata."),
        (json!({ "metadata": many }), "metadata"),
        (json!({ "metadata": { "key": 3 } }), "metadata"),
        (json!({ "metadata": ["a"] }), "metadata"),
    ];
    for (labels, field) in &refused {
        let mut card = card_json(TEST_PANS[0]);
        for (key, value) in labels.as_object().expect("an object") {
            card[key] = value.clone();
        }
        let (status, body) = send(subscriber.auth(server.post("/card", &card)));
        assert_error(status, &body, 400, "invalid_request");
        let named = body["details"].as_array().into_iter().flatten().chain(std::iter::once(&body));
        let text = named.map(Value::to_string).collect::<String>();
        assert!(text.contains(field), "{labels}: {field} named in {body}");
    }
    let (status, body) = send(subscriber.auth(server.get("/card")));
    assert_eq!((status, body["cards"].as_array().map(Vec::len)), (200, Some(0)), "nothing enrolled: {body}");

    let card_id = server.enroll_card(&subscriber, TEST_PANS[0]);
    let card_path = format!("/card/{card_id}");
    let twenty: serde_json::Map<String, Value> = (0..20).map(|at| (format!("k{at}"), json!("v"))).collect();
    let (status, body) = patch(&server, &subscriber, &card_path, &json!({ "metadata": twenty }));
    assert_eq!((status, body["metadata"].as_object().map(|pairs| pairs.len())), (200, Some(20)), "{body}");
    let (status, body) = patch(&server, &subscriber, &card_path, &json!({ "metadata": { "one_more": "v" } }));
    assert_error(status, &body, 400, "invalid_request");
    let (status, body) = patch(&server, &subscriber, &card_path, &json!({ "metadata": { "k0": "", "k1": "w" } }));
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["metadata"]["k0"].is_null(), &body["metadata"]["k1"]), (true, &json!("w")), "{body}");
    let (status, body) = send(subscriber.auth(server.get(&card_path)));
    assert_eq!((status, body["metadata"].as_object().map(|pairs| pairs.len())), (200, Some(19)), "{body}");
    for bad in [json!({}), json!({ "metadata": null }), json!({ "metadata": "x" })] {
        let (status, body) = patch(&server, &subscriber, &card_path, &bad);
        assert_error(status, &body, 400, "invalid_request");
    }
    let stranger = server.subscriber();
    let (status, body) = patch(&server, &stranger, &card_path, &json!({ "metadata": { "x": "y" } }));
    assert_error(status, &body, 404, "not_found");
    for path in ["/users/", "/users/%20padded"] {
        let (status, body) = send(subscriber.auth(server.get(path)));
        assert!(status == 400 || status == 404, "{path}: {status} {body}");
    }
}

/// Notes sent at once by many: each key set is kept (a `PATCH` merges again when another
/// changed the notes between its read and its write).
#[test]
fn patches_at_once_keep_every_key() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post(
        "/persons",
        &json!({
        "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com" }),
    )));
    assert_eq!(status, 201, "{body}");
    let path = format!("/persons/{}", body["personId"]);
    std::thread::scope(|scope| {
        for at in 0..12 {
            let (server, subscriber, path) = (&server, &subscriber, &path);
            scope.spawn(move || {
                let (status, body) = patch(server, subscriber, path, &json!({ "metadata": { format!("k{at}"): "v" } }));
                assert_eq!(status, 200, "{body}");
            });
        }
    });
    let (status, body) = send(subscriber.auth(server.get(&path)));
    assert_eq!((status, body["metadata"].as_object().map(|pairs| pairs.len())), (200, Some(12)), "{body}");
}

/// A location's notes: set at creation, changed alone (the address stays), shown on reads.
#[test]
fn a_locations_notes_change_without_its_address() {
    let server = TestServer::spawn();
    let shop = crate::realtime::shop(&server);
    let (status, merchant) = send(shop.subscriber.auth(server.get("/merchant")));
    assert_eq!(status, 200, "{merchant}");
    let location = &merchant["locations"][0];
    let path = format!("/merchant/location/{}", location["locationId"]);
    let (status, body) = patch(&server, &shop.subscriber, &path, &json!({ "metadata": { "store": "SF-1" } }));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["metadata"], json!({ "store": "SF-1" }));
    for key in ["street", "city", "latitude", "longitude", "coordinatesSource", "descriptor"] {
        assert_eq!(body[key], location[key], "{key} stays");
    }
    let (status, body) = send(shop.subscriber.auth(server.get(&path)));
    assert_eq!((status, &body["metadata"]), (200, &json!({ "store": "SF-1" })), "{body}");
    let (status, body) = patch(&server, &shop.subscriber, &path, &json!({ "metadata": { "": "x" } }));
    assert_error(status, &body, 400, "invalid_request");
}

/// On two instances of one database: once `PATCH` has answered through one, the other shows
/// the new notes (it had the card's body in memory from a read before).
#[test]
fn notes_set_through_one_instance_show_on_the_other_at_once() {
    let Some((first, second)) = crate::instances::two_instances() else { return };
    let subscriber = first.subscriber();
    let card_id = first.enroll_card(&subscriber, TEST_PANS[0]);
    let path = format!("/card/{card_id}");
    for round in 0..5 {
        assert_eq!(send(subscriber.auth(second.get(&path))).0, 200);
        let (status, body) = patch(&first, &subscriber, &path, &json!({ "metadata": { "round": round.to_string() } }));
        assert_eq!(status, 200, "{body}");
        let (status, body) = send(subscriber.auth(second.get(&path)));
        assert_eq!((status, &body["metadata"]["round"]), (200, &json!(round.to_string())), "{body}");
    }
}
