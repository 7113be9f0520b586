//! The signature of a webhook delivery, `Subscriber-Signature: t=<unix seconds>,v1=<hex>`:
//! `v1` is HMAC-SHA256 keyed with the endpoint's secret (the whole `whsec_…` text) over
//! `"<t>.<raw body>"`, one `v1=` per secret that signs (two during a rotation). The service
//! signs with [`header`]; a receiver checks with [`verify`].

use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const HEADER: &str = "Subscriber-Signature";
pub const EVENT_ID_HEADER: &str = "Subscriber-Event-Id";
pub const EVENT_TYPE_HEADER: &str = "Subscriber-Event-Type";
/// Seconds a signature's time may differ from the receiver's clock (a replay older than this
/// is refused).
pub const DEFAULT_TOLERANCE_SECONDS: u64 = 300;

/// Hex HMAC-SHA256 of `"<timestamp>.<body>"` under `secret`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    hex::encode(mac(secret, timestamp, body).finalize().into_bytes())
}

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| unreachable!());
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
}
