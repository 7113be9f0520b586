//! Applying the changes to JSON: answers back (newest → asked), requests forward (sent →
//! newest), and the field names of error details back.
//!
//! Which schema holds which comes from the newest OpenAPI document (`$ref`s of properties and
//! list items), so a change that names a schema reaches it wherever it is nested. A schema
//! written as an `allOf` (a Rust struct with a flattened one: a card's transaction is its own
//! fields and a `TransactionEnrichment`'s) has the properties of all its parts, and an object of
//! it is also an object of each schema it names there: a change to `TransactionEnrichment`
//! reaches every transaction.
//!
//! Answers are walked on the raw text: only the objects on the way to a changed schema are read,
//! and everything else is copied as it was sent (a page of 5,000 transactions whose only change
//! is the page's own `nextCursor` is not parsed item by item).

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{ApiVersion, Instruction, VersionChange};

/// The changes, ready to apply.
#[derive(Debug, Clone, Default)]
pub struct Versioning {
    /// Schema → property → the schema it holds (an object, a list of them, or either or null).
    children: HashMap<String, HashMap<String, String>>,
    /// Schema → the schemas an object of it also is, however deep (`$ref`s of its `allOf`).
    includes: HashMap<String, HashSet<String>>,
    /// Schema → the property that tells its choices apart and, by its value, the schema chosen:
    /// a `oneOf` with a discriminator (an event is one of the typed events, by `type`).
    choices: HashMap<String, (String, HashMap<String, String>)>,
    /// Per version (its position in [`ApiVersion::ALL`]): the schemas an answer transformation
    /// visits, those changed and those holding one.
    answers: Vec<HashSet<String>>,
    /// The same for requests.
    requests: Vec<HashSet<String>>,
}

const SCHEMA_REF: &str = "#/components/schemas/";

impl Versioning {
    /// From the newest version's OpenAPI document (its `components.schemas`).
    pub fn from_document(document: &Value) -> Self {
        let mut children: HashMap<String, HashMap<String, String>> = HashMap::new();
        let mut choices: HashMap<String, (String, HashMap<String, String>)> = HashMap::new();
        let mut includes: HashMap<String, HashSet<String>> = HashMap::new();
        let schemas = document.pointer("/components/schemas").and_then(Value::as_object);
        for (name, schema) in schemas.into_iter().flatten() {
            let discriminator = &schema["discriminator"];
            if let (Some(property), Some(mapping)) =
                (discriminator["propertyName"].as_str(), discriminator["mapping"].as_object())
            {
                let by_value = mapping
                    .iter()
                    .filter_map(|(value, target)| {
                        Some((value.clone(), target.as_str()?.strip_prefix(SCHEMA_REF)?.to_owned()))
                    })
                    .collect();
                choices.insert(name.clone(), (property.to_owned(), by_value));
            }
            // Its own properties and those of its inline `allOf` parts; the parts it names are
            // schemas it also is.
            let parts = schema.get("allOf").and_then(Value::as_array).into_iter().flatten();
            for part in std::iter::once(schema).chain(parts) {
                if let Some(included) = part.get("$ref").and_then(Value::as_str) {
                    if let Some(included) = included.strip_prefix(SCHEMA_REF) {
                        includes.entry(name.clone()).or_default().insert(included.to_owned());
                    }
                    continue;
                }
                let properties = part.get("properties").and_then(Value::as_object);
                for (property, value) in properties.into_iter().flatten() {
                    if let Some(child) = referenced_schema(value) {
                        children.entry(name.clone()).or_default().insert(property.clone(), child.to_owned());
                    }
                }
            }
        }
        let includes = transitive(includes);
        for (schema, included) in &includes {
            let inherited: Vec<(String, String)> = included
                .iter()
                .filter_map(|part| children.get(part))
                .flat_map(|held| held.iter().map(|(property, child)| (property.clone(), child.clone())))
                .collect();
            children.entry(schema.clone()).or_default().extend(inherited);
        }
        let visited = |shapes: fn(&Instruction) -> bool| {
            ApiVersion::ALL
                .into_iter()
                .map(|version| {
                    let changed: HashSet<&str> = version
                        .changes_since()
                        .flat_map(|change| change.instructions)
                        .filter(|instruction| shapes(instruction))
                        .map(Instruction::schema)
                        .collect();
                    holding(&children, &choices, &includes, &changed)
                })
                .collect::<Vec<_>>()
        };
        let answers = visited(Instruction::shapes_answers);
        let requests = visited(Instruction::shapes_requests);
        Self { children, includes, choices, answers, requests }
    }

