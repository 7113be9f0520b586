//! The event catalogue from outside: every event type has its own typed payload in the OpenAPI
//! document (`webhooks`, and the `oneOf` that `GET /events` answers with), and each way a
//! person gets locked records `person.locked`.

use serde_json::Value;

use crate::helpers::{TestServer, assert_error, send};
use crate::persons::{information, onboard};

/// Every type the contract names (and the service lists in `EventType`).
pub(crate) const TYPES: [&str; 20] = [
    "card.enrolled",
    "card.removed",
    "transaction.created",
    "transaction.updated",
    "transaction.removed",
    "transaction.declined",
    "merchant.location.created",
    "merchant.location.updated",
    "merchant.location.removed",
    "account.linked",
    "account.failed",
    "account.consent_expiring",
    "account.refreshed",
    "account.removed",
    "person.verified",
    "person.locked",
    "person.removed",
    "card_session.completed",
    "card_session.expired",
    "webhook.test",
];

/// The schema a `$ref` names, or the schema itself.
fn resolved<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let pointer = reference.strip_prefix('#').expect("a local reference");
            let target = document.pointer(pointer).unwrap_or_else(|| panic!("{reference} is in the document"));
            resolved(document, target)
        }
        None => schema,
    }
}

/// An object schema with named properties; a `oneOf`/`anyOf` whose every choice is one.
fn assert_typed_object(document: &Value, schema: &Value, what: &str) {
    let schema = resolved(document, schema);
    if let Some(choices) = schema["oneOf"].as_array().or_else(|| schema["anyOf"].as_array()) {
        assert!(!choices.is_empty(), "{what}: an empty choice");
        for choice in choices {
            assert_typed_object(document, choice, what);
        }
        return;
    }
    let properties = schema["properties"].as_object().unwrap_or_else(|| panic!("{what} has properties: {schema}"));
    assert!(!properties.is_empty(), "{what} names its properties: {schema}");
    assert!(schema["required"].as_array().is_some_and(|required| !required.is_empty()), "{what}: {schema}");
}

#[test]
fn every_event_type_has_its_own_typed_payload_in_the_openapi_webhooks_and_events() {
    let server = TestServer::spawn();
    let (status, document) = send(server.get("/openapi.json"));
    assert_eq!(status, 200);
    assert!(document["openapi"].as_str().is_some_and(|version| version.starts_with("3.1")), "webhooks need 3.1");
    let webhooks = document["webhooks"].as_object().expect("a webhooks section");
    assert_eq!(webhooks.len(), TYPES.len(), "one entry per type: {:?}", webhooks.keys().collect::<Vec<_>>());
    let mut event_refs = Vec::new();
    for event_type in TYPES {
        let post = &webhooks.get(event_type).unwrap_or_else(|| panic!("{event_type} in webhooks"))["post"];
        let body = &post["requestBody"]["content"]["application/json"]["schema"];
        let reference = body["$ref"].as_str().unwrap_or_else(|| panic!("{event_type}: a named schema: {body}"));
        event_refs.push(reference.to_owned());
        let event = resolved(&document, body);
        assert_eq!(event["properties"]["type"]["enum"], serde_json::json!([event_type]), "{event_type}: {event}");
        for field in ["id", "type", "createdAt", "data"] {
            assert!(
                event["required"].as_array().is_some_and(|required| required.iter().any(|name| name == field)),
                "{event_type}: {field} required: {event}"
            );
        }
        let data = &event["properties"]["data"];
        assert!(data.get("$ref").is_some(), "{event_type}: data names its payload schema: {data}");
        assert_typed_object(&document, data, &format!("the data of {event_type}"));
    }
    let distinct: std::collections::BTreeSet<&String> = event_refs.iter().collect();
    assert_eq!(distinct.len(), TYPES.len(), "one schema per type: {event_refs:?}");

    // An event of the log is one of those typed events, told apart by `type`.
    let event = &document["components"]["schemas"]["Event"];
    let choices: Vec<&str> = event["oneOf"]
        .as_array()
        .expect("Event is a oneOf")
        .iter()
        .filter_map(|choice| choice["$ref"].as_str())
        .collect();
    assert_eq!(choices, event_refs.iter().map(String::as_str).collect::<Vec<_>>(), "{event}");
    assert_eq!(event["discriminator"]["propertyName"], "type", "{event}");
    for path in ["/events", "/events/{event_id}"] {
        let answer = &document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        assert!(
            reaches(&document, answer, "#/components/schemas/Event", 4),
            "{path} answers with typed events: {answer}"
        );
    }
}

/// Whether `schema` refers to `target`, following references `depth` deep.
fn reaches(document: &Value, schema: &Value, target: &str, depth: u32) -> bool {
    match schema {
        Value::Object(fields) => fields.iter().any(|(key, value)| match (key.as_str(), value.as_str()) {
            ("$ref", Some(reference)) => {
                reference == target || (depth > 0 && reaches(document, resolved(document, schema), target, depth - 1))
            }
            _ => reaches(document, value, target, depth),
        }),
        Value::Array(items) => items.iter().any(|item| reaches(document, item, target, depth)),
        _ => false,
    }
}

/// Question sets left unanswered count as failures when the next set is asked: the third makes
/// the lock, which is recorded as `person.locked` like a lock from wrong answers.
#[test]
fn question_sets_left_unanswered_lock_the_person_and_the_events_say_so() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    for _ in 0..3 {
        let (status, body) = send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))));
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))));
    assert_error(status, &body, 403, "forbidden");
    let locked_until = body["lockedUntil"].as_str().expect("lockedUntil").to_owned();

    let (status, page) = send(subscriber.auth(server.get("/events?type=person.locked")));
    assert_eq!(status, 200, "{page}");
    let events = page["events"].as_array().expect("events");
    assert_eq!(events.len(), 1, "{page}");
    let event = &events[0];
    assert_eq!(event["type"], "person.locked");
    assert_eq!(event["data"]["personId"], person_id);
    assert_eq!(event["data"]["status"], "locked");
    let recorded = chrono::DateTime::parse_from_rfc3339(event["data"]["lockedUntil"].as_str().expect("lockedUntil"))
        .expect("RFC 3339");
    let answered = chrono::DateTime::parse_from_rfc3339(&locked_until).expect("RFC 3339");
    assert_eq!(recorded, answered, "{event} {body}");
    let id = event["id"].as_str().expect("an id");
    let (status, mut one) = send(subscriber.auth(server.get(&format!("/events/{id}"))));
    assert_eq!(one.as_object_mut().and_then(|fields| fields.remove("error")), Some(Value::Null), "{one}");
    assert_eq!((status, &one), (200, event), "{one}");

    // Asking again while locked records nothing more.
    let (status, body) = send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))));
    assert_error(status, &body, 403, "forbidden");
    let (_, page) = send(subscriber.auth(server.get("/events?type=person.locked")));
    assert_eq!(page["events"].as_array().map(Vec::len), Some(1), "{page}");
}
