//! Reference tables the service validates against: countries and merchant category codes.

pub mod countries;
pub mod currencies;
pub mod mcc;
pub mod places;
