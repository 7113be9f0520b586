//! Receiving webhooks: check that a delivery comes from the service, and sign payloads to test
//! a receiver.
//!
//! ```
//! use subscriber_client::webhooks;
//!
//! let secret = "whsec_test";
//! let body = br#"{"id":"evt_1","type":"webhook.test","createdAt":"2026-01-01T00:00:00Z","data":{}}"#;
//! let header = webhooks::sign_test_payload(secret, body);
//! // In the receiver: the raw body, the `Subscriber-Signature` header and the endpoint's secret
//! // (both secrets during the 24 hours after a rotation).
//! webhooks::verify(&[secret], &header, body, webhooks::DEFAULT_TOLERANCE).expect("signed by the service");
//! assert!(webhooks::verify(&["whsec_other"], &header, body, webhooks::DEFAULT_TOLERANCE).is_err());
//! ```
//!
//! Deliveries also carry the Standard Webhooks headers, checked with [`verify_standard`] (or
//! any `standardwebhooks` library).

use std::time::Duration;

use subscriber_protocol::webhook_signature;
pub use subscriber_protocol::webhook_signature::{
    EVENT_ID_HEADER, EVENT_TYPE_HEADER, HEADER, STANDARD_ID_HEADER, STANDARD_SIGNATURE_HEADER,
    STANDARD_TIMESTAMP_HEADER, SignatureError, StandardHeaders,
};

/// How far a signature's time may be from now: 5 minutes.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(webhook_signature::DEFAULT_TOLERANCE_SECONDS);

/// Checks the `Subscriber-Signature` header of a delivery against the raw body: signed by one
/// of `secrets`, at a time within `tolerance` of this machine's clock.
pub fn verify(secrets: &[&str], header: &str, body: &[u8], tolerance: Duration) -> Result<(), SignatureError> {
    webhook_signature::verify(secrets, header, body, tolerance.as_secs(), now())
}

/// Checks a delivery's Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
/// `webhook-signature`) against the raw body: signed by one of `secrets` (`whsec_…`, keyed with
/// the bytes the base64 holds), at a time within `tolerance` of this machine's clock.
pub fn verify_standard(
    secrets: &[&str],
    headers: StandardHeaders<'_>,
    body: &[u8],
    tolerance: Duration,
) -> Result<(), SignatureError> {
    webhook_signature::verify_standard(secrets, headers, body, tolerance.as_secs(), now())
}

/// A `Subscriber-Signature` value for `body` signed now with `secret`, as the service would
/// sign it: for testing a receiver without the service.
pub fn sign_test_payload(secret: &str, body: &[u8]) -> String {
    webhook_signature::header(&[secret.to_owned()], now(), body)
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}
