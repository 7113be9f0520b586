//! What every handler shares.

use std::sync::Arc;
use std::time::Duration;
use subscriber_protocol::UnixSeconds;

use crate::config::Config;
use crate::credentials::TokenIssuer;
use crate::directory::LazyDirectory;
use crate::keys::Keys;
use crate::storage::Store;
use crate::usage::UsageRecorder;

/// Card bodies kept in memory: about 300 bytes each.
const CARD_BODIES: usize = 100_000;
/// Bytes of rendered transaction pages kept in memory (a page of 100 is about 45 KB).
const TRANSACTION_PAGE_BYTES: usize = 64 << 20;
/// Bytes of cards' rows kept in memory (a card's 36-month sandbox history is about 600 KB).
const CARD_ROW_BYTES: usize = 256 << 20;

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
    pub db: Store,
    pub auth: Arc<TokenIssuer>,
    /// The subscribers' current credential generations: what revokes tokens at a rotation.
    pub generations: Arc<crate::credentials::revocation::CredentialGenerations>,
    pub usage: Arc<UsageRecorder>,
    /// Key of the card fingerprints (HMAC-SHA256): recognises a card enrolled twice without
    /// keeping its number.
    pub fingerprint_key: Arc<[u8]>,
    /// Key of the hosted pages' form tokens (HMAC-SHA256 over session and browser).
    pub hosted_key: Arc<[u8]>,
    /// All the service's keys, from the key file (never from the database).
    pub keys: Arc<Keys>,
    pub directory: Arc<LazyDirectory>,
    /// What the matcher found for the network data of stored transactions.
    pub enrichment_memo: Arc<crate::enrichment::stored::EnrichmentMemo>,
    /// `GET /card/{id}` bodies: a card never changes once enrolled.
    pub card_bodies: Arc<crate::body_cache::BodyCache>,
    /// Pages of transactions kept while they are still the answer.
    pub transaction_pages: Arc<crate::transaction_pages::TransactionPages>,
    /// Each card's rows with their JSON, kept while they are the card's rows.
    pub card_rows: Arc<crate::card_rows::CardRows>,
    pub limits: Arc<crate::limits::Limits>,
    /// Announces committed transaction events to the real-time streams.
    pub events: Arc<crate::events::EventHub>,
    /// Each subscriber's request history (`GET /subscriber/requests`), on its way to the database.
    pub request_history: Arc<crate::request_history::RequestHistory>,
    /// Where identity questions come from; `None` (501 `not_configured`) outside the sandbox
    /// until a real source is configured.
    pub identity_source: Option<Arc<dyn crate::identity_source::IdentitySource>>,
    /// Each version's `GET /openapi.json` and the version changes ready to apply, made once
    /// when the router is built.
    pub versions: Arc<std::sync::OnceLock<crate::versions::Published>>,
    /// The subscribers' pinned API versions.
    pub pins: Arc<crate::versions::Pins>,
}

/// The key file's keys, checked against the database; keys an older version kept in the
/// database move to the file and leave the database. Instances started together on a new
/// database with different key files: the first to store its checks wins, the others refuse to
/// start.
async fn load_keys(config: &Config, db: &Store) -> anyhow::Result<Keys> {
    let path = config.key_file()?;
    if config.keys.is_none() && config.database.file().is_none() {
        tracing::info!(path = %path.display(), "key file of the PostgreSQL database (give every instance this file: --keys)");
    }
    let stored = db.stored_keys().await?;
    let (checks, legacy): (Vec<_>, Vec<_>) = stored.into_iter().partition(|(name, _)| name.starts_with("check:"));
    let keys = Keys::load_or_create(&path, &legacy, &checks)?;
    let now = UnixSeconds::now();
    let settled = db.settle_key_checks(keys.checks(), now).await?;
    keys.verify_checks(&settled, &path)?;
    if !legacy.is_empty() {
        // The deleted keys may still sit in the write-ahead log until it is checkpointed.
        db.checkpoint().await?;
        tracing::info!(path = %path.display(), "the service's keys moved from the database to the key file");
    }
    Ok(keys)
}

impl AppState {
    /// The enricher of stored transactions over the loaded directory (loading it first if
    /// nobody has).
    pub async fn enricher(&self) -> Result<crate::enrichment::stored::Enricher, crate::error::ApiError> {
        let directory = self.directory.get().await.map_err(crate::error::ApiError::internal)?;
        Ok(self.enrichment_memo.enricher(directory))
    }

    /// Opens the database and loads (or makes) the service's keys.
    pub async fn new(config: Config) -> anyhow::Result<Self> {
        let db = Store::open_with(&config.database, config.database_timeouts()).await?;
        db.limit_webhook_queues(config.webhook_queue_max).await?;
        let keys = Arc::new(load_keys(&config, &db).await?);
        let auth = TokenIssuer::new(
            &keys.token_signing,
            Duration::from_secs(config.token_validity_seconds),
            config.environment.as_str(),
        );
        let usage = UsageRecorder::new(config.environment);
        let limits = crate::limits::Limits::new(&config, db.clone(), Arc::clone(&keys));
        let directory = LazyDirectory::new(db.clone(), config.sandbox_seed, config.directory_size);
        let identity_source = crate::identity_source::for_environment(&config);
        let events = Arc::new(crate::events::EventHub::new(config.max_streams));
        let request_history = crate::request_history::RequestHistory::new(config.request_log_kept_for());
        Ok(Self(Arc::new(Shared {
            config: Arc::new(config),
            db,
            auth: Arc::new(auth),
            generations: Arc::default(),
            usage: Arc::new(usage),
            fingerprint_key: keys.card_fingerprint.clone().into(),
            hosted_key: keys.hosted_forms.clone().into(),
            keys,
            directory: Arc::new(directory),
            enrichment_memo: Arc::default(),
            card_bodies: Arc::new(crate::body_cache::BodyCache::new(CARD_BODIES)),
            transaction_pages: Arc::new(crate::transaction_pages::TransactionPages::new(TRANSACTION_PAGE_BYTES)),
            card_rows: Arc::new(crate::card_rows::CardRows::new(CARD_ROW_BYTES)),
            limits: Arc::new(limits),
            events,
            request_history: Arc::new(request_history),
            identity_source,
            versions: Arc::default(),
            pins: Arc::default(),
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
