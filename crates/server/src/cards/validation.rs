//! Card enrollment's rules are `subscriber_protocol::rules::cards` (the API and the secure
//! page apply them); what only the service does with a valid card is here.

use hmac::{Hmac, Mac};
use sha2::Sha256;

pub use subscriber_protocol::rules::cards::{CardInput, ValidCard};

/// HMAC-SHA256 of the PAN: equal for the same card, useless to recover the number.
pub fn fingerprint(key: &[u8], pan_digits: &str) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC accepts keys of every length");
    mac.update(pan_digits.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_keyed() {
        assert_eq!(fingerprint(b"k", "4242424242424242"), fingerprint(b"k", "4242424242424242"));
        assert_ne!(fingerprint(b"k", "4242424242424242"), fingerprint(b"j", "4242424242424242"));
    }
}
