//! The Developers area's workbench: the API shell (any operation of the service's OpenAPI
//! document, sent with the session's token at a chosen version, the whole answer shown) and the
//! inspector (any id: the object, its events, the requests that named it and the deliveries of
//! its events, each naming the ids that lead on).

use reqwest::Method;
use serde::Serialize;
use serde_json::Value;
use subscriber_protocol::versions::ApiVersion;
use subscriber_protocol::{AccountId, CardId, Event, LocationId, PersonId, RequestQuery, WebhookDelivery, WebhookId};

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::requests::describe;
use crate::views::{LoggedCall, RequestHeader};

/// How deep an example body goes into nested objects.
const EXAMPLE_DEPTH: usize = 5;
/// Events read to find those of an object.
const EVENTS_READ: u32 = 500;

/// One operation the shell can compose.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ShellOperation {
    pub method: String,
    /// The path template (`/card/{card_id}`).
    pub path: String,
    pub summary: String,
    /// The reference's group (`cards`, `webhooks`).
    pub tag: String,
    pub parameters: Vec<ShellParameter>,
    /// A JSON body made from the request schema (its example, else its required fields).
    pub body_example: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ShellParameter {
    pub name: String,
    /// `path` or `query`.
    pub place: String,
    pub required: bool,
    pub description: String,
}

/// A request the shell sends.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ShellRequest {
    pub method: String,
    /// The path with its query (`/card/12/transactions?limit=5`).
    pub path: String,
    /// JSON text, or nothing.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub body: Option<String>,
    /// The API version to write it in (the newest when absent).
    #[cfg_attr(feature = "ts", ts(optional))]
    pub version: Option<String>,
}

/// What came back, whatever the status.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ShellAnswer {
    pub status: u16,
    /// `Created`, `Not Found`.
    pub status_text: String,
    pub headers: Vec<RequestHeader>,
    /// Pretty-printed when it is JSON.
    pub body: String,
    pub elapsed_ms: f64,
    /// The service's id of the request (`X-Request-Id`): the request log finds it.
    pub request_id: Option<String>,
    /// The service's address, for the snippets (`curl`, HTTPie, Python, TypeScript).
    pub base_url: String,
}

/// What an id leads to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    /// As typed.
    pub asked: String,
    /// Every object the id names (a bare number may name a card and a location alike).
    pub found: Vec<Inspected>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Inspected {
    /// `card`, `transaction`, `location`, `account`, `person`, `webhook`, `event`, `request`.
    pub kind: String,
    /// As the history names it (`cardId:12`, `evt_40`, `req_…`).
    pub id: String,
    pub title: String,
    /// The object as the service shows it, pretty-printed.
    pub json: String,
    /// Its events, newest first (of the last 500).
    pub events: Vec<Event>,
    /// The requests that named it or got it back, newest first.
    pub requests: Vec<LoggedCall>,
    /// The deliveries of its events, newest first.
    pub deliveries: Vec<InspectedDelivery>,
    /// Other ids it names, each one more inspection.
    pub related: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct InspectedDelivery {
    pub webhook_id: WebhookId,
    pub url: String,
    pub delivery: WebhookDelivery,
}

/// The kinds a bare number may be, with the key the history files it under.
const KINDS: [(&str, &str); 6] = [
    ("card", "cardId"),
    ("transaction", "transactionId"),
    ("location", "locationId"),
    ("account", "accountId"),
    ("person", "personId"),
    ("webhook", "webhookId"),
];

fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// `text` pretty-printed when it is JSON.
fn pretty_text(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| text.to_owned())
}

/// The operations of an OpenAPI document, in its order.
pub fn operations(document: &Value) -> Vec<ShellOperation> {
    let mut operations = Vec::new();
    let Some(paths) = document["paths"].as_object() else { return operations };
    for (path, item) in paths {
        let Some(item) = item.as_object() else { continue };
        for (method, operation) in item {
            if !matches!(method.as_str(), "get" | "post" | "patch" | "put" | "delete") {
                continue;
            }
            let parameters = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|parameter| {
                    let parameter = resolve(document, parameter);
                    let place = parameter["in"].as_str()?;
                    matches!(place, "path" | "query").then(|| ShellParameter {
                        name: parameter["name"].as_str().unwrap_or_default().to_owned(),
                        place: place.to_owned(),
                        required: parameter["required"].as_bool().unwrap_or(place == "path"),
                        description: parameter["description"].as_str().unwrap_or_default().to_owned(),
                    })
                })
                .collect();
            let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
            let body_example = (!schema.is_null())
                .then(|| serde_json::to_string_pretty(&example(document, schema, 0)).unwrap_or_default());
            operations.push(ShellOperation {
                method: method.to_ascii_uppercase(),
                path: path.clone(),
                summary: operation["summary"].as_str().unwrap_or_default().to_owned(),
                tag: operation["tags"][0].as_str().unwrap_or_default().to_owned(),
                parameters,
                body_example,
            });
        }
    }
    operations
}

