//! The sandbox's test cards, as typed requests and as raw JSON.

use chrono::{Datelike, Utc};
use serde_json::{Value, json};
use subscriber_protocol::{EnrollCardRequest, Pan};

pub const TEST_PAN: &str = "4242424242424242";
/// One test card of each network the sandbox knows.
pub const TEST_PANS: [&str; 5] =
    ["4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222", "6011111111111117"];

/// An expiry year a few years ahead, so the fixtures never expire.
fn expiry_year() -> u32 {
    u32::try_from(Utc::now().year() + 3).expect("a positive year")
}

/// A card request for a sandbox test card.
pub fn test_card(pan: &str) -> EnrollCardRequest {
    EnrollCardRequest {
        pan: Pan::new(pan),
        first_name: "Ada".to_owned(),
        last_name: "Lovelace".to_owned(),
        exp_month: 12,
        exp_year: expiry_year(),
        country_code: "USA".to_owned(),
        client_user_id: None,
        metadata: None,
    }
}

/// The same card as the raw JSON body of `POST /card`.
pub fn card_json(pan: &str) -> Value {
    json!({
        "pan": pan,
        "firstName": "Ada",
        "lastName": "Lovelace",
        "expMonth": 12,
        "expYear": expiry_year(),
        "countryCode": "USA"
    })
}
