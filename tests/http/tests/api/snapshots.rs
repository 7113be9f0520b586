//! Snapshots of a subscriber's sandbox (contract: "Sandbox scenarios, snapshots"): a restore
//! gives back every answer as it was when the snapshot was taken, what was made since is gone
//! and its ids never come again, sync tells what changed, and another subscriber sees nothing
//! of it; bad requests change nothing. On SQLite, and PostgreSQL with two instances.

use serde_json::{Value, json};
use subscriber_testkit::WebhookReceiver;

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TEST_PANS, TestServer, assert_error, delete, send};
use crate::realtime::{Shop, buy, shop};
use crate::sandbox::purchase;
use crate::webhooks::add_receiver;

/// A sandbox bank.
const BANK: &str = "northwind";

fn post(server: &TestServer, subscriber: &Subscriber, path: &str, body: &Value) -> (u16, Value) {
    send(subscriber.auth(server.post(path, body)))
}

fn get(server: &TestServer, subscriber: &Subscriber, path: &str) -> Value {
    let (status, body) = send(subscriber.auth(server.get(path)));
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// Everything a subscriber reads of its sandbox, answer by answer.
fn view(server: &TestServer, subscriber: &Subscriber) -> Vec<(String, Value)> {
    let mut paths: Vec<String> =
        ["/card", "/merchant", "/webhooks", "/account", "/persons", "/events?limit=100"].map(str::to_owned).to_vec();
    let cards = get(server, subscriber, "/card");
    for card in cards["cards"].as_array().expect("cards") {
        let id = card["cardId"].as_i64().expect("cardId");
        paths.push(format!("/card/{id}"));
        paths.push(format!("/card/{id}/transactions?limit=100"));
        paths.push(format!("/card/{id}/transactions?limit=100&pending=true"));
    }
    let (status, merchant) = send(subscriber.auth(server.get("/merchant")));
    if status == 200 {
        let id = merchant["merchantId"].as_i64().expect("merchantId");
        paths.push(format!("/merchant/{id}/transactions?limit=100"));
    }
    for webhook in get(server, subscriber, "/webhooks")["webhooks"].as_array().expect("webhooks") {
        let id = webhook["webhookId"].as_i64().expect("webhookId");
        paths.push(format!("/webhooks/{id}/deliveries"));
    }
    paths
        .into_iter()
        .map(|path| {
            let (status, mut body) = send(subscriber.auth(server.get(&path)));
            // Each answer has its own request id.
            if let Some(object) = body.as_object_mut() {
                object.remove("requestId");
            }
            (path, json!({ "status": status, "body": body }))
        })
        .collect()
}

fn assert_same(before: &[(String, Value)], after: &[(String, Value)], what: &str) {
    let paths = |view: &[(String, Value)]| view.iter().map(|(path, _)| path.clone()).collect::<Vec<_>>();
    assert_eq!(paths(before), paths(after), "{what}: the same answers");
    for ((path, was), (_, is)) in before.iter().zip(after) {
        assert_eq!(was, is, "{what}: {path}");
    }
}

fn take(server: &TestServer, subscriber: &Subscriber, name: &str) -> Value {
    let (status, mut snapshot) = post(server, subscriber, "/sandbox/snapshots", &json!({ "name": name }));
    assert_eq!(status, 201, "{snapshot}");
    // The envelope's `error` (null), which a snapshot listed or restored does not have.
    snapshot.as_object_mut().expect("an object").remove("error");
    snapshot
}

fn restore(server: &TestServer, subscriber: &Subscriber, snapshot_id: i64) -> (u16, Value) {
    post(server, subscriber, &format!("/sandbox/snapshots/{snapshot_id}/restore"), &json!({}))
}

/// The card's changes since `cursor`, all pages.
fn sync_all(server: &TestServer, shop: &Shop, mut cursor: String) -> (Vec<i64>, Vec<i64>, Vec<i64>, String) {
    let (mut added, mut modified, mut removed) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let path = format!("/card/{}/transactions/sync?count=500&cursor={cursor}", shop.card_id);
        let body = get(server, &shop.subscriber, &path);
        let ids = |list: &Value| -> Vec<i64> {
            list.as_array()
                .expect("a list")
                .iter()
                .filter_map(|row| row["transactionId"].as_i64().or_else(|| row.as_i64()))
                .collect()
        };
        added.extend(ids(&body["added"]));
        modified.extend(ids(&body["modified"]));
        removed.extend(ids(&body["removed"]));
        cursor = body["next_cursor"].as_str().expect("next_cursor").to_owned();
        if body["has_more"] != true {
            return (added, modified, removed, cursor);
        }
    }
}

