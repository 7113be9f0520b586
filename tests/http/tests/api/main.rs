//! Black-box conformance of the service: one test binary, one module per resource.
//! Requests and responses are raw JSON with literal field names, so a mistake in a shared
//! type cannot hide a wire mistake.

mod accounts;
mod card_session;
mod cards;
mod errors;
mod helpers;
mod persons;
mod subscriber;