    /// Whether an object of `schema` is also one of `named` (the schema an instruction names).
    fn is_a(&self, schema: &str, named: &str) -> bool {
        schema == named || self.includes.get(schema).is_some_and(|included| included.contains(named))
    }

    fn position(version: ApiVersion) -> usize {
        ApiVersion::ALL.iter().position(|known| *known == version).unwrap_or(ApiVersion::ALL.len() - 1)
    }

    /// Whether an answer of `schema` looks different at `version` than at the newest.
    pub fn changes_answer(&self, version: ApiVersion, schema: &str) -> bool {
        self.answers.get(Self::position(version)).is_some_and(|visited| visited.contains(schema))
    }

    /// Whether a request of `schema` sent at `version` is read differently than at the newest.
    pub fn changes_request(&self, version: ApiVersion, schema: &str) -> bool {
        self.requests.get(Self::position(version)).is_some_and(|visited| visited.contains(schema))
    }

    /// Whether a request of `schema` at `version` may come without a body (it then counts as `{}`).
    pub fn body_optional(&self, version: ApiVersion, schema: &str) -> bool {
        changes_after(version).flat_map(|change| change.instructions).any(|instruction| {
            matches!(instruction, Instruction::BecameRequired { schema: changed, .. } if self.is_a(schema, changed))
        })
    }

    /// An answer of `schema` built at the newest version, as `version` writes it; `None` when
    /// the two are the same. Keys keep their order; what no change touches is copied as sent.
    pub fn response_to(
        &self,
        version: ApiVersion,
        schema: &str,
        body: &[u8],
    ) -> Result<Option<Vec<u8>>, serde_json::Error> {
        if !self.changes_answer(version, schema) {
            return Ok(None);
        }
        let text = std::str::from_utf8(body).map_err(serde::de::Error::custom)?;
        let raw: &RawValue = serde_json::from_str(text)?;
        let mut written = String::with_capacity(body.len() + 64);
        self.answer_back(version, schema, raw, &mut written)?;
        Ok(Some(written.into_bytes()))
    }

    fn answer_back(
        &self,
        version: ApiVersion,
        schema: &str,
        raw: &RawValue,
        written: &mut String,
    ) -> Result<(), serde_json::Error> {
        let text = raw.get();
        if let Some((property, by_value)) = self.choices.get(schema)
            && text.trim_start().starts_with('{')
        {
            // One of the choices, by the value of `property`: written as that choice is.
            let Entries(entries) = serde_json::from_str(text)?;
            let chosen = entries
                .iter()
                .find(|(key, _)| key == property)
                .and_then(|(_, value)| serde_json::from_str::<String>(value.get()).ok())
                .and_then(|value| by_value.get(&value))
                .filter(|choice| self.answers[Self::position(version)].contains(*choice));
            match chosen {
                Some(choice) => self.answer_back(version, choice, raw, written)?,
                None => written.push_str(text),
            }
            return Ok(());
        }
        match text.trim_start().as_bytes().first() {
            Some(b'{') => {
                let Entries(entries) = serde_json::from_str(text)?;
                let children = self.children.get(schema);
                let visited = &self.answers[Self::position(version)];
                let mut fields = Vec::with_capacity(entries.len());
                for (key, value) in entries {
                    let child =
                        children.and_then(|children| children.get(&key)).filter(|child| visited.contains(*child));
                    let value = match child {
                        Some(child) => {
                            let mut nested = String::new();
                            self.answer_back(version, child, value, &mut nested)?;
                            nested
                        }
                        None => value.get().to_owned(),
                    };
                    fields.push((key, value));
                }
                for change in version.changes_since() {
                    for instruction in
                        change.instructions.iter().rev().filter(|instruction| self.is_a(schema, instruction.schema()))
                    {
                        undo_in_answer(instruction, &mut fields);
                    }
                }
                written.push('{');
                for (index, (key, value)) in fields.iter().enumerate() {
                    if index > 0 {
                        written.push(',');
                    }
                    written.push_str(&serde_json::to_string(key)?);
                    written.push(':');
                    written.push_str(value);
                }
                written.push('}');
            }
            Some(b'[') => {
                let items: Vec<&RawValue> = serde_json::from_str(text)?;
                written.push('[');
                for (index, item) in items.into_iter().enumerate() {
                    if index > 0 {
                        written.push(',');
                    }
                    self.answer_back(version, schema, item, written)?;
                }
                written.push(']');
            }
            _ => written.push_str(text),
        }
        Ok(())
    }

