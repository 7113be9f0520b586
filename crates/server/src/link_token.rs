//! One-time link tokens: the secret in a hosted page's link (a card-entry session, a bank
//! link), made when the session is, and stored only as a hash.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A new random token: 256 bits, URL-safe.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// What the database keeps of a token. The token has 256 random bits, so a plain hash is
/// as hard to reverse as the token is to guess.
pub fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_url_safe() {
        let (first, second) = (new_token(), new_token());
        assert_ne!(first, second);
        assert_eq!(first.len(), 43);
        assert!(first.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_'));
        assert_eq!(hash(&first), hash(&first));
        assert_ne!(hash(&first), hash(&second));
    }
}