/// `value` with its `$ref` followed (within the document).
fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    let mut value = value;
    for _ in 0..8 {
        let Some(reference) = value["$ref"].as_str() else { return value };
        let Some(pointer) = reference.strip_prefix('#') else { return value };
        match document.pointer(pointer) {
            Some(target) => value = target,
            None => return value,
        }
    }
    value
}

/// A value the schema accepts: its example, else one made from its type (an object's required
/// properties, or all of them when none is required).
pub fn example(document: &Value, schema: &Value, depth: usize) -> Value {
    let schema = resolve(document, schema);
    if let Some(example) = schema.get("example") {
        return example.clone();
    }
    if let Some(first) = schema["examples"].as_array().and_then(|examples| examples.first()) {
        return first.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|values| values.first()) {
        return first.clone();
    }
    for combined in ["allOf", "oneOf", "anyOf"] {
        if let Some(parts) = schema[combined].as_array() {
            if combined == "allOf" {
                let mut merged = serde_json::Map::new();
                for part in parts {
                    if let Value::Object(fields) = example(document, part, depth) {
                        merged.extend(fields);
                    }
                }
                return Value::Object(merged);
            }
            if let Some(first) = parts.iter().find(|part| resolve(document, part)["type"] != "null") {
                return example(document, first, depth);
            }
        }
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).find(|kind| *kind != "null").unwrap_or("null"),
        Value::String(kind) => kind.as_str(),
        _ if schema.get("properties").is_some() => "object",
        _ => "null",
    };
    match kind {
        "object" if depth < EXAMPLE_DEPTH => {
            let required: Vec<&str> =
                schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let mut fields = serde_json::Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                if required.is_empty() || required.contains(&name.as_str()) {
                    fields.insert(name.clone(), example(document, property, depth + 1));
                }
            }
            Value::Object(fields)
        }
        "array" if depth < EXAMPLE_DEPTH => Value::Array(vec![example(document, &schema["items"], depth + 1)]),
        "string" => Value::String(match schema["format"].as_str() {
            Some("date") => "2026-01-31".to_owned(),
            Some("date-time") => "2026-01-31T12:00:00Z".to_owned(),
            Some("uri") => "https://example.com/webhooks".to_owned(),
            Some("email") => "ada@example.com".to_owned(),
            _ => String::new(),
        }),
        "integer" => Value::from(schema["minimum"].as_i64().unwrap_or(1).max(1)),
        "number" => Value::from(schema["minimum"].as_f64().unwrap_or(1.0).max(1.0)),
        "boolean" => Value::Bool(false),
        "object" => Value::Object(serde_json::Map::new()),
        "array" => Value::Array(Vec::new()),
        _ => Value::Null,
    }
}

/// `(kind, key, number)` for `cardId:12`; a bare `12` is every kind.
fn parse_object(asked: &str) -> Vec<(&'static str, &'static str, i64)> {
    let (key, number) = match asked.split_once(':') {
        Some((key, number)) => (Some(key.trim()), number.trim()),
        None => (None, asked),
    };
    let Ok(number) = number.parse::<i64>() else { return Vec::new() };
    if number < 1 {
        return Vec::new();
    }
    KINDS
        .iter()
        .filter(|(kind, name)| key.is_none_or(|key| key.eq_ignore_ascii_case(name) || key.eq_ignore_ascii_case(kind)))
        .map(|(kind, name)| (*kind, *name, number))
        .collect()
}

/// The ids an event's data names, as the history files them (`cardId:12`).
fn ids_in(value: &Value, ids: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields {
                if name.ends_with("Id") && (field.is_i64() || field.is_string()) {
                    let id = match field {
                        Value::String(text) => format!("{name}:{text}"),
                        other => format!("{name}:{other}"),
                    };
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                } else {
                    ids_in(field, ids);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| ids_in(item, ids)),
        _ => {}
    }
}