    /// A request body of `schema` sent at `version`, made what the newest version reads.
    pub fn request_from(&self, version: ApiVersion, schema: &str, body: &mut Value) {
        if self.changes_request(version, schema) {
            self.request_forward(version, schema, body);
        }
    }

    fn request_forward(&self, version: ApiVersion, schema: &str, body: &mut Value) {
        match body {
            Value::Object(fields) => {
                for change in changes_after(version) {
                    for instruction in
                        change.instructions.iter().filter(|instruction| self.is_a(schema, instruction.schema()))
                    {
                        redo_in_request(instruction, fields);
                    }
                }
                let visited = &self.requests[Self::position(version)];
                for (property, child) in self.children.get(schema).into_iter().flatten() {
                    if visited.contains(child)
                        && let Some(value) = fields.get_mut(property)
                    {
                        self.request_forward(version, child, value);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.request_forward(version, schema, item)),
            _ => {}
        }
    }

    /// A field of an error's `details` (`location.zip`, `answers[0].choiceId`), named in a
    /// request of `schema`, as `version` names it; `None` when it is the same.
    pub fn error_field_to(&self, version: ApiVersion, schema: &str, field: &str) -> Option<String> {
        if !self.changes_request(version, schema) {
            return None;
        }
        let mut current = Some(schema.to_owned());
        let mut renamed = Vec::new();
        let mut changed = false;
        for segment in field.split('.') {
            // `answers[0]`: the name, then its indexes.
            let cut = segment.find('[').unwrap_or(segment.len());
            let (name, indexes) = segment.split_at(cut);
            let older = current.as_deref().map_or(name, |schema| self.older_name(version, schema, name));
            changed |= older != name;
            renamed.push(format!("{older}{indexes}"));
            current = current
                .as_deref()
                .and_then(|schema| self.children.get(schema))
                .and_then(|children| children.get(name))
                .cloned();
        }
        changed.then(|| renamed.join("."))
    }

    /// A property's name at `version`, from its newest name.
    fn older_name<'a>(&self, version: ApiVersion, schema: &str, newest: &'a str) -> &'a str {
        let mut name = newest;
        for change in version.changes_since() {
            for instruction in change.instructions.iter().rev() {
                if let Instruction::PropertyRenamed { schema: changed, older, newer } = instruction
                    && self.is_a(schema, changed)
                    && *newer == name
                {
                    name = older;
                }
            }
        }
        name
    }
}

/// Each schema's `allOf` parts, with theirs, however deep (a part naming its includer again
/// ends the walk rather than looping).
fn transitive(direct: HashMap<String, HashSet<String>>) -> HashMap<String, HashSet<String>> {
    direct
        .keys()
        .map(|schema| {
            let mut reached: HashSet<String> = HashSet::new();
            let mut next: Vec<&String> = direct[schema].iter().collect();
            while let Some(part) = next.pop() {
                if part != schema && reached.insert(part.clone()) {
                    next.extend(direct.get(part).into_iter().flatten());
                }
            }
            (schema.clone(), reached)
        })
        .collect()
}

/// The schemas that are `changed`, are one (`allOf`) or hold one, however deep.
fn holding(
    children: &HashMap<String, HashMap<String, String>>,
    choices: &HashMap<String, (String, HashMap<String, String>)>,
    includes: &HashMap<String, HashSet<String>>,
    changed: &HashSet<&str>,
) -> HashSet<String> {
    let mut visited: HashSet<String> = changed.iter().map(|schema| (*schema).to_owned()).collect();
    loop {
        let held = children.iter().map(|(schema, held)| (schema, held.values().collect::<Vec<_>>()));
        let chosen = choices.iter().map(|(schema, (_, by_value))| (schema, by_value.values().collect::<Vec<_>>()));
        let included = includes.iter().map(|(schema, parts)| (schema, parts.iter().collect::<Vec<_>>()));
        let more: Vec<String> = held
            .chain(chosen)
            .chain(included)
            .filter(|(schema, held)| !visited.contains(*schema) && held.iter().any(|child| visited.contains(*child)))
            .map(|(schema, _)| schema.clone())
            .collect();
        if more.is_empty() {
            return visited;
        }
        visited.extend(more);
    }
}

