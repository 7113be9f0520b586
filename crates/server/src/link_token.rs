//! One-time link tokens: the secret in a hosted page's link (a card-entry session, a bank
//! link), made when the session is, and stored only as a hash.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::rules::labels::Labels;

use crate::storage::card_sessions::NewTokenPage;

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

/// A hosted page about to open: the secret its link carries, what the database keeps of it
/// (the hash), and how long it works. A card-entry page, an identity page, a bank link and a
/// bank link's update mode all open this way.
pub struct OpeningPage {
    token: String,
    pub token_hash: Vec<u8>,
    pub created_at: UnixSeconds,
    pub expires_at: UnixSeconds,
}

impl OpeningPage {
    /// A page opened at `now` (seconds) that works for `valid_for` seconds (the service's
    /// `hosted_session_seconds`).
    pub fn new(now: UnixSeconds, valid_for: u64) -> Self {
        let token = new_token();
        let token_hash = hash(&token);
        let expires_at = now.plus(std::time::Duration::from_secs(valid_for));
        Self { token, token_hash, created_at: now, expires_at }
    }

    /// The address the person opens: `{public_url}{path}?{parameter}={token}`.
    pub fn url(&self, public_url: &str, path: &str, parameter: &str) -> String {
        format!("{public_url}{path}?{parameter}={}", self.token)
    }

    /// The page as the database keeps it (a card-entry page, a bank link).
    pub fn into_token_page(
        self,
        subscriber_id: SubscriberId,
        return_url: Option<String>,
        labels: Labels,
    ) -> NewTokenPage {
        NewTokenPage {
            subscriber_id,
            token_hash: self.token_hash,
            created_at: self.created_at,
            expires_at: self.expires_at,
            return_url,
            labels,
        }
    }
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

    #[test]
    fn an_opening_page_keeps_the_hash_of_the_token_its_link_carries() {
        let page = OpeningPage::new(UnixSeconds(1_000), 900);
        let url = page.url("https://pay.example", "/secure/card", "session");
        let token = url.strip_prefix("https://pay.example/secure/card?session=").unwrap_or_default();
        assert_eq!(token.len(), 43);
        assert_eq!(page.token_hash, hash(token));
        assert_eq!((page.created_at, page.expires_at), (UnixSeconds(1_000), UnixSeconds(1_900)));
        assert_eq!(OpeningPage::new(UnixSeconds(i64::MAX - 1), u64::MAX).expires_at, UnixSeconds(i64::MAX));
    }
}
