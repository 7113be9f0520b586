//! A signed-in subscriber: the token lives here, in memory only, with the secret that renews it.

use chrono::{DateTime, Duration, Utc};
use subscriber_protocol::SubscriberProfile;

use crate::error::CommandError;
use crate::service::Service;
use crate::views::SessionInfo;

/// The longest a token is renewed ahead of its expiry.
const MAX_RENEWAL_MARGIN_SECONDS: i64 = 60;

pub struct Session {
    pub email: String,
    /// Kept to renew the token without asking; never written anywhere but the OS keyring, and
    /// there only when the user asks to be remembered.
    secret: String,
    token: String,
    pub expires_at: DateTime<Utc>,
    pub validity_seconds: u64,
    pub profile: SubscriberProfile,
    pub remembered: bool,
    /// Logins made by this session (the first included): renewal is checked with it.
    pub logins: u32,
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
    /// Logs in and reads the profile.
    pub async fn log_in(service: &Service, email: &str, secret: &str) -> Result<Self, CommandError> {
        let email = email.trim().to_ascii_lowercase();
        let issued_at = Utc::now();
        let login = service.login(&email, secret).await?;
        let profile = service.profile(&login.token).await?;
        Ok(Self {
            email,
            secret: secret.to_owned(),
            token: login.token,
            expires_at: expiry(issued_at, login.validity_seconds),
            validity_seconds: login.validity_seconds,
            profile,
            remembered: false,
            logins: 1,
        })
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn secret(&self) -> &str {
        &self.secret
    }

    pub fn replace_secret(&mut self, secret: String) {
        self.secret = secret;
    }

    /// Renewal starts a fifth of the validity (at most a minute) before expiry.
    pub fn renewal_due(&self, now: DateTime<Utc>) -> bool {
        let validity_ms = i64::try_from(self.validity_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
        let margin = Duration::milliseconds((validity_ms / 5).min(MAX_RENEWAL_MARGIN_SECONDS * 1000));
        self.expires_at - margin <= now
    }

    /// A new token for the same secret.
    pub async fn renew(&mut self, service: &Service) -> Result<(), CommandError> {
        let issued_at = Utc::now();
        let login = service.login(&self.email, &self.secret).await?;
        self.token = login.token;
        self.validity_seconds = login.validity_seconds;
        self.expires_at = expiry(issued_at, login.validity_seconds);
        self.logins += 1;
        tracing::debug!(expires_at = %self.expires_at, "token renewed");
        Ok(())
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
