//! Versions at every exit. An answer leaves the service by several ways, and each one must write
//! it in its version: the version middleware (`http::versions::reshape`, `RenderedAt`), the
//! pages written once per version and kept (`ledger`, `Shaped`: card and merchant transactions,
//! sync), an idempotent replay, the webhook deliveries (at the endpoint's version), the
//! transaction streams, the event log and the request history (the answer as it went out, one by
//! id and in the NDJSON export). The kept pages, the deliveries and the streams are written past
//! the middleware, by `Published::answer_at`.
//!
//! Two subscribers on one server, one pinned at each version, read the same kinds of objects
//! through every exit, at their pin and at the other version by `Subscriber-Version`, and every
//! body is walked key by key. At `2026-12-01` no key is snake_case (nor a name only
//! `2026-11-21` has, such as `ID`). At `2026-11-21` no key is a name only `2026-12-01` has. The
//! names only one version has are read from the two versions' OpenAPI documents, and where an
//! exit's objects differ between the versions the names it must show are listed with it. (The
//! seed's `2026-11-21` was already camelCase in most places: `transactionId`, `createdAt`.)
//!
//! An exit added to the service belongs in [`exits`]; an exit that skips the version fails here.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use reqwest::blocking::RequestBuilder;
use serde_json::{Value, json};
use subscriber_testkit::WebhookReceiver;

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TEST_PAN, TestServer, read, send};
use crate::merchants::{create_location, merchant_body};
use crate::realtime::EventStream;
use crate::sandbox::purchase;
use crate::versions::subscriber_at;
use crate::webhooks::add_receiver;

const FIRST: &str = "2026-11-21";
const NEWEST: &str = "2026-12-01";
const HEADER: &str = "Subscriber-Version";
/// The longest wait for a webhook delivery.
const WAIT: Duration = Duration::from_secs(30);
const MERCHANT: &str = "Exit Cafe";

/// A subscriber pinned at `version`, with a webhook endpoint, a card, a merchant (enrolled with
/// an `Idempotency-Key`, to replay) and two sales.
struct Pinned {
    version: &'static str,
    subscriber: Subscriber,
    receiver: WebhookReceiver,
    webhook_id: i64,
    card_id: i64,
    merchant_id: i64,
    merchant_key: String,
}

impl Pinned {
    fn sign_up(server: &TestServer, version: &'static str) -> Self {
        let (subscriber, _) = subscriber_at(server, version);
        let receiver = WebhookReceiver::start();
        let (webhook_id, _) = add_receiver(server, &subscriber, &receiver, &["*"]);
        let card_id = server.enroll_card(&subscriber, TEST_PAN);
        let merchant_key = uuid::Uuid::new_v4().to_string();
        let enroll = server.post("/merchant", &merchant_body(MERCHANT)).header("Idempotency-Key", &merchant_key);
        let (status, merchant) = send(subscriber.auth(enroll));
        assert_eq!(status, 201, "{merchant}");
        let merchant_id = merchant["merchantId"].as_i64().expect("merchantId");
        let location_id = create_location(server, &subscriber, "Exit St");
        for amount in [4.5, 12.25] {
            purchase(server, &subscriber, &json!({ "cardId": card_id, "locationId": location_id, "amount": amount }));
        }
        Self { version, subscriber, receiver, webhook_id, card_id, merchant_id, merchant_key }
    }
}

/// A pinned subscriber reading at its pin, or at the version its `Subscriber-Version` names.
struct Reader<'a> {
    server: &'a TestServer,
    pinned: &'a Pinned,
    header: Option<&'static str>,
}

