//! What every handler shares.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;

use crate::config::Config;
use crate::directory::Directory;
use crate::storage::{self, Db};
use crate::subscriber::auth::TokenIssuer;
use crate::subscriber::usage::UsageRecorder;

/// Cloned for every request by each layer and handler that takes state: one reference count
/// instead of one per field.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

pub struct Shared {
    pub config: Arc<Config>,
    pub db: Db,
    pub auth: Arc<TokenIssuer>,
    /// The subscribers' current credential generations: what revokes tokens at a rotation.
    pub generations: Arc<crate::subscriber::revocation::CredentialGenerations>,
    pub usage: Arc<UsageRecorder>,
    /// Key of the card fingerprints (HMAC-SHA256): recognises a card enrolled twice without
    /// keeping its number.
    pub fingerprint_key: Arc<[u8]>,
    /// Key of the hosted pages' form tokens (HMAC-SHA256 over session and browser).
    pub hosted_key: Arc<[u8]>,
    pub idempotency: Arc<crate::http::idempotency::InFlight>,
    pub directory: Arc<Directory>,
    pub limits: Arc<crate::limits::Limits>,
    /// Announces committed transaction events to the real-time streams.
    pub events: Arc<crate::realtime::EventHub>,
    /// `GET /openapi.json`, serialized once when the router is built.
    pub openapi: Arc<std::sync::OnceLock<bytes::Bytes>>,
}

impl AppState {
    /// Opens the database and loads (or makes) the service's keys.
    pub async fn new(config: Config) -> anyhow::Result<Self> {
        let db = Db::open(&config.database)?;
        let now = Utc::now().timestamp();
        let (signing_key, fingerprint_key, hosted_key) = db
            .write(move |transaction| {
                Ok((
                    storage::keys::load_or_create(transaction, "token_signing", now)?,
                    storage::keys::load_or_create(transaction, "card_fingerprint", now)?,
                    storage::keys::load_or_create(transaction, "hosted_forms", now)?,
                ))
            })
            .await?;
        let auth = TokenIssuer::new(
            &signing_key,
            Duration::from_secs(config.token_validity_seconds),
            config.environment.as_str(),
        );
        let usage = UsageRecorder::new(config.environment);
        let limits = crate::limits::Limits::new(&config);
        let directory = Directory::open(&db, config.sandbox_seed, config.directory_size).await?;
        Ok(Self(Arc::new(Shared {
            config: Arc::new(config),
            db,
            auth: Arc::new(auth),
            generations: Arc::default(),
            usage: Arc::new(usage),
            fingerprint_key: fingerprint_key.into(),
            hosted_key: hosted_key.into(),
            idempotency: Arc::default(),
            directory: Arc::new(directory),
            limits: Arc::new(limits),
            events: Arc::default(),
            openapi: Arc::default(),
        })))
    }

    /// The base URL of the hosted pages' links, without a trailing slash.
    pub fn public_url(&self) -> String {
        self.config.public_base_url()
    }

    /// Whether the hosted pages are served over HTTPS (their cookies are then `Secure`).
    pub fn public_url_is_https(&self) -> bool {
        self.config.public_base_url().starts_with("https://")
    }

    pub fn environment(&self) -> subscriber_protocol::Environment {
        self.config.environment
    }
}