/// The schema a property holds: a `$ref`, in a list's items, or among the choices of a
/// `oneOf` (how an optional object is written).
fn referenced_schema(schema: &Value) -> Option<&str> {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return target.strip_prefix(SCHEMA_REF);
    }
    if let Some(items) = schema.get("items") {
        return referenced_schema(items);
    }
    ["oneOf", "anyOf", "allOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .find_map(referenced_schema)
}

/// The changes after `version`, oldest first: what a request sent at `version` goes through.
fn changes_after(version: ApiVersion) -> impl Iterator<Item = &'static VersionChange> {
    ApiVersion::ALL.into_iter().filter(move |later| *later > version).flat_map(|later| later.changes().iter().copied())
}

fn undo_in_answer(instruction: &Instruction, fields: &mut Vec<(String, String)>) {
    match *instruction {
        Instruction::PropertyRenamed { older, newer, .. } => {
            if let Some(field) = fields.iter_mut().find(|(key, _)| key == newer) {
                older.clone_into(&mut field.0);
            }
        }
        Instruction::PropertyAdded { property, .. } => fields.retain(|(key, _)| key != property),
        Instruction::CopyRemoved { older, kept, .. } => {
            if let Some(position) = fields.iter().position(|(key, _)| key == kept) {
                let value = fields[position].1.clone();
                fields.insert(position, (older.to_owned(), value));
            }
        }
        Instruction::BecameRequired { .. } | Instruction::AliasRemoved { .. } => {}
    }
}

fn redo_in_request(instruction: &Instruction, fields: &mut serde_json::Map<String, Value>) {
    let rename = |fields: &mut serde_json::Map<String, Value>, from: &str, to: &str| {
        // Both names sent: the newer one is read, and the other is left for nothing to read.
        if !fields.contains_key(to)
            && let Some(value) = fields.remove(from)
        {
            fields.insert(to.to_owned(), value);
        }
    };
    match *instruction {
        Instruction::PropertyRenamed { older, newer, .. } => rename(fields, older, newer),
        Instruction::AliasRemoved { property, alias, .. } => rename(fields, alias, property),
        Instruction::BecameRequired { property, older_default, .. } => {
            if !fields.contains_key(property) {
                fields.insert(property.to_owned(), serde_json::from_str(older_default).unwrap_or(Value::Null));
            }
        }
        Instruction::PropertyAdded { .. } | Instruction::CopyRemoved { .. } => {}
    }
}

