//! Credentials: API secrets (argon2id hashes at rest) and the JWTs a login hands out, and
//! their revocation by secret rotation ([`revocation`]).

pub mod revocation;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

use argon2::password_hash::phc::PasswordHash;
use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use chrono::Utc;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use parking_lot::RwLock;
use rand::Rng;
use rand::distr::Alphanumeric;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// What a token says: the subscriber (`sub`), its client id, and when it stops working.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// The subscriber id, as a string as JWT wants it.
    pub sub: String,
    pub cid: String,
    pub env: String,
    pub iat: i64,
    pub exp: i64,
    /// The subscriber's credential generation at login: a secret rotation revokes older ones.
    /// Tokens issued before generations existed have none, which is generation 0.
    #[serde(default)]
    pub r#gen: i64,
}

pub struct TokenIssuer {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    validity: Duration,
    environment: String,
    /// Tokens this process verified, by their text: a client sends the same token with every
    /// request, and its signature and claims need checking only once. Only valid tokens are
    /// kept, and each hit checks the expiry again; revocation is checked per request by the
    /// caller (credential generations), not here.
    verified: RwLock<HashMap<Box<str>, VerifiedToken>>,
}

/// What a valid token says.
#[derive(Debug, Clone)]
pub struct VerifiedToken {
    pub subscriber_id: SubscriberId,
    pub client_id: Arc<str>,
    /// The credential generation the token was issued under.
    pub generation: i64,
    /// When the token stops working (Unix seconds).
    pub expires_at: UnixSeconds,
}

/// Verified tokens kept at most; past it the cache starts afresh.
const VERIFIED_TOKENS: usize = 50_000;

impl TokenIssuer {
    pub fn new(signing_key: &[u8], validity: Duration, environment: &str) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Self {
            encoding: EncodingKey::from_secret(signing_key),
            decoding: DecodingKey::from_secret(signing_key),
            validation,
            validity,
            environment: environment.to_owned(),
            verified: RwLock::default(),
        }
    }

    pub fn validity_seconds(&self) -> u64 {
        self.validity.as_secs()
    }

    pub fn issue(&self, subscriber_id: SubscriberId, client_id: &str, generation: i64) -> Result<String, ApiError> {
        let now = Utc::now();
        // `exp` has whole seconds: rounding up keeps the token alive for at least the
        // `validity_seconds` the login answers (rounding down cut up to a second off).
        let expiry_base = now.timestamp() + i64::from(now.timestamp_subsec_nanos() > 0);
        let claims = Claims {
            sub: subscriber_id.to_string(),
            cid: client_id.to_owned(),
            env: self.environment.clone(),
            iat: now.timestamp(),
            exp: expiry_base + i64::try_from(self.validity.as_secs()).unwrap_or(i64::MAX / 2),
            r#gen: generation,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(ApiError::internal)
    }

    /// What a valid token says: its signature, expiry and environment checked (once per
    /// token text; the expiry on every call).
    pub fn verify_token(&self, token: &str) -> Result<VerifiedToken, ApiError> {
        if let Some(verified) = self.verified.read().get(token) {
            if verified.expires_at <= UnixSeconds::now() {
                return Err(ApiError::TokenExpired);
            }
            return Ok(verified.clone());
        }
        let (subscriber_id, claims) = self.decode(token)?;
        let verified = VerifiedToken {
            subscriber_id,
            client_id: claims.cid.into(),
            generation: claims.r#gen,
            expires_at: UnixSeconds(claims.exp),
        };
        let mut cache = self.verified.write();
        if cache.len() >= VERIFIED_TOKENS {
            cache.clear();
        }
        cache.insert(token.into(), verified.clone());
        Ok(verified)
    }

    /// The subscriber id a valid token speaks for, with its claims.
    fn decode(&self, token: &str) -> Result<(SubscriberId, Claims), ApiError> {
        let data =
            jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).map_err(|error| {
                match error.kind() {
                    ErrorKind::ExpiredSignature => ApiError::TokenExpired,
                    _ => ApiError::Unauthorized("the token is not valid: log in for a new one".to_owned()),
                }
            })?;
        // `exp` is checked with whole seconds; a token is dead from its expiry second on.
        if data.claims.exp <= UnixSeconds::now().get() {
            return Err(ApiError::TokenExpired);
        }
        if data.claims.env != self.environment {
            return Err(ApiError::Unauthorized(format!(
                "the token was issued for the {} environment",
                data.claims.env
            )));
        }
        let subscriber_id = data
            .claims
            .sub
            .parse()
            .map_err(|_| ApiError::Unauthorized("the token is not valid: log in for a new one".to_owned()))?;
        Ok((subscriber_id, data.claims))
    }
}

