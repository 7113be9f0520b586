//! OpenAPI schemas of the wire types whose serde is written by hand (feature `openapi`):
//! the schema must say what the deserializer really takes.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::{CategoryCode, Pan};

impl PartialSchema for Pan {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some("^[0-9]{16}$"))
                    .examples(["4242424242424242"]),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(1_000_000_000_000_000_f64))
                    .maximum(Some(9_999_999_999_999_999_f64)),
            )
            .description(Some(
                "The card number, 16 digits (Luhn-valid), as a string or a number. The sandbox takes only its \
                 test cards (GET /sandbox/cards); other environments refuse card numbers through the API \
                 (403 pan_not_accepted): use POST /card/session.",
            ))
            .into()
    }
}

impl ToSchema for Pan {}

impl PartialSchema for CategoryCode {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[0-9]{4}$")).examples(["5812"]))
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0_f64)).maximum(Some(9999_f64)))
            .description(Some("A 4-digit merchant category code (ISO 18245), as a string or a number."))
            .into()
    }
}

impl ToSchema for CategoryCode {}

/// `"error": null` of every success body.
pub fn null_schema() -> Schema {
    ObjectBuilder::new().schema_type(Type::Null).description(Some("null on success")).into()
}

/// One event type's whole event: `{id, type, createdAt, data}` with its own payload schema.
pub fn typed_event_schema(event_type: crate::EventType) -> Schema {
    use utoipa::openapi::schema::{KnownFormat, SchemaFormat};
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(format!("`{}`: {}", event_type.as_str(), event_type.description().trim())))
        .property(
            "id",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some("^evt_[0-9]{1,18}$"))
                .description(Some("`evt_` and digits; ids grow in the order events happen.")),
        )
        .property(
            "type",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([event_type.as_str()]))
                .description(Some("What happened: this event's type.")),
        )
        .property(
            "createdAt",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                .description(Some("When it happened (RFC 3339, UTC).")),
        )
        .property("data", utoipa::openapi::Ref::from_schema_name(event_type.payload_name()))
        .property(
            "sandbox",
            ObjectBuilder::new().schema_type(Type::Boolean).enum_values(Some([true])).description(Some(
                "`true` on an event the sandbox sent on request (`POST /sandbox/events`): nothing changed. \
                 Absent on every other event.",
            )),
        )
        .required("id")
        .required("type")
        .required("createdAt")
        .required("data")
        .into()
}

/// An event of any type: one of the typed events, told apart by `type`.
impl PartialSchema for crate::Event {
    fn schema() -> RefOr<Schema> {
        let mut discriminator = utoipa::openapi::schema::Discriminator::new("type");
        let mut choices = OneOfBuilder::new().description(Some(
            "One change a subscriber can observe; `type` says which, and `data` has that type's payload.",
        ));
        for event_type in crate::EventType::ALL {
            let reference = format!("#/components/schemas/{}", event_type.event_schema_name());
            discriminator.mapping.insert(event_type.as_str().to_owned(), reference);
            choices = choices.item(utoipa::openapi::Ref::from_schema_name(event_type.event_schema_name()));
        }
        choices.discriminator(Some(discriminator)).into()
    }
}

impl ToSchema for crate::Event {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        for event_type in crate::EventType::ALL {
            schemas.push((event_type.event_schema_name().to_owned(), typed_event_schema(*event_type).into()));
        }
        crate::EventData::payload_schemas(schemas);
    }
}
