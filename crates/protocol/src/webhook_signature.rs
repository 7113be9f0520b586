//! The signatures of a webhook delivery, two styles side by side:
//!
//! - ours, `Subscriber-Signature: t=<unix seconds>,v1=<hex>`: `v1` is HMAC-SHA256 over
//!   `"<t>.<raw body>"`, one `v1=` per secret that signs (two during a rotation). The service
//!   signs with [`header`]; a receiver checks with [`verify`].
//! - Standard Webhooks (standardwebhooks.com): `webhook-id` (the event id), `webhook-timestamp`
//!   (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 over "<id>.<t>.<body>">`,
//!   space-separated, one per secret ([`standard_signature`], [`verify_standard`]), so the
//!   `standardwebhooks` libraries verify deliveries unchanged.
//!
//! Both are keyed with [`signing_key`] of the endpoint's secret.

use std::borrow::Cow;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const HEADER: &str = "Subscriber-Signature";
pub const EVENT_ID_HEADER: &str = "Subscriber-Event-Id";
pub const EVENT_TYPE_HEADER: &str = "Subscriber-Event-Type";
/// The Standard Webhooks headers.
pub const STANDARD_ID_HEADER: &str = "webhook-id";
pub const STANDARD_TIMESTAMP_HEADER: &str = "webhook-timestamp";
pub const STANDARD_SIGNATURE_HEADER: &str = "webhook-signature";
/// What precedes the base64 of a secret's key.
pub const SECRET_PREFIX: &str = "whsec_";
/// Seconds a signature's time may differ from the receiver's clock (a replay older than this
/// is refused).
pub const DEFAULT_TOLERANCE_SECONDS: u64 = 300;

/// Hex HMAC-SHA256 of `"<timestamp>.<body>"` under `secret`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    hex::encode(mac(secret, timestamp, body).finalize().into_bytes())
}

/// The HMAC key of a secret. A Standard Webhooks secret, `whsec_` + standard base64 (padded,
/// 44 characters) of 32 bytes, is keyed with those bytes. Any other text is keyed with its
/// own UTF-8 bytes, `whsec_` included: the form endpoints were given before (`whsec_` + 43
/// characters of unpadded URL-safe base64, which never decodes as padded standard base64),
/// kept until the endpoint's secret is rotated.
pub fn signing_key(secret: &str) -> Cow<'_, [u8]> {
    secret
        .strip_prefix(SECRET_PREFIX)
        .filter(|encoded| encoded.len() == 44)
        .and_then(|encoded| STANDARD.decode(encoded).ok())
        .filter(|key| key.len() == 32)
        .map_or(Cow::Borrowed(secret.as_bytes()), Cow::Owned)
}

fn keyed(secret: &str) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    <Hmac<Sha256> as Mac>::new_from_slice(&signing_key(secret)).unwrap_or_else(|_| unreachable!())
}

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = keyed(secret);
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The header's value: `t=<timestamp>` and one `v1=` per secret.
pub fn header(secrets: &[String], timestamp: i64, body: &[u8]) -> String {
    let mut value = format!("t={timestamp}");
    for secret in secrets {
        value.push_str(",v1=");
        value.push_str(&sign(secret, timestamp, body));
    }
    value
}

/// Why a delivery's signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The header is missing parts or is not of the form `t=…,v1=…`.
    #[error("the signature header is not of the form t=<seconds>,v1=<hex>")]
    Malformed,
    /// The signature's time is further from now than the tolerance (a replay, or a clock off).
    #[error("the signature's time is outside the tolerance: a replay, or a clock that is off")]
    Stale,
    /// No `v1` matches any of the secrets.
    #[error("no signature matches the endpoint's secret")]
    Mismatch,
}

/// Checks a delivery: some `v1=` of `header` is the signature of `body` under one of
/// `secrets`, and its `t=` is within `tolerance_seconds` of `now` (Unix seconds). Pass both
/// secrets during a rotation.
pub fn verify(
    secrets: &[&str],
    header: &str,
    body: &[u8],
    tolerance_seconds: u64,
    now: i64,
) -> Result<(), SignatureError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => signatures.push(hex::decode(value).map_err(|_| SignatureError::Malformed)?),
            // Other schemes a later version may add are not ours to judge.
            Some(_) => {}
            None => return Err(SignatureError::Malformed),
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if now.abs_diff(timestamp) > tolerance_seconds {
        return Err(SignatureError::Stale);
    }
    let matches = secrets
        .iter()
        .any(|secret| signatures.iter().any(|signature| mac(secret, timestamp, body).verify_slice(signature).is_ok()));
    if matches { Ok(()) } else { Err(SignatureError::Mismatch) }
}