/// New API credentials: the secret goes to the subscriber once, its hash to the database.
pub struct NewCredentials {
    pub client_id: String,
    pub public_key: String,
    pub secret: String,
}

pub fn new_credentials(environment: &str) -> NewCredentials {
    let short = match environment {
        "sandbox" => "test",
        "expansion" => "exp",
        _ => "live",
    };
    NewCredentials {
        client_id: format!("cli_{}", random_text(20).to_ascii_lowercase()),
        public_key: format!("pk_{short}_{}", random_text(32)),
        secret: new_secret(environment),
    }
}

pub fn new_secret(environment: &str) -> String {
    let short = match environment {
        "sandbox" => "test",
        "expansion" => "exp",
        _ => "live",
    };
    format!("sk_{short}_{}", random_text(40))
}

fn random_text(length: usize) -> String {
    rand::rng().sample_iter(&Alphanumeric).take(length).map(char::from).collect()
}

/// argon2id with the crate's defaults (19 MiB, 2 passes): slow for a guesser, fine for a login.
pub fn hash_secret(secret: &str) -> Result<String, ApiError> {
    Argon2::default()
        .hash_password(secret.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|error| ApiError::internal(anyhow::anyhow!("hashing failed: {error}")))
}

pub fn secret_matches(secret: &str, stored_hash: &str) -> bool {
    match PasswordHash::new(stored_hash) {
        Ok(hash) => Argon2::default().verify_password(secret.as_bytes(), &hash).is_ok(),
        Err(_) => false,
    }
}

/// Checked against when the e-mail is unknown, so an unknown e-mail costs the same time as a
/// wrong key and the two failures cannot be told apart.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| hash_secret("decoy-secret-never-issued").unwrap_or_default());
    DECOY.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_verify_only_against_their_own_hash() {
        let hash = hash_secret("sk_test_abc").expect("hashes");
        assert!(hash.starts_with("$argon2id$"));
        assert!(secret_matches("sk_test_abc", &hash));
        assert!(!secret_matches("sk_test_abd", &hash));
        assert!(!secret_matches("sk_test_abc", "not a hash"));
    }

    #[test]
    fn tokens_carry_the_subscriber_and_expire() {
        let issuer = TokenIssuer::new(b"0123456789abcdef0123456789abcdef", Duration::from_secs(60), "sandbox");
        let token = issuer.issue(SubscriberId(7), "cli_x", 0).expect("issues");
        let verified = issuer.verify_token(&token).expect("valid");
        assert_eq!((verified.subscriber_id, &*verified.client_id), (SubscriberId(7), "cli_x"));
        let again = issuer.verify_token(&token).expect("still valid, from the cache");
        assert_eq!((again.subscriber_id, again.expires_at), (SubscriberId(7), verified.expires_at));
        // `issue` rounds the expiry up to the next second, so a zero validity is not yet
        // expired: sign a token whose expiry has passed instead.
        let now = UnixSeconds::now();
        let claims = Claims {
            sub: "7".to_owned(),
            cid: "cli_x".to_owned(),
            env: "sandbox".to_owned(),
            iat: now.get() - 120,
            exp: now.get() - 60,
            r#gen: 0,
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &issuer.encoding).expect("encodes");
        assert!(matches!(issuer.verify_token(&token), Err(ApiError::TokenExpired)));
        let other_key = TokenIssuer::new(b"fedcba9876543210fedcba9876543210", Duration::from_secs(60), "sandbox");
        assert!(matches!(
            other_key.verify_token(&issuer.issue(SubscriberId(7), "c", 0).expect("issues")),
            Err(ApiError::Unauthorized(_))
        ));
    }
}