impl Dashboard {
    /// The operations of the connected service's OpenAPI document.
    pub async fn shell_operations(&self) -> Result<Vec<ShellOperation>, CommandError> {
        let document = self.client().await?.openapi().await?;
        Ok(operations(&document))
    }

    /// Sends one request as the shell composed it, with the session's token.
    pub async fn send_shell_request(&self, request: ShellRequest) -> Result<ShellAnswer, CommandError> {
        let method = Method::from_bytes(request.method.trim().to_ascii_uppercase().as_bytes())
            .map_err(|_| CommandError::invalid_input("method", "is not an HTTP method"))?;
        let version = match request.version.as_deref().map(str::trim).filter(|version| !version.is_empty()) {
            Some(version) => Some(
                ApiVersion::parse(version)
                    .ok_or_else(|| CommandError::invalid_input("version", "is not a version of the API"))?,
            ),
            None => None,
        };
        let body = match request.body.as_deref().map(str::trim).filter(|body| !body.is_empty()) {
            Some(body) => {
                serde_json::from_str::<Value>(body)
                    .map_err(|error| CommandError::invalid_input("body", format!("is not JSON: {error}")))?;
                Some(body.as_bytes().to_vec())
            }
            None => None,
        };
        let base_url = self.connection().await?.base_url;
        let answer = self.client().await?.send_raw(method, request.path.trim(), body, version).await?;
        let request_id = answer
            .headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("x-request-id"))
            .map(|(_, value)| value.clone());
        Ok(ShellAnswer {
            status: answer.status,
            status_text: reqwest::StatusCode::from_u16(answer.status)
                .ok()
                .and_then(|status| status.canonical_reason())
                .unwrap_or("")
                .to_owned(),
            headers: answer.headers.iter().map(|(name, value)| RequestHeader::new(name, value.clone())).collect(),
            body: pretty_text(&String::from_utf8_lossy(&answer.body)),
            elapsed_ms: (answer.elapsed_ms * 10.0).round() / 10.0,
            request_id,
            base_url,
        })
    }

    /// Everything the id leads to: the object, its events, the requests that named it, the
    /// deliveries of its events.
    pub async fn inspect(&self, asked: String) -> Result<Inspection, CommandError> {
        let asked = asked.trim().to_owned();
        if asked.is_empty() || asked.len() > 120 {
            return Err(CommandError::invalid_input("id", "type an id: 12, cardId:12, evt_40, req_…"));
        }
        let client = self.client().await?;
        let base_url = self.connection().await?.base_url;
        let mut found = Vec::new();
        let events: Vec<Event> = client.events().limit(EVENTS_READ).await.map(|page| page.events).unwrap_or_default();
        if asked.starts_with("req_") {
            if let Ok(detail) = client.request(&asked).await {
                let view = crate::requests::detail(detail, &base_url);
                let related = view.object_ids.clone();
                found.push(Inspected {
                    kind: "request".to_owned(),
                    id: asked.clone(),
                    title: format!("{} {}", view.call.request.method, view.call.request.path),
                    json: pretty(&view),
                    events: Vec::new(),
                    requests: vec![view.call],
                    deliveries: Vec::new(),
                    related,
                });
            }
        } else if asked.starts_with("evt_") {
            let event = match events.iter().find(|event| event.id == asked) {
                Some(event) => Some(event.clone()),
                None => client.event(&asked).await.ok(),
            };
            if let Some(event) = event {
                let mut related = Vec::new();
                ids_in(&serde_json::to_value(&event).unwrap_or_default(), &mut related);
                found.push(Inspected {
                    kind: "event".to_owned(),
                    id: asked.clone(),
                    title: event.event_type().as_str().to_owned(),
                    json: pretty(&event),
                    requests: self.requests_naming(&asked, &base_url).await,
                    deliveries: self.deliveries_of(std::slice::from_ref(&asked)).await,
                    events: vec![event],
                    related,
                });
            }
        } else {
            for (kind, key, number) in parse_object(&asked) {
                let id = format!("{key}:{number}");
                let object: Option<Value> = match kind {
                    "card" => client.card(CardId(number)).await.ok().and_then(|card| serde_json::to_value(card).ok()),
                    "account" => client
                        .account(AccountId(number))
                        .await
                        .ok()
                        .and_then(|account| serde_json::to_value(account).ok()),
                    "person" => {
                        client.person(PersonId(number)).await.ok().and_then(|person| serde_json::to_value(person).ok())
                    }
                    "location" => client
                        .get_location(LocationId(number))
                        .await
                        .ok()
                        .and_then(|location| serde_json::to_value(location).ok()),
                    "webhook" => client
                        .webhook(WebhookId(number))
                        .await
                        .ok()
                        .and_then(|webhook| serde_json::to_value(webhook).ok()),
                    // A transaction as its newest event shows it.
                    _ => events.iter().find_map(|event| {
                        let value = serde_json::to_value(event).ok()?;
                        let mut ids = Vec::new();
                        ids_in(&value, &mut ids);
                        ids.contains(&id).then(|| value["data"]["transaction"].clone()).filter(|value| !value.is_null())
                    }),
                };
                let Some(object) = object else { continue };
                let its_events: Vec<Event> = events
                    .iter()
                    .filter(|event| {
                        let mut ids = Vec::new();
                        ids_in(&serde_json::to_value(event).unwrap_or_default(), &mut ids);
                        ids.contains(&id)
                    })
                    .cloned()
                    .collect();
                let event_ids: Vec<String> = its_events.iter().map(|event| event.id.clone()).collect();
                let mut related = Vec::new();
                ids_in(&object, &mut related);
                related.retain(|other| other != &id);
                related.extend(event_ids.iter().take(10).cloned());
                found.push(Inspected {
                    kind: kind.to_owned(),
                    id: id.clone(),
                    title: format!("{kind} {number}"),
                    json: pretty(&object),
                    requests: self.requests_naming(&id, &base_url).await,
                    deliveries: self.deliveries_of(&event_ids).await,
                    events: its_events,
                    related,
                });
            }
        }
        Ok(Inspection { asked, found })
    }

    /// The requests of the history that named `id`, newest first.
    async fn requests_naming(&self, id: &str, base_url: &str) -> Vec<LoggedCall> {
        let Ok(client) = self.client().await else { return Vec::new() };
        let query = RequestQuery { object_id: Some(id.to_owned()), ..RequestQuery::default() };
        match client.requests().query(query).await {
            Ok(page) => page.requests.into_iter().map(|request| describe(request, base_url)).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The deliveries of these events to every endpoint, newest first.
    async fn deliveries_of(&self, event_ids: &[String]) -> Vec<InspectedDelivery> {
        if event_ids.is_empty() {
            return Vec::new();
        }
        let Ok(client) = self.client().await else { return Vec::new() };
        let mut deliveries = Vec::new();
        for webhook in client.webhooks().await.unwrap_or_default() {
            let Ok(page) = client.webhook_deliveries(webhook.webhook_id).limit(500).await else { continue };
            deliveries.extend(
                page.deliveries.into_iter().filter(|delivery| event_ids.contains(&delivery.event_id)).map(|delivery| {
                    InspectedDelivery { webhook_id: webhook.webhook_id, url: webhook.url.clone(), delivery }
                }),
            );
        }
        deliveries.sort_by_key(|sent| std::cmp::Reverse(sent.delivery.at));
        deliveries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_example_body_is_made_from_the_schema() {
        let document = serde_json::json!({
            "components": {"schemas": {
                "Card": {"type": "object", "required": ["pan", "expMonth", "tags"], "properties": {
                    "pan": {"type": "string", "example": "4242424242424242"},
                    "expMonth": {"type": "integer", "minimum": 1},
                    "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Kind"}},
                    "note": {"type": ["string", "null"]}
                }},
                "Kind": {"type": "string", "enum": ["credit", "debit"]}
            }}
        });
        let made = example(&document, &serde_json::json!({"$ref": "#/components/schemas/Card"}), 0);
        assert_eq!(made, serde_json::json!({"pan": "4242424242424242", "expMonth": 1, "tags": ["credit"]}));
    }

    #[test]
    fn an_id_names_its_kind_or_every_kind() {
        assert_eq!(parse_object("cardId:12"), [("card", "cardId", 12)]);
        assert_eq!(parse_object("12").len(), KINDS.len());
        assert!(parse_object("abc").is_empty() && parse_object("0").is_empty());
    }
}