/// A restore gives back every answer of the caller's as the snapshot held it: a tip, a
/// reversal, a refund, a new card, a new location and a deleted endpoint since are all undone;
/// sync reports what changed; ids made since never come again; another subscriber's answers
/// never change.
#[test]
fn a_restore_gives_back_every_answer_as_it_was_and_nothing_of_anyone_elses() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--settle-after-seconds", "3600"]);
    let shop = shop(&server);
    let me = &shop.subscriber;
    let receiver = WebhookReceiver::start();
    let (webhook_id, _) = add_receiver(&server, me, &receiver, &["transaction.created"]);
    let (tipped, reversed) = (buy(&server, &shop, 20.0), buy(&server, &shop, 31.5));
    crate::persons::onboard(&server, me);
    crate::accounts::start_link(&server, me, BANK);
    let stranger = server.subscriber();
    let their_card = server.enroll_card(&stranger, TEST_PANS[1]);
    purchase(&server, &stranger, &json!({ "cardId": their_card, "amount": 9.0 }));
    let theirs = view(&server, &stranger);

    let before = view(&server, me);
    let snapshot = take(&server, me, "before the tip");
    let snapshot_id = snapshot["snapshotId"].as_i64().expect("snapshotId");
    assert_eq!((&snapshot["name"], &snapshot["cards"]), (&json!("before the tip"), &json!(1)), "{snapshot}");
    assert!(snapshot["transactions"].as_u64().expect("transactions") >= 2, "{snapshot}");
    assert!(snapshot["createdAt"].as_str().is_some_and(|at| at.ends_with('Z')), "{snapshot}");
    let listed = get(&server, me, "/sandbox/snapshots");
    assert_eq!(listed["snapshots"], json!([snapshot]), "{listed}");

    // Everything a developer does next.
    let (_, _, _, from_before) = sync_all(&server, &shop, String::new());
    assert_eq!(post(&server, me, &format!("/sandbox/transactions/{tipped}/settle"), &json!({"amount": 24.0})).0, 200);
    assert_eq!(post(&server, me, &format!("/sandbox/transactions/{reversed}/reverse"), &json!({})).0, 200);
    let made_since = buy(&server, &shop, 7.25);
    let keyed = || {
        me.auth(server.post("/sandbox/transactions", &json!({ "cardId": shop.card_id, "amount": 1.5 })))
            .header("Idempotency-Key", "made-since-the-snapshot")
    };
    let (status, keyed_since) = send(keyed());
    assert_eq!(status, 201, "{keyed_since}");
    let new_card = server.enroll_card(me, TEST_PANS[2]);
    assert_eq!(delete(&server, me, &format!("/webhooks/{webhook_id}")).0, 200);
    crate::persons::onboard(&server, me);
    crate::accounts::start_link(&server, me, BANK);
    crate::merchants::create_location(&server, me, "Since Street");
    let (added, modified, removed, cursor) = sync_all(&server, &shop, from_before);
    assert!(removed.contains(&reversed) && added.contains(&made_since), "{added:?} {modified:?} {removed:?}");
    assert_ne!(view(&server, me), before, "things changed");

    let (status, restored) = restore(&server, me, snapshot_id);
    assert_eq!(status, 200, "{restored}");
    assert_eq!((&restored["message"], &restored["snapshot"]), (&json!("Sandbox restored"), &snapshot), "{restored}");
    assert_same(&before, &view(&server, me), "after the restore");
    assert_same(&theirs, &view(&server, &stranger), "another subscriber");

    // Sync from a cursor taken after the changes: the tip undone and the reversed one back are
    // modified, the purchase made since is removed.
    let (added, mut modified, removed, _) = sync_all(&server, &shop, cursor);
    modified.sort_unstable();
    let mut expected = vec![tipped, reversed];
    expected.sort_unstable();
    let mut removed = removed;
    removed.sort_unstable();
    let made: Vec<i64> = [Some(made_since), keyed_since["transactionId"].as_i64()].into_iter().flatten().collect();
    assert_eq!((added, modified, removed), (vec![], expected, made));

    // A retry of a creation made since the snapshot makes it anew (its kept answer named a
    // purchase that is gone).
    let (status, retried) = send(keyed());
    assert_eq!(status, 201, "{retried}");
    assert!(retried["transactionId"].as_i64() > keyed_since["transactionId"].as_i64(), "{retried}");

    // Ids made since never come again; the snapshot stays, to restore again.
    let another = server.enroll_card(me, TEST_PANS[3]);
    assert!(another > new_card, "a new card {another} after {new_card}");
    let newer = buy(&server, &shop, 3.0);
    assert!(newer > made_since, "a new transaction {newer} after {made_since}");
    let (status, again) = restore(&server, me, snapshot_id);
    assert_eq!(status, 200, "{again}");
    assert_same(&before, &view(&server, me), "restored twice");
    assert_same(&theirs, &view(&server, &stranger), "another subscriber, after two restores");
}

