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
