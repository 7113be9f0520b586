//! Reference tables: currencies, places (and, from the rules, countries and merchant category
//! codes).

pub mod currencies;
pub mod places;

// The tables the request rules check against live with the rules (protocol).
pub use subscriber_protocol::rules::{countries, mcc};
