//! Wire types of the Subscriber Data API (`shared/spec/api-contract.md`).
//!
//! Field names are those of the newest API version ([`versions::ApiVersion::LATEST`]): the
//! service serializes these types and walks the JSON back to the version a request asks for,
//! one change of [`versions::changes`] at a time. A rename here is a new version: add the
//! change that undoes it, or every older version's answers change with it.

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

mod accounts;
mod cards;
mod catalogue;
mod discovery;
pub mod enrichment;
mod envelope;
mod events;
pub mod ids;
pub mod markup;
mod merchants;
pub mod object;
#[cfg(feature = "openapi")]
pub mod openapi;
mod persons;
pub mod rules;
mod sandbox;
mod subscriber;
pub mod time;
mod users;
pub mod versions;
mod webhook_queue;
pub mod webhook_signature;

pub use accounts::*;
pub use cards::*;
pub use catalogue::*;
pub use discovery::*;
pub use enrichment::*;
pub use envelope::*;
pub use events::*;
pub use ids::*;
pub use merchants::*;
pub use persons::*;
pub use sandbox::*;
pub use subscriber::*;
pub use users::*;
pub use webhook_queue::*;

/// The subscriber's string pairs on a card, an account, a person or a location.
pub use rules::labels::Metadata;
