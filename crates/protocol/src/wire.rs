//! What every wire struct is and what several end with, said once, as `macro_rules!` the other
//! modules apply as attributes (`#[apply(wire!)]`, with the `macro_rules_attribute` crate).
//! Declared before the modules that use them (`#[macro_use]` in `lib.rs`).

/// What every JSON wire struct is, said once: debuggable, cloneable and comparable,
/// (de)serialized with camelCase names, exported to TypeScript (feature `ts`) and described in
/// OpenAPI (feature `openapi`). A struct says `#[apply(wire!)]`, then any derive or container
/// attribute of its own (`Eq`, `Default`; `ts(optional_fields)`). An attribute macro that
/// rewrites fields (`serde_with::skip_serializing_none`) goes above it, so the derives see its
/// output.
macro_rules! wire {
    ($item:item) => {
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[cfg_attr(feature = "ts", derive(::ts_rs::TS), ts(export))]
        #[cfg_attr(feature = "openapi", derive(::utoipa::ToSchema))]
        #[serde(rename_all = "camelCase")]
        $item
    };
}

/// The subscriber's labels as the API shows them, said once: `#[apply(with_labels!)]` above a
/// struct's other attributes ends it with `clientUserId` (null when none) and `metadata` (`{}`
/// when none), on cards, bank accounts, persons and their events.
macro_rules! with_labels {
    ($(#[$attribute:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        $(#[$attribute])*
        pub struct $name {
            $($fields)*
            /// The subscriber's own id for the user it belongs to; null when none was given.
            #[cfg_attr(feature = "ts", ts(type = "string | null"))]
            #[cfg_attr(feature = "openapi", schema(required = true))]
            pub client_user_id: Option<String>,
            /// The subscriber's own notes (`{}` when none).
            #[serde(default)]
            pub metadata: crate::Metadata,
        }
    };
}

/// A struct whose fields an outer wire struct sends as its own (`#[serde(flatten)]` on a field
/// of this type): on the wire it is the struct itself; TypeScript names it instead of writing
/// its fields again, so the outer type is `{ its own fields } & Inner` (ts-rs would otherwise
/// copy every field, with its comment, into each outer type). OpenAPI describes the field as the
/// inner type (`schema(value_type = Inner)` beside it), so the document is what it was.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Flat<T>(pub T);

impl<T> std::ops::Deref for Flat<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Flat<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T> From<T> for Flat<T> {
    fn from(inner: T) -> Self {
        Self(inner)
    }
}

#[cfg(feature = "ts")]
impl<T: ts_rs::TS + 'static> ts_rs::TS for Flat<T> {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn name(cfg: &ts_rs::Config) -> String {
        T::name(cfg)
    }

    fn inline(cfg: &ts_rs::Config) -> String {
        T::inline(cfg)
    }

    /// Where ts-rs writes a flattened field's members, the inner type's name.
    fn inline_flattened(cfg: &ts_rs::Config) -> String {
        T::name(cfg)
    }

    /// The inner type itself, so the outer type's file imports it.
    fn visit_dependencies(visitor: &mut impl ts_rs::TypeVisitor)
    where
        Self: 'static,
    {
        visitor.visit::<T>();
    }
}

#[cfg(test)]
mod tests {
    use super::Flat;
    use crate::{LoggedRequest, LoggedRequestDetail};

    fn detail() -> LoggedRequestDetail {
        LoggedRequestDetail {
            request: Flat(LoggedRequest {
                method: "GET".into(),
                path: "/card/12".into(),
                route: Some("/card/{card_id}".into()),
                status: 200,
                code: None,
                request_id: "req_1".into(),
                latency_ms: 1.5,
                at: chrono::DateTime::UNIX_EPOCH,
            }),
            query: None,
            request_body: None,
            response_body: Some("{}".into()),
            truncated: false,
            object_ids: vec!["cardId:12".into()],
        }
    }

    #[test]
    fn a_flat_struct_is_sent_as_the_outer_objects_own_fields_and_read_back() {
        let json = serde_json::to_value(detail()).expect("JSON");
        assert_eq!(json["method"], "GET", "{json}");
        assert_eq!(json["responseBody"], "{}", "{json}");
        assert!(json.get("request").is_none(), "no nested object: {json}");
        assert_eq!(serde_json::from_value::<LoggedRequestDetail>(json).expect("read back"), detail());
    }

    /// Named `export_bindings_…` so `make bindings-check` (the one run with the `ts` feature)
    /// runs it.
    #[cfg(feature = "ts")]
    #[test]
    fn export_bindings_name_a_flat_struct_instead_of_copying_its_fields() {
        use ts_rs::TS;
        let cfg = ts_rs::Config::default();
        let declared = LoggedRequestDetail::decl(&cfg);
        assert!(declared.ends_with("} & LoggedRequest;"), "{declared}");
        assert!(!declared.contains("latencyMs"), "{declared}");
        let event = crate::LocationUpdatedData::decl(&cfg);
        assert!(event.contains("merchantId: MerchantId") && event.ends_with("} & Location;"), "{event}");
        assert!(!event.contains("descriptor"), "{event}");
    }
}