impl Reader<'_> {
    fn version(&self) -> &'static str {
        self.header.unwrap_or(self.pinned.version)
    }

    /// The request with the reader's `Subscriber-Version`, if it names one.
    fn versioned(&self, request: RequestBuilder) -> RequestBuilder {
        match self.header {
            Some(version) => request.header(HEADER, version),
            None => request,
        }
    }

    fn authorized(&self, request: RequestBuilder) -> RequestBuilder {
        self.versioned(self.pinned.subscriber.auth(request))
    }

    /// Sends as this reader; the answer must be a success said to be in the reader's version.
    /// Returns its request id and body.
    fn call(&self, request: RequestBuilder, what: &str) -> (String, Value) {
        self.answer(self.authorized(request), what)
    }

    /// As [`Reader::call`], `request` sent as it is.
    fn answer(&self, request: RequestBuilder, what: &str) -> (String, Value) {
        let response = request.send().expect("request sent");
        let header = |name: &str| {
            response.headers().get(name).and_then(|value| value.to_str().ok()).unwrap_or_default().to_owned()
        };
        let (answered, request_id) = (header(HEADER), header("x-request-id"));
        let (status, body) = read(response);
        assert!((200..300).contains(&status), "{what}: {status} {body}");
        assert_eq!(answered, self.version(), "{what}: answered in the reader's version");
        (request_id, body)
    }

    fn get(&self, path: &str) -> Value {
        self.call(self.server.get(path), &format!("GET {path}")).1
    }

    /// The same page read twice: the second read is answered from what the first kept.
    fn twice(&self, path: &str) -> Vec<Value> {
        vec![self.get(path), self.get(path)]
    }

    /// Every transaction a stream replays from its beginning (`Last-Event-ID: 0`): the two sales.
    fn streamed(&self, path: &str) -> Vec<Value> {
        let stream = EventStream::open_at(self.server, &self.pinned.subscriber, path, Some("0"), Some(self.version()));
        (0..2).map(|_| stream.next_transaction().1).collect()
    }

    /// A request of the reader's (`GET /subscriber`) and its id, for the request history.
    fn profile_request(&self) -> String {
        self.call(self.server.get("/subscriber"), "GET /subscriber").0
    }
}

/// One way an answer leaves the service.
struct Exit {
    name: &'static str,
    /// Names its bodies show at `2026-11-21` and not at `2026-12-01`, and the other way round
    /// (none where its objects look alike in both versions).
    first: &'static [&'static str],
    newest: &'static [&'static str],
    /// Whether a request's `Subscriber-Version` chooses its version (not for a webhook: its
    /// endpoint's version does).
    per_request: bool,
    bodies: fn(&Reader) -> Vec<Value>,
}