/// Bad names, unknown and other subscribers' snapshots, the cap of 20, deletion, and the live
/// environments: each a clear error that changes nothing.
#[test]
fn snapshots_refuse_what_is_not_the_callers_and_keep_twenty() {
    let server = TestServer::spawn();
    let (me, stranger) = (server.subscriber(), server.subscriber());
    server.enroll_card(&me, TEST_PANS[0]);
    for bad in
        [json!({}), json!({"name": ""}), json!({"name": "   "}), json!({"name": "x".repeat(81)}), json!({"name": 5})]
    {
        let (status, body) = post(&server, &me, "/sandbox/snapshots", &bad);
        assert_error(status, &body, 400, "invalid_request");
    }
    assert_eq!(get(&server, &me, "/sandbox/snapshots")["snapshots"], json!([]), "nothing taken");

    let mine = take(&server, &me, "mine")["snapshotId"].as_i64().expect("snapshotId");
    for (status, body) in [
        restore(&server, &stranger, mine),
        delete(&server, &stranger, &format!("/sandbox/snapshots/{mine}")),
        restore(&server, &me, mine + 1000),
        restore(&server, &me, 0),
    ] {
        assert_error(status, &body, 404, "not_found");
    }
    assert_eq!(get(&server, &stranger, "/sandbox/snapshots")["snapshots"], json!([]), "none of theirs");

    for n in 1..20 {
        take(&server, &me, &format!("snapshot {n}"));
    }
    let (status, body) = post(&server, &me, "/sandbox/snapshots", &json!({"name": "one too many"}));
    assert_error(status, &body, 409, "conflict");
    let listed = get(&server, &me, "/sandbox/snapshots");
    let snapshots = listed["snapshots"].as_array().expect("snapshots");
    assert_eq!(snapshots.len(), 20);
    assert_eq!(snapshots[0]["name"], "snapshot 19", "newest first");

    let (status, body) = delete(&server, &me, &format!("/sandbox/snapshots/{mine}"));
    assert_eq!((status, &body["snapshotId"]), (200, &json!(mine)), "{body}");
    let (status, body) = delete(&server, &me, &format!("/sandbox/snapshots/{mine}"));
    assert_error(status, &body, 404, "not_found");
    take(&server, &me, "room again");

    let live = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = live.subscriber();
    let (status, body) = post(&live, &subscriber, "/sandbox/snapshots", &json!({"name": "live"}));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = send(subscriber.auth(live.get("/sandbox/snapshots")));
    assert_error(status, &body, 404, "not_found");
}

/// A restore through one instance is what the other answers at once (its kept rows and pages
/// of the card and the merchant go), and the other instance's subscriber sees no change.
#[test]
fn a_restore_through_one_instance_is_what_the_other_answers() {
    let Some((first, second)) = crate::instances::two_instances() else { return };
    let shop = shop(&first);
    let me = &shop.subscriber;
    buy(&first, &shop, 11.0);
    let stranger = second.subscriber();
    second.enroll_card(&stranger, TEST_PANS[1]);
    let theirs = view(&second, &stranger);
    let before = view(&second, me);
    let snapshot_id = take(&first, me, "two instances")["snapshotId"].as_i64().expect("snapshotId");
    buy(&first, &shop, 12.0);
    second.enroll_card(me, TEST_PANS[2]);
    assert_ne!(view(&second, me), before, "the second instance read the changes (and keeps them)");

    let (status, body) = restore(&first, me, snapshot_id);
    assert_eq!(status, 200, "{body}");
    assert_same(&before, &view(&second, me), "the other instance");
    assert_same(&before, &view(&first, me), "the instance that restored");
    assert_same(&theirs, &view(&second, &stranger), "another subscriber");
}
