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