fn exits() -> Vec<Exit> {
    vec![
        Exit {
            name: "HTTP answer (GET /subscriber)",
            first: &["client_id", "public_key"],
            newest: &["clientId", "publicKey"],
            per_request: true,
            bodies: |reader| vec![reader.get("/subscriber")],
        },
        Exit {
            name: "HTTP answer at another version than asked (POST /subscriber/login, RenderedAt)",
            first: &["validity_seconds"],
            newest: &["validitySeconds"],
            per_request: true,
            bodies: |reader| {
                // No token: read at the header's version, else the first; answered at the
                // header's version, else the pin of the account it logs in to.
                let key = if reader.header.unwrap_or(FIRST) == FIRST { "api_key" } else { "apiKey" };
                let subscriber = &reader.pinned.subscriber;
                let login = reader
                    .server
                    .post("/subscriber/login", &json!({ "email": subscriber.email, key: subscriber.secret }));
                vec![reader.answer(reader.versioned(login), "POST /subscriber/login").1]
            },
        },
        Exit {
            name: "HTTP answer (GET /events)",
            first: &["next_cursor"],
            newest: &["nextCursor"],
            per_request: true,
            bodies: |reader| vec![reader.get("/events?limit=5")],
        },
        Exit {
            name: "idempotent replay (POST /merchant again with its Idempotency-Key)",
            first: &["mechantId"],
            newest: &[],
            per_request: true,
            bodies: |reader| {
                let pinned = reader.pinned;
                let enroll = reader.server.post("/merchant", &merchant_body(MERCHANT));
                let (_, replayed) =
                    reader.call(enroll.header("Idempotency-Key", &pinned.merchant_key), "POST /merchant (replayed)");
                assert_eq!(replayed["merchantId"], pinned.merchant_id, "{replayed}");
                vec![replayed]
            },
        },
        Exit {
            name: "kept card page (GET /card/{id}/transactions, read twice)",
            first: &["next_cursor"],
            newest: &["nextCursor"],
            per_request: true,
            bodies: |reader| reader.twice(&format!("/card/{}/transactions?limit=3", reader.pinned.card_id)),
        },
        Exit {
            name: "kept merchant page (GET /merchant/{id}/transactions, read twice)",
            first: &["next_cursor"],
            newest: &["nextCursor"],
            per_request: true,
            bodies: |reader| reader.twice(&format!("/merchant/{}/transactions?limit=3", reader.pinned.merchant_id)),
        },
        Exit {
            name: "sync page (GET /card/{id}/transactions/sync, read twice)",
            first: &["next_cursor", "has_more"],
            newest: &["nextCursor", "hasMore"],
            per_request: true,
            bodies: |reader| reader.twice(&format!("/card/{}/transactions/sync?count=3", reader.pinned.card_id)),
        },
        // The objects of the exits below (a card's and a merchant's transaction, an event) look
        // the same in both versions today: no change touches them yet. Their rows hold them to
        // each version's names, so an exit that skips the version fails from the first change
        // that does.
        Exit {
            name: "card stream (GET /card/{id}/transactions/stream)",
            first: &[],
            newest: &[],
            per_request: true,
            bodies: |reader| reader.streamed(&format!("/card/{}/transactions/stream", reader.pinned.card_id)),
        },
        Exit {
            name: "merchant stream (GET /merchant/{id}/transactions/stream)",
            first: &[],
            newest: &[],
            per_request: true,
            bodies: |reader| reader.streamed(&format!("/merchant/{}/transactions/stream", reader.pinned.merchant_id)),
        },
        Exit {
            name: "event log, one event (GET /events/{id})",
            first: &[],
            newest: &[],
            per_request: true,
            bodies: |reader| {
                let page = reader.get("/events?limit=5");
                let events = page["events"].as_array().expect("events");
                assert!(!events.is_empty(), "{page}");
                events
                    .iter()
                    .map(|event| reader.get(&format!("/events/{}", event["id"].as_str().expect("id"))))
                    .collect()
            },
        },
        Exit {
            name: "webhook deliveries (the endpoint's version)",
            first: &[],
            newest: &[],
            per_request: false,
            bodies: |reader| {
                let pinned = reader.pinned;
                reader.call(reader.server.post(&format!("/webhooks/{}/test", pinned.webhook_id), &json!({})), "test");
                // Until each kind of event made so far has come, in whatever order they do.
                let mut waiting: BTreeSet<&str> = ["card.enrolled", "transaction.created", "webhook.test"].into();
                let mut bodies = Vec::new();
                let deadline = Instant::now() + WAIT;
                while !waiting.is_empty() {
                    let delivery = pinned
                        .receiver
                        .next_accepted(deadline.saturating_duration_since(Instant::now()))
                        .unwrap_or_else(|| panic!("no delivery of {waiting:?} within {WAIT:?}"));
                    let event = delivery.json();
                    waiting.remove(event["type"].as_str().unwrap_or_default());
                    bodies.push(event);
                }
                bodies
            },
        },
        Exit {
            name: "request history, one request (GET /subscriber/requests/{id}) and the answer it kept",
            first: &["client_id"],
            newest: &["clientId"],
            per_request: true,
            bodies: |reader| {
                let request_id = reader.profile_request();
                let detail = reader.get(&format!("/subscriber/requests/{request_id}"));
                let kept = kept_answer(&detail);
                vec![detail, kept]
            },
        },
        Exit {
            name: "request history list and NDJSON export (GET /subscriber/requests) and the answers kept",
            first: &["client_id"],
            newest: &["clientId"],
            per_request: true,
            bodies: |reader| {
                let request_id = reader.profile_request();
                let path = format!("/subscriber/requests?requestId={request_id}");
                let mut bodies = vec![reader.get(&path)];
                let export = reader.server.get(&path).header("accept", "application/x-ndjson");
                let text = reader.authorized(export).send().expect("export").text().expect("export read");
                let lines: Vec<Value> =
                    text.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect();
                assert_eq!(lines.len(), 1, "{text}");
                bodies.push(kept_answer(&lines[0]));
                bodies.extend(lines);
                bodies
            },
        },
    ]
}

