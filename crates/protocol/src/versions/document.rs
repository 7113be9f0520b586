//! Each version's OpenAPI document, from the newest one: the changes since, undone on the
//! schemas they name.

use serde_json::{Map, Value};

use super::{ApiVersion, Instruction};

/// Turns the newest version's document into `version`'s: properties renamed back, added ones
/// left out, removed copies put back, required ones optional again where they were, and the
/// descriptions naming a renamed property in backticks saying its older name.
pub fn document_at(version: ApiVersion, document: &mut Value) {
    let mut renamed_in_text: Vec<(&str, &str)> = Vec::new();
    for change in version.changes_since() {
        for instruction in change.instructions.iter().rev() {
            let Some(schema) = document.pointer_mut(&format!("/components/schemas/{}", instruction.schema())) else {
                continue;
            };
            match *instruction {
                Instruction::PropertyRenamed { older, newer, .. } => {
                    rename_property(schema, newer, older);
                    renamed_in_text.push((newer, older));
                }
                Instruction::PropertyAdded { property, .. } => remove_property(schema, property),
                Instruction::CopyRemoved { older, kept, .. } => {
                    let Some(mut copy) = schema.pointer(&format!("/properties/{kept}")).cloned() else { continue };
                    copy["description"] =
                        Value::String(format!("The same as `{kept}`: the seed specification's spelling."));
                    let required = is_required(schema, kept);
                    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                        properties.insert(older.to_owned(), copy);
                    }
                    if required {
                        push_required(schema, older);
                    }
                }
                Instruction::BecameRequired { property, .. } => remove_required(schema, property),
                Instruction::AliasRemoved { .. } => {}
            }
        }
    }
    // A name renamed in one schema and kept in another (a card transaction's `descriptor`) is
    // left as written: the text cannot tell which one it means.
    let kept = kept_names(document, &renamed_in_text);
    renamed_in_text.retain(|(newer, _)| !kept.contains(newer));
    if !renamed_in_text.is_empty() {
        // The operations and schemas; `info` tells the versions apart by both names.
        for part in ["paths", "components", "webhooks"] {
            if let Some(part) = document.get_mut(part) {
                rewrite_descriptions(part, &renamed_in_text);
            }
        }
    }
}

fn rename_property(schema: &mut Value, from: &str, to: &str) {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut)
        && let Some(value) = properties.remove(from)
    {
        properties.insert(to.to_owned(), value);
    }
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        for name in required.iter_mut().filter(|name| name.as_str() == Some(from)) {
            *name = Value::String(to.to_owned());
        }
    }
}

fn remove_property(schema: &mut Value, property: &str) {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.remove(property);
    }
    remove_required(schema, property);
}

fn is_required(schema: &Value, property: &str) -> bool {
    schema.get("required").and_then(Value::as_array).is_some_and(|names| names.iter().any(|name| name == property))
}

fn push_required(schema: &mut Value, property: &str) {
    if let Some(object) = schema.as_object_mut() {
        let required = object.entry("required").or_insert_with(|| Value::Array(Vec::new()));
        if let Some(names) = required.as_array_mut() {
            names.push(Value::String(property.to_owned()));
        }
    }
}

fn remove_required(schema: &mut Value, property: &str) {
    let Some(object) = schema.as_object_mut() else { return };
    if let Some(names) = object.get_mut("required").and_then(Value::as_array_mut) {
        names.retain(|name| name != property);
        if names.is_empty() {
            object.remove("required");
        }
    }
}

/// The newer names still used, as they are, by a schema of the document.
fn kept_names<'a>(document: &Value, renamed: &[(&'a str, &str)]) -> Vec<&'a str> {
    let schemas = document.pointer("/components/schemas").and_then(Value::as_object);
    renamed
        .iter()
        .map(|(newer, _)| *newer)
        .filter(|newer| {
            schemas.into_iter().flatten().any(|(_, schema)| {
                schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|properties| properties.contains_key(*newer))
            })
        })
        .collect()
}

fn rewrite_descriptions(value: &mut Value, renamed: &[(&str, &str)]) {
    match value {
        Value::Object(fields) => rewrite_fields(fields, renamed),
        Value::Array(items) => items.iter_mut().for_each(|item| rewrite_descriptions(item, renamed)),
        _ => {}
    }
}

fn rewrite_fields(fields: &mut Map<String, Value>, renamed: &[(&str, &str)]) {
    for (key, value) in fields.iter_mut() {
        match value {
            Value::String(text) if key == "description" || key == "summary" => {
                for (newer, older) in renamed {
                    let quoted = format!("`{newer}`");
                    if text.contains(&quoted) {
                        *text = text.replace(&quoted, &format!("`{older}`"));
                    }
                }
            }
            other => rewrite_descriptions(other, renamed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_versions_document_has_its_names_back() {
        let mut document = json!({"components": {"schemas": {
            "SignupResponse": {"required": ["clientId", "apiVersion"], "properties": {
                "clientId": {"type": "string", "description": "Quote `clientId` to support."},
                "publicKey": {"type": "string"}, "apiVersion": {"type": "string"}}},
            "EnrollMerchantResponse": {"required": ["merchantId"], "properties": {"merchantId": {"type": "integer"}}},
            "RotateSecretRequest": {"required": ["currentSecret"], "properties": {"currentSecret": {"type": "string"}}},
            "DiscoveredMerchant": {"properties": {"descriptor": {"type": "string"}}},
            "CardTransaction": {"properties": {"descriptor": {"type": "string", "description": "Resolve `descriptor`."}}},
        }}});
        document_at(ApiVersion::INITIAL, &mut document);
        let schemas = &document["components"]["schemas"];
        assert_eq!(schemas["SignupResponse"]["required"], json!(["client_id"]));
        assert!(schemas["SignupResponse"]["properties"].get("apiVersion").is_none());
        assert_eq!(
            schemas["SignupResponse"]["properties"]["client_id"]["description"],
            "Quote `client_id` to support."
        );
        assert!(schemas["SignupResponse"]["properties"].get("public_key").is_some());
        assert_eq!(schemas["EnrollMerchantResponse"]["required"], json!(["merchantId", "mechantId"]));
        assert!(schemas["RotateSecretRequest"].get("required").is_none());
        assert!(schemas["DiscoveredMerchant"]["properties"].get("ID").is_some());
        assert_eq!(schemas["CardTransaction"]["properties"]["descriptor"]["description"], "Resolve `descriptor`.");

        let mut newest = json!({"components": {"schemas": {"SignupResponse": {"properties": {"clientId": {}}}}}});
        let unchanged = newest.clone();
        document_at(ApiVersion::LATEST, &mut newest);
        assert_eq!(newest, unchanged);
    }
}
