//! Wire types of the Subscriber Data API (`shared/spec/api-contract.md`).
//!
//! Field names follow the wire exactly, quirks included (`mechantId`, `client_id`,
//! `validity_seconds`, `next_cursor`): the service serializes these types and the client
//! deserializes them, so a rename here is a breaking change of the API.

mod accounts;
mod cards;
mod discovery;
mod envelope;
mod events;
mod merchants;
pub mod object;
#[cfg(feature = "openapi")]
pub mod openapi;
mod persons;
pub mod rules;
mod sandbox;
mod subscriber;
pub mod time;
pub mod webhook_signature;

pub use accounts::*;
pub use cards::*;
pub use discovery::*;
pub use envelope::*;
pub use events::*;
pub use merchants::*;
pub use persons::*;
pub use sandbox::*;
pub use subscriber::*;