fn standard_mac(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = keyed(secret);
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The `webhook-signature` value: `v1,<base64>` per secret, space-separated.
pub fn standard_signature(secrets: &[String], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .map(|secret| {
            format!("v1,{}", STANDARD.encode(standard_mac(secret, id, timestamp, body).finalize().into_bytes()))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A delivery's Standard Webhooks headers as received: one value, so that three strings are
/// never passed in the wrong order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StandardHeaders<'a> {
    /// `webhook-id`: the event's id.
    pub id: &'a str,
    /// `webhook-timestamp`: unix seconds.
    pub timestamp: &'a str,
    /// `webhook-signature`: `v1,<base64>` per secret, space-separated.
    pub signature: &'a str,
}

/// Checks a delivery's Standard Webhooks headers against the raw body, as [`verify`] does
/// ours.
pub fn verify_standard(
    secrets: &[&str],
    headers: StandardHeaders<'_>,
    body: &[u8],
    tolerance_seconds: u64,
    now: i64,
) -> Result<(), SignatureError> {
    let StandardHeaders { id, timestamp, signature } = headers;
    let timestamp = timestamp.trim().parse::<i64>().map_err(|_| SignatureError::Malformed)?;
    let mut signatures = Vec::new();
    for part in signature.split_whitespace() {
        match part.split_once(',') {
            Some(("v1", value)) => signatures.push(STANDARD.decode(value).map_err(|_| SignatureError::Malformed)?),
            // Other versions (`v1a`, ...) are not ours to judge.
            Some(_) => {}
            None => return Err(SignatureError::Malformed),
        }
    }
    if id.is_empty() || signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if now.abs_diff(timestamp) > tolerance_seconds {
        return Err(SignatureError::Stale);
    }
    let matches = secrets.iter().any(|secret| {
        signatures.iter().any(|signature| standard_mac(secret, id, timestamp, body).verify_slice(signature).is_ok())
    });
    if matches { Ok(()) } else { Err(SignatureError::Mismatch) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_body_verifies_and_a_changed_one_does_not() {
        let secrets = ["whsec_old".to_owned(), "whsec_new".to_owned()];
        let value = header(&secrets, 1_700_000_000, b"{\"id\":\"evt_1\"}");
        assert_eq!(value.matches("v1=").count(), 2);
        assert_eq!(verify(&["whsec_new"], &value, b"{\"id\":\"evt_1\"}", 300, 1_700_000_100), Ok(()));
        assert_eq!(verify(&["whsec_old"], &value, b"{\"id\":\"evt_1\"}", 300, 1_700_000_100), Ok(()));
        assert_eq!(
            verify(&["whsec_other"], &value, b"{\"id\":\"evt_1\"}", 300, 1_700_000_100),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(&["whsec_new"], &value, b"{\"id\":\"evt_2\"}", 300, 1_700_000_100),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(&["whsec_new"], &value, b"{\"id\":\"evt_1\"}", 300, 1_700_000_301),
            Err(SignatureError::Stale)
        );
        assert_eq!(verify(&["whsec_new"], "v1=zz", b"", 300, 0), Err(SignatureError::Malformed));
        assert_eq!(verify(&["whsec_new"], "t=1", b"", 300, 1), Err(SignatureError::Malformed));
    }

    /// The example of the Standard Webhooks specification: a `whsec_` secret is keyed with its
    /// bytes. An old-form secret is keyed with its text, in both styles.
    #[test]
    fn standard_signatures_match_the_specification_and_old_secrets_still_sign() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        // Not 32 bytes: keyed with its text; a 32-byte one with its bytes.
        assert_eq!(&*signing_key(secret), secret.as_bytes());
        let standard = format!("whsec_{}", STANDARD.encode([7u8; 32]));
        assert_eq!(&*signing_key(&standard), &[7u8; 32]);
        let body = br#"{"test": 2432232314}"#;
        let value =
            standard_signature(std::slice::from_ref(&standard), "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, body);
        assert!(value.starts_with("v1,"));
        let check = |secret: &str, body: &[u8], now: i64| {
            let headers =
                StandardHeaders { id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330", signature: &value };
            verify_standard(&[secret], headers, body, 300, now)
        };
        assert_eq!(check(&standard, body, 1_614_265_330), Ok(()));
        assert_eq!(check(&standard, b"{}", 1_614_265_330), Err(SignatureError::Mismatch));
        assert_eq!(check("whsec_other", body, 1_614_265_330), Err(SignatureError::Mismatch));
        assert_eq!(check(&standard, body, 1_614_266_000), Err(SignatureError::Stale));
        let old = "whsec_abcdefghijklmnopqrstuvwxyz-_ABCDEFGHIJKLMNO";
        let both = standard_signature(&[old.to_owned(), standard.clone()], "evt_1", 5, b"x");
        assert_eq!(both.split(' ').count(), 2);
        let headers = StandardHeaders { id: "evt_1", timestamp: "5", signature: &both };
        assert_eq!(verify_standard(&[old], headers, b"x", 300, 5), Ok(()));
        assert_eq!(verify(&[old], &header(&[old.to_owned()], 5, b"x"), b"x", 300, 5), Ok(()));
    }
}
