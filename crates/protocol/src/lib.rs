//! Wire types of the Subscriber Data API (`shared/spec/api-contract.md`).
//!
//! Field names are those of the newest API version ([`versions::ApiVersion::LATEST`]): the
//! service serializes these types and walks the JSON back to the version a request asks for,
//! one change of [`versions::changes`] at a time. A rename here is a new version: add the
//! change that undoes it, or every older version's answers change with it.

#[macro_use]
mod wire;
mod accounts;
mod cards;
mod catalogue;
mod discovery;
pub mod enrichment;
mod envelope;
mod events;
#[macro_use]
pub mod ids;
pub mod instants;
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
pub use instants::{UnixMillis, UnixSeconds};
pub use merchants::*;
pub use persons::*;
pub use sandbox::*;
pub use subscriber::*;
pub use users::*;
pub use webhook_queue::*;
pub use wire::Flat;

/// The subscriber's string pairs on a card, an account, a person or a location.
pub use rules::labels::Metadata;