/// The answer a request history entry kept, as JSON.
fn kept_answer(entry: &Value) -> Value {
    let text = entry["responseBody"].as_str().unwrap_or_else(|| panic!("an answer kept: {entry}"));
    serde_json::from_str(text).unwrap_or_else(|_| panic!("the kept answer is whole JSON: {entry}"))
}

/// Every key in `value`, with where it is (`body 0.transactions[0].merchantName`).
fn keys(value: &Value, at: &str, found: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                let path = format!("{at}.{key}");
                found.push((key.clone(), path.clone()));
                keys(value, &path, found);
            }
        }
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(index, item)| keys(item, &format!("{at}[{index}]"), found));
        }
        _ => {}
    }
}

/// Every property name of a version's OpenAPI document.
fn property_names(document: &Value, found: &mut BTreeSet<String>) {
    match document {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                found.extend(properties.keys().cloned());
            }
            map.values().for_each(|value| property_names(value, found));
        }
        Value::Array(items) => items.iter().for_each(|value| property_names(value, found)),
        _ => {}
    }
}

/// A name of words joined by `_` (`next_cursor`).
fn is_snake_case(key: &str) -> bool {
    key.contains('_')
}

#[test]
fn every_exit_writes_its_answer_in_the_readers_version() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--settle-after-seconds", "3600"]);
    // The names only one version has, from the versions' own documents.
    let names = |version: &str| {
        let (status, document) = send(server.get(&format!("/openapi.json?version={version}")));
        assert_eq!(status, 200, "{document}");
        let mut names = BTreeSet::new();
        property_names(&document["components"]["schemas"], &mut names);
        names
    };
    let (first_names, newest_names) = (names(FIRST), names(NEWEST));
    let only_first: BTreeSet<&String> = first_names.difference(&newest_names).collect();
    let only_newest: BTreeSet<&String> = newest_names.difference(&first_names).collect();
    assert!(only_first.iter().any(|name| *name == "next_cursor"), "{only_first:?}");
    assert!(only_newest.iter().any(|name| *name == "hasMore"), "{only_newest:?}");

    let pinned = [Pinned::sign_up(&server, FIRST), Pinned::sign_up(&server, NEWEST)];
    let readers = pinned.iter().flat_map(|pinned| {
        let other = if pinned.version == FIRST { NEWEST } else { FIRST };
        [Reader { server: &server, pinned, header: None }, Reader { server: &server, pinned, header: Some(other) }]
    });
    let exits = exits();
    for reader in readers {
        let version = reader.version();
        let (shown, hidden) = if version == FIRST { (0, 1) } else { (1, 0) };
        for exit in exits.iter().filter(|exit| exit.per_request || reader.header.is_none()) {
            let who = format!("{}, read at {version} by a subscriber pinned at {}", exit.name, reader.pinned.version);
            let bodies = (exit.bodies)(&reader);
            assert!(!bodies.is_empty(), "{who}: no body");
            let mut found = Vec::new();
            bodies.iter().enumerate().for_each(|(index, body)| keys(body, &format!("body {index}"), &mut found));
            for (key, path) in &found {
                if version == NEWEST {
                    assert!(!is_snake_case(key), "{who}: snake_case key `{path}`");
                    assert!(!only_first.contains(key), "{who}: `{path}` is a name of {FIRST} only");
                } else {
                    assert!(!only_newest.contains(key), "{who}: `{path}` is a name of {NEWEST} only");
                }
            }
            let marks = [exit.first, exit.newest];
            for mark in marks[shown] {
                assert!(found.iter().any(|(key, _)| key == mark), "{who}: no `{mark}` in {}", json!(bodies));
            }
            for mark in marks[hidden] {
                let at = found.iter().find(|(key, _)| key == mark).map(|(_, path)| path);
                assert!(at.is_none(), "{who}: `{}` is the other version's name", at.map_or("", String::as_str));
            }
        }
    }
}
