//! Credentials and the bearer token: lazy login, renewal shortly before expiry, one login at a
//! time however many calls need a token.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::RwLock;
use tokio::sync::Mutex;

use crate::error::{Error, Result};

/// A secret string (API secret or token) that never shows in `Debug` or `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, to send or store; never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

/// A subscriber's e-mail and API secret (the `secret` of signup, sent as `api_key` at login).
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub email: String,
    pub secret: Secret,
}

impl Credentials {
    pub fn new(email: impl Into<String>, secret: impl Into<Secret>) -> Self {
        Self { email: email.into(), secret: secret.into() }
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("email", &self.email).field("secret", &self.secret).finish()
    }
}

/// A token and when to stop using it.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub value: Secret,
    /// As the login answered it (`validity_seconds`), when known.
    pub validity: Option<Duration>,
    /// After this the client logs in again before the next call.
    pub renew_at: Option<Instant>,
}

impl Token {
    /// `sent_at` is when the login request left: the service counts validity from when it
    /// answered, so the token lives at least `validity` from `sent_at`.
    pub fn issued(value: String, sent_at: Instant, validity: Duration) -> Self {
        let expires_at = sent_at + validity;
        Self { value: Secret(value), validity: Some(validity), renew_at: Some(expires_at - renewal_margin(validity)) }
    }

    /// A token from elsewhere: used until the service says it has expired.
    pub fn external(value: Secret, validity: Option<Duration>) -> Self {
        let now = Instant::now();
        match validity {
            Some(validity) => Self {
                value,
                validity: Some(validity),
                renew_at: Some(now + validity.saturating_sub(renewal_margin(validity))),
            },
            None => Self { value, validity: None, renew_at: None },
        }
    }

    fn is_fresh(&self, now: Instant) -> bool {
        self.renew_at.is_none_or(|renew_at| now < renew_at)
    }
}

/// How long before expiry a token is renewed: 30 s, or a tenth of a short validity, so a call
/// never leaves with a token that dies on the way.
pub(crate) fn renewal_margin(validity: Duration) -> Duration {
    Duration::from_secs(30).min(validity / 10)
}

#[derive(Default)]
struct TokenSlot {
    token: Option<Token>,
    /// Why the last login failed, handed to the callers that were waiting for it instead of
    /// each trying again (failed logins are rate limited; an unreachable service would make
    /// every waiter sit through its own retries).
    last_failure: Option<Error>,
}

pub(crate) struct Auth {
    credentials: RwLock<Option<Credentials>>,
    slot: Mutex<TokenSlot>,
    /// Finished login attempts. Read before queueing for the slot, so a caller that waited
    /// while someone else logged in can tell that a login happened meanwhile.
    attempts: AtomicU64,
}

/// What logging in takes: the client does the HTTP call.
pub(crate) trait LogIn {
    async fn log_in(&self, credentials: &Credentials) -> Result<Token>;
}

impl Auth {
    pub fn new(credentials: Option<Credentials>, token: Option<Token>) -> Self {
        Self {
            credentials: RwLock::new(credentials),
            slot: Mutex::new(TokenSlot { token, ..TokenSlot::default() }),
            attempts: AtomicU64::new(0),
        }
    }

    pub fn credentials(&self) -> Option<Credentials> {
        self.credentials.read().clone()
    }

    pub fn has_credentials(&self) -> bool {
        self.credentials.read().is_some()
    }

    pub fn set_secret(&self, secret: Secret) {
        if let Some(credentials) = self.credentials.write().as_mut() {
            credentials.secret = secret;
        }
    }

    /// Drops the token held (a secret rotation revoked it): the next call logs in again.
    pub async fn forget_token(&self) {
        self.slot.lock().await.token = None;
    }

    pub async fn current(&self) -> Option<Token> {
        self.slot.lock().await.token.clone()
    }

    /// A token good for the next call: the one held while fresh, else a new login. Callers
    /// queue on the slot, so however many need a token at once, one login happens.
    pub async fn token(&self, client: &impl LogIn) -> Result<Option<Secret>> {
        self.token_replacing(client, None).await
    }

    /// After the service rejected `rejected` as expired: a new token, unless another caller
    /// already got one.
    pub async fn renew_after_rejection(&self, client: &impl LogIn, rejected: &Secret) -> Result<Option<Secret>> {
        self.token_replacing(client, Some(rejected)).await
    }

    /// Logs in now, whatever the token held.
    pub async fn force_login(&self, client: &impl LogIn) -> Result<Token> {
        let mut slot = self.slot.lock().await;
        let credentials = self
            .credentials()
            .ok_or_else(|| Error::invalid("credentials", "this client has no credentials to log in with"))?;
        self.login_into(&mut slot, client, &credentials).await
    }

    async fn token_replacing(&self, client: &impl LogIn, rejected: Option<&Secret>) -> Result<Option<Secret>> {
        let attempts_before = self.attempts.load(Ordering::Acquire);
        let mut slot = self.slot.lock().await;
        if let Some(token) = usable(&slot, rejected) {
            return Ok(Some(token));
        }
        if self.attempts.load(Ordering::Acquire) != attempts_before
            && let Some(failure) = &slot.last_failure
        {
            return Err(failure.duplicate());
        }
        let Some(credentials) = self.credentials() else {
            // Nothing better to send: the service answers with the precise 401.
            return Ok(slot.token.as_ref().map(|token| token.value.clone()));
        };
        let token = self.login_into(&mut slot, client, &credentials).await?;
        Ok(Some(token.value))
    }

    async fn login_into(&self, slot: &mut TokenSlot, client: &impl LogIn, credentials: &Credentials) -> Result<Token> {
        let outcome = client.log_in(credentials).await;
        match &outcome {
            Ok(token) => {
                slot.token = Some(token.clone());
                slot.last_failure = None;
            }
            Err(error) => slot.last_failure = Some(error.duplicate()),
        }
        self.attempts.fetch_add(1, Ordering::AcqRel);
        outcome
    }
}

fn usable(slot: &TokenSlot, rejected: Option<&Secret>) -> Option<Secret> {
    let token = slot.token.as_ref()?;
    if rejected.is_some_and(|rejected| *rejected == token.value) {
        return None;
    }
    token.is_fresh(Instant::now()).then(|| token.value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_show_in_debug() {
        let credentials = Credentials::new("dev@example.com", "sk_test_abc");
        let shown = format!("{credentials:?}");
        assert!(shown.contains("dev@example.com"));
        assert!(!shown.contains("sk_test_abc"), "{shown}");
    }

    #[test]
    fn renewal_happens_shortly_before_expiry() {
        assert_eq!(renewal_margin(Duration::from_secs(18_000)), Duration::from_secs(30));
        assert_eq!(renewal_margin(Duration::from_secs(2)), Duration::from_millis(200));
        let sent_at = Instant::now();
        let token = Token::issued("t".to_owned(), sent_at, Duration::from_secs(2));
        assert_eq!(token.renew_at, Some(sent_at + Duration::from_millis(1800)));
        assert!(token.is_fresh(sent_at + Duration::from_millis(1799)));
        assert!(!token.is_fresh(sent_at + Duration::from_millis(1800)));
    }
}
