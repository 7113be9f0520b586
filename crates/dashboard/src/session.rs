//! A signed-in subscriber: one typed client per session. The client holds the token (in memory
//! only), renews it shortly before it expires and logs in again on `token_expired`; the app
//! renews a little earlier still, on a timer, so a call never waits for a login.

use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use subscriber_client::Client;
use subscriber_protocol::{MerchantCategory, SubscriberProfile};

use crate::error::CommandError;
use crate::views::{Lookup, SessionInfo};

/// The longest a token is renewed ahead of its expiry.
const MAX_RENEWAL_MARGIN_SECONDS: i64 = 60;

pub struct Session {
    pub email: String,
    /// Kept for "reveal" on the credentials screen; never written anywhere but the OS keyring,
    /// and there only when the user asks to be remembered. The client has its own copy to log in.
    secret: String,
    pub client: Client,
    pub expires_at: DateTime<Utc>,
    pub validity_seconds: u64,
    pub profile: SubscriberProfile,
    pub remembered: bool,
    /// The service's merchant categories, read once per session for the picker.
    pub categories: Option<Vec<MerchantCategory>>,
    /// Merchant lookups of this session, newest first.
    pub lookups: Vec<Lookup>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("email", &self.email)
            .field("expires_at", &self.expires_at)
            .field("remembered", &self.remembered)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Logs in (now, so wrong credentials say so at once) and reads the profile.
    pub async fn log_in(client: Client, email: &str, secret: &str) -> Result<Self, CommandError> {
        let issued_at = Utc::now();
        let login = client.login().await?;
        let profile = client.subscriber().await?;
        let validity_seconds = login.validity.as_secs();
        let mut session = Self {
            email: email.to_owned(),
            secret: secret.to_owned(),
            client,
            expires_at: expiry(issued_at, validity_seconds),
            validity_seconds,
            profile,
            remembered: false,
            categories: None,
            lookups: Vec::new(),
        };
        session.note_token().await;
        Ok(session)
    }

    pub fn secret(&self) -> &str {
        &self.secret
    }

    pub fn replace_secret(&mut self, secret: String) {
        self.secret = secret;
    }

    /// Renewal starts a fifth of the validity (at most a minute) before expiry: earlier than
    /// the client's own, so it happens on the app's timer rather than inside a user's call.
    pub fn renewal_due(&self, now: DateTime<Utc>) -> bool {
        let validity_ms = i64::try_from(self.validity_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
        let margin = Duration::milliseconds((validity_ms / 5).min(MAX_RENEWAL_MARGIN_SECONDS * 1000));
        self.expires_at - margin <= now
    }

    /// A new token for the same secret, now.
    pub async fn renew(&mut self) -> Result<(), CommandError> {
        let issued_at = Utc::now();
        let login = self.client.login().await?;
        self.validity_seconds = login.validity.as_secs();
        self.expires_at = expiry(issued_at, self.validity_seconds);
        self.note_token().await;
        tracing::debug!(expires_at = %self.expires_at, "token renewed");
        Ok(())
    }

    /// Reads the expiry of the token the client holds now (it may have logged in by itself):
    /// the `exp` claim of the JWT, which only this process sees.
    pub async fn note_token(&mut self) {
        if let Some(token) = self.client.token().await
            && let Some(expires_at) = jwt_expiry(token.expose())
        {
            self.expires_at = expires_at;
        }
    }

    /// Logins made by this session's client (the first included).
    pub fn logins(&self) -> u64 {
        self.client.metrics().logins
    }

    pub fn info(&self) -> SessionInfo {
        SessionInfo {
            email: self.email.clone(),
            client_id: self.profile.client_id.clone(),
            public_key: self.profile.public_key.clone(),
            environment: self.profile.environment,
            created_at: self.profile.created_at,
            token_expires_at: self.expires_at,
            validity_seconds: self.validity_seconds,
            secret_remembered: self.remembered,
        }
    }
}

/// Counted from before the request, so the app never believes a token lives longer than it does.
fn expiry(issued_at: DateTime<Utc>, validity_seconds: u64) -> DateTime<Utc> {
    issued_at + Duration::seconds(i64::try_from(validity_seconds).unwrap_or(i64::MAX / 1000))
}

/// The `exp` claim of a JWT (not verified: the service verifies; this is only for showing how
/// long the token has left).
fn jwt_expiry(token: &str) -> Option<DateTime<Utc>> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    DateTime::from_timestamp(claims.get("exp")?.as_i64()?, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expiry_is_read_from_the_token() {
        let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(br#"{"sub":"7","exp":1900000000}"#);
        let token = format!("eyJhbGciOiJIUzI1NiJ9.{payload}.signature");
        assert_eq!(jwt_expiry(&token), DateTime::from_timestamp(1_900_000_000, 0));
        assert_eq!(jwt_expiry("not-a-jwt"), None);
        assert_eq!(jwt_expiry("a.b.c"), None);
    }
}
