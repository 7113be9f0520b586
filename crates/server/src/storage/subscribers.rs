//! Subscribers: their credentials (the secret only as a slow hash) and credential generations.

use super::notices::Change;
use super::rows::subscribers::COLUMNS;
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

pub use super::rows::subscribers::{NewSubscriber, SubscriberRow};

/// A change of the subscriber's profile (`PATCH /subscriber`): each field given replaces what is
/// kept, each `None` leaves it.
#[derive(Debug, Clone, Default)]
pub struct ProfileChange {
    pub api_version: Option<String>,
    pub display_name: Option<String>,
    pub brand_color: Option<String>,
    /// JSON array of strings.
    pub return_urls: Option<String>,
}

impl Store {
    /// The new subscriber's id; `None` when the e-mail is already signed up.
    pub async fn insert_subscriber(&self, new: NewSubscriber) -> StorageResult<Option<SubscriberId>> {
        let NewSubscriber { email, client_id, public_key, secret_hash, created_at, api_version } = new;
        let sql = sql!(
            "INSERT INTO subscribers (email, client_id, public_key, secret_hash, created_at, api_version)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id"
        );
        self.execute_returning(sql, args![email, client_id, public_key, secret_hash, created_at, api_version]).await
    }

    pub async fn subscriber_by_email(&self, email: &str) -> StorageResult<Option<SubscriberRow>> {
        let sql = sql!("SELECT {COLUMNS} FROM subscribers WHERE email = $1");
        self.fetch_one(Read::ByKey, sql, args![email.to_owned()]).await
    }

    pub async fn subscriber(&self, id: SubscriberId) -> StorageResult<Option<SubscriberRow>> {
        self.fetch_one(Read::ByKey, sql!("SELECT {COLUMNS} FROM subscribers WHERE id = $1"), args![id]).await
    }

    /// Replaces the secret's hash, when it is still `replaced_hash`, and moves the credential
    /// generation on (every instance then refuses older tokens); the new generation, or `None`
    /// when the subscriber or that hash is gone.
    pub async fn replace_secret(
        &self,
        id: SubscriberId,
        replaced_hash: String,
        secret_hash: String,
        now: UnixSeconds,
    ) -> StorageResult<Option<i64>> {
        let sql = sql!(
            "UPDATE subscribers SET secret_hash = $3, secret_rotated_at = $4,
                 credential_generation = credential_generation + 1
             WHERE id = $1 AND secret_hash = $2 RETURNING credential_generation"
        );
        let generation = self.execute_returning(sql, args![id, replaced_hash, secret_hash, now]).await?;
        if generation.is_some() {
            self.announce(&Change::Credentials(id));
        }
        Ok(generation)
    }

    /// The current credential generation of a subscriber, `None` when there is no such one.
    pub async fn credential_generation(&self, id: SubscriberId) -> StorageResult<Option<i64>> {
        let sql = sql!("SELECT credential_generation FROM subscribers WHERE id = $1");
        self.fetch_one(Read::ByKey, sql, args![id]).await
    }

    /// The subscriber's pinned API version (`YYYY-MM-DD`), `None` when there is no such one.
    pub async fn api_version(&self, id: SubscriberId) -> StorageResult<Option<String>> {
        self.fetch_one(Read::ByKey, sql!("SELECT api_version FROM subscribers WHERE id = $1"), args![id]).await
    }

    /// Applies the change in one statement (a new pin: every instance hears of it); whether the
    /// subscriber exists.
    pub async fn update_profile(&self, id: SubscriberId, change: ProfileChange) -> StorageResult<bool> {
        let ProfileChange { api_version, display_name, brand_color, return_urls } = change;
        let pins = api_version.is_some();
        let sql = sql!(
            "UPDATE subscribers SET api_version = COALESCE($2, api_version),
                 display_name = COALESCE($3, display_name), brand_color = COALESCE($4, brand_color),
                 return_urls = COALESCE($5, return_urls)
             WHERE id = $1"
        );
        let changed = self.execute(sql, args![id, api_version, display_name, brand_color, return_urls]).await?;
        if changed == 1 && pins {
            self.announce(&Change::ApiVersion(id));
        }
        Ok(changed == 1)
    }
}