/// An object's members in the order they were written, values unread.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for EntriesVisitor<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<'a>, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The schemas the tests need, as the service's document nests them.
    fn versioning() -> Versioning {
        let reference = |name: &str| json!({"$ref": format!("{SCHEMA_REF}{name}")});
        Versioning::from_document(&json!({"components": {"schemas": {
            "SignupResponse": {"properties": {"clientId": {}, "publicKey": {}, "apiVersion": {}}},
            "LoginRequest": {"properties": {"email": {}, "apiKey": {}}},
            "CardTransactionPage": {"properties": {
                "transactions": {"type": "array", "items": reference("CardTransaction")}, "nextCursor": {}}},
            "CardTransaction": {"properties": {"transactionId": {}}},
            "DiscoverResponse": {"properties": {"result": reference("DiscoverResult")}},
            "DiscoverResult": {"properties": {"merchants": {"items": reference("DiscoveredMerchant")}}},
            "DiscoveredMerchant": {"properties": {"descriptor": {}}},
            "EnrollMerchantResponse": {"properties": {"message": {}, "merchantId": {}}},
            "RotateSecretRequest": {"properties": {"currentSecret": {}}},
            "WebhookList": {"properties": {"webhooks": {"items": reference("Webhook")}}},
            "Webhook": {"properties": {"webhookId": {}, "apiVersion": {}}},
            "Holder": {"properties": {"maybe": {"oneOf": [{"type": "null"}, reference("LoginRequest")]}}},
            "EventPage": {"properties": {"events": {"items": reference("Event")}, "nextCursor": {}}},
            "Event": {"oneOf": [reference("SignedUpEvent"), reference("TestEvent")], "discriminator": {
                "propertyName": "type", "mapping": {
                    "signed.up": format!("{SCHEMA_REF}SignedUpEvent"), "test": format!("{SCHEMA_REF}TestEvent")}}},
            "SignedUpEvent": {"properties": {"type": {}, "data": reference("SignupResponse")}},
            "TestEvent": {"properties": {"type": {}, "data": reference("Webhook")}},
            // As utoipa writes a struct with a flattened one: the one named, then its own part.
            "FlattenedSignup": {"allOf": [reference("SignupResponse"), {"properties": {
                "note": {}, "hook": reference("Webhook")}}]},
            "FlattenedPage": {"properties": {"items": {"type": "array", "items": reference("FlattenedSignup")}}},
            "FlattenedAgain": {"allOf": [reference("FlattenedSignup"), {"properties": {"more": {}}}]},
            "LoginInput": {"allOf": [{"properties": {"login": reference("LoginRequest")}}, {"properties": {
                "other": {}}}]},
        }}}))
    }

    fn back(versioning: &Versioning, schema: &str, body: &Value) -> Value {
        let bytes = serde_json::to_vec(body).expect("JSON");
        match versioning.response_to(ApiVersion::INITIAL, schema, &bytes).expect("transformed") {
            Some(written) => serde_json::from_slice(&written).expect("JSON written"),
            None => body.clone(),
        }
    }

    #[test]
    fn answers_go_back_to_the_first_version() {
        let versioning = versioning();
        let signup =
            json!({"error": null, "clientId": "cli_1", "secret": "s", "publicKey": "pk", "apiVersion": "2026-12-01"});
        assert_eq!(
            back(&versioning, "SignupResponse", &signup),
            json!({"error": null, "client_id": "cli_1", "secret": "s", "public_key": "pk"})
        );
        let page = json!({"error": null, "transactions": [{"transactionId": 1}], "nextCursor": null});
        assert_eq!(
            back(&versioning, "CardTransactionPage", &page),
            json!({"error": null, "transactions": [{"transactionId": 1}], "next_cursor": null})
        );
        let found = json!({"error": null, "result": {"merchants": [{"descriptor": "A"}, {"descriptor": "B"}]}});
        assert_eq!(
            back(&versioning, "DiscoverResponse", &found),
            json!({"error": null, "result": {"merchants": [{"ID": "A"}, {"ID": "B"}]}})
        );
        let list = json!({"webhooks": [{"webhookId": 1, "apiVersion": "2026-11-21"}]});
        assert_eq!(back(&versioning, "WebhookList", &list), json!({"webhooks": [{"webhookId": 1}]}));
        // Nothing changed: not even read.
        assert!(
            versioning.response_to(ApiVersion::INITIAL, "CardTransaction", b"not json").expect("untouched").is_none()
        );
        assert!(
            versioning.response_to(ApiVersion::LATEST, "SignupResponse", b"not json").expect("untouched").is_none()
        );
    }

    #[test]
    fn a_typed_event_is_written_as_its_type_is() {
        let versioning = versioning();
        let signed_up = json!({"id": "evt_1", "type": "signed.up", "data": {"clientId": "cli_1", "publicKey": "pk"}});
        assert_eq!(
            back(&versioning, "Event", &signed_up),
            json!({"id": "evt_1", "type": "signed.up", "data": {"client_id": "cli_1", "public_key": "pk"}})
        );
        let test = json!({"type": "test", "data": {"webhookId": 2, "apiVersion": "2026-11-21", "clientId": "x"}});
        assert_eq!(
            back(&versioning, "Event", &test),
            json!({"type": "test", "data": {"webhookId": 2, "clientId": "x"}})
        );
        let unknown = json!({"type": "other", "data": {"clientId": "cli_1"}});
        assert_eq!(back(&versioning, "Event", &unknown), unknown, "a type without a schema is left as it is");
        let page = json!({"events": [signed_up, unknown], "nextCursor": null});
        assert_eq!(
            back(&versioning, "EventPage", &page),
            json!({"events": [
                {"id": "evt_1", "type": "signed.up", "data": {"client_id": "cli_1", "public_key": "pk"}},
                {"type": "other", "data": {"clientId": "cli_1"}}], "next_cursor": null})
        );
    }

    #[test]
    fn answers_keep_their_order_and_untouched_text() {
        let versioning = versioning();
        let body = br#"{"error":null,"message":"Merchant enrolled","merchantId":7}"#;
        let written = versioning.response_to(ApiVersion::INITIAL, "EnrollMerchantResponse", body).expect("ok");
        assert_eq!(
            written.as_deref(),
            Some(&br#"{"error":null,"message":"Merchant enrolled","mechantId":7,"merchantId":7}"#[..])
        );
        let page = br#"{"transactions":[{"transactionId":1,"amount":12.50}],"nextCursor":"5.9"}"#;
        let written = versioning.response_to(ApiVersion::INITIAL, "CardTransactionPage", page).expect("ok");
        assert_eq!(
            written.as_deref(),
            Some(&br#"{"transactions":[{"transactionId":1,"amount":12.50}],"next_cursor":"5.9"}"#[..])
        );
    }

    #[test]
    fn requests_go_forward_to_the_newest_version() {
        let versioning = versioning();
        for sent in [json!({"email": "a@b.c", "api_key": "k"}), json!({"email": "a@b.c", "key": "k"})] {
            let mut body = sent;
            versioning.request_from(ApiVersion::INITIAL, "LoginRequest", &mut body);
            assert_eq!(body, json!({"email": "a@b.c", "apiKey": "k"}));
        }
        // At the newest version nothing is renamed: `api_key` is no name of the request.
        let mut body = json!({"email": "a@b.c", "api_key": "k"});
        versioning.request_from(ApiVersion::LATEST, "LoginRequest", &mut body);
        assert_eq!(body, json!({"email": "a@b.c", "api_key": "k"}));
        // Nested, through an optional object.
        let mut body = json!({"maybe": {"api_key": "k"}});
        versioning.request_from(ApiVersion::INITIAL, "Holder", &mut body);
        assert_eq!(body, json!({"maybe": {"apiKey": "k"}}));
        // A required property an older version could leave out gets its old default.
        assert!(versioning.body_optional(ApiVersion::INITIAL, "RotateSecretRequest"));
        assert!(!versioning.body_optional(ApiVersion::LATEST, "RotateSecretRequest"));
        assert!(!versioning.body_optional(ApiVersion::INITIAL, "LoginRequest"));
        let mut body = json!({});
        versioning.request_from(ApiVersion::INITIAL, "RotateSecretRequest", &mut body);
        assert_eq!(body, json!({"currentSecret": ""}));
        let mut body = json!({"current_secret": "s"});
        versioning.request_from(ApiVersion::INITIAL, "RotateSecretRequest", &mut body);
        assert_eq!(body, json!({"currentSecret": "s"}));
    }

    #[test]
    fn an_all_of_schema_is_each_schema_it_names_and_holds_what_its_parts_hold() {
        let versioning = versioning();
        let signup = json!({"clientId": "cli_1", "publicKey": "pk", "apiVersion": "2026-12-01", "note": 1,
            "hook": {"webhookId": 1, "apiVersion": "2026-11-21"}});
        let older = json!({"client_id": "cli_1", "public_key": "pk", "note": 1, "hook": {"webhookId": 1}});
        assert_eq!(back(&versioning, "FlattenedPage", &json!({"items": [signup]})), json!({"items": [older]}));
        let mut again = signup.clone();
        again["more"] = json!(2);
        let mut older_again = older.clone();
        older_again["more"] = json!(2);
        assert_eq!(back(&versioning, "FlattenedAgain", &again), older_again);
        // A request whose properties are all in inline parts.
        let mut body = json!({"login": {"api_key": "k"}, "other": 1});
        versioning.request_from(ApiVersion::INITIAL, "LoginInput", &mut body);
        assert_eq!(body, json!({"login": {"apiKey": "k"}, "other": 1}));
        assert_eq!(
            versioning.error_field_to(ApiVersion::INITIAL, "LoginInput", "login.apiKey").as_deref(),
            Some("login.api_key")
        );
        assert_eq!(
            versioning.error_field_to(ApiVersion::INITIAL, "FlattenedAgain", "clientId").as_deref(),
            Some("client_id")
        );
    }

    #[test]
    fn error_fields_are_named_as_the_request_named_them() {
        let versioning = versioning();
        assert_eq!(
            versioning.error_field_to(ApiVersion::INITIAL, "LoginRequest", "apiKey").as_deref(),
            Some("api_key")
        );
        assert_eq!(versioning.error_field_to(ApiVersion::INITIAL, "LoginRequest", "email"), None);
        assert_eq!(versioning.error_field_to(ApiVersion::LATEST, "LoginRequest", "apiKey"), None);
        assert_eq!(
            versioning.error_field_to(ApiVersion::INITIAL, "Holder", "maybe.apiKey").as_deref(),
            Some("maybe.api_key")
        );
    }
}
