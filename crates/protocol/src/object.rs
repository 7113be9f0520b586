//! Nested objects read only from JSON objects.
//!
//! serde's derived structs also accept a sequence, filling the fields by position: without
//! this, `{"address": ["Main St", "1", …]}` would be read as an address. The wire format (the
//! contract and the OpenAPI document) has objects only. The service checks the body's top
//! level itself; fields holding a struct use `#[serde(deserialize_with = "object::only")]` (or
//! [`optional`], [`each`]).

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// Deserializes `T` from a map (a JSON object) and nothing else.
pub fn only<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_map(ObjectOnly(PhantomData))
}

/// As [`only`], for an optional field (`null` or absent is `None`).
pub fn optional<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    Ok(Option::<Object<T>>::deserialize(deserializer)?.map(|Object(value)| value))
}

/// As [`only`], for each item of a list.
pub fn each<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    Ok(Vec::<Object<T>>::deserialize(deserializer)?.into_iter().map(|Object(value)| value).collect())
}

struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        only(deserializer).map(Object)
    }
}

struct ObjectOnly<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectOnly<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        a: String,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        #[serde(deserialize_with = "only")]
        inner: Inner,
        #[serde(default, deserialize_with = "optional")]
        maybe: Option<Inner>,
        #[serde(default, deserialize_with = "each")]
        list: Vec<Inner>,
    }

    #[test]
    fn objects_are_read_and_arrays_are_not() -> Result<(), serde_json::Error> {
        let read: Outer = serde_json::from_str(r#"{"inner": {"a": "x"}, "maybe": {"a": "y"}}"#)?;
        assert_eq!(read, Outer { inner: Inner { a: "x".into() }, maybe: Some(Inner { a: "y".into() }), list: vec![] });
        let listed: Outer = serde_json::from_str(r#"{"inner": {"a": "x"}, "list": [{"a": "z"}]}"#)?;
        assert_eq!(listed.list, vec![Inner { a: "z".into() }]);
        assert!(serde_json::from_str::<Outer>(r#"{"inner": {"a": "x"}, "list": [["z"]]}"#).is_err());
        let absent: Outer = serde_json::from_str(r#"{"inner": {"a": "x"}, "maybe": null}"#)?;
        assert_eq!(absent.maybe, None);
        let error =
            serde_json::from_str::<Outer>(r#"{"inner": ["x"]}"#).map(|_| ()).err().map(|error| error.to_string());
        assert!(error.as_deref().is_some_and(|error| error.contains("expected an object")), "{error:?}");
        assert!(serde_json::from_str::<Outer>(r#"{"inner": {"a": "x"}, "maybe": ["y"]}"#).is_err());
        assert!(serde_json::from_value::<Outer>(serde_json::json!({"inner": ["x"]})).is_err());
        Ok(())
    }
}
