//! Subscribers: their credentials (the secret only as a slow hash) and credential generations.

use super::changes::Change;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

#[derive(Debug, Clone)]
pub struct SubscriberRow {
    pub id: i64,
    pub email: String,
    pub client_id: String,
    pub public_key: String,
    pub secret_hash: String,
    pub created_at: i64,
    /// Moves on at each secret rotation; tokens of an older generation are revoked.
    pub credential_generation: i64,
}

pub(super) const COLUMNS: &str = "id, email, client_id, public_key, secret_hash, created_at, credential_generation";

#[derive(Debug, Clone)]
pub struct NewSubscriber {
    pub email: String,
    pub client_id: String,
    pub public_key: String,
    pub secret_hash: String,
    pub created_at: i64,
    /// The API version it is pinned to.
    pub api_version: String,
}

impl Store {
    /// The new subscriber's id; `None` when the e-mail is already signed up.
    pub async fn insert_subscriber(&self, new: NewSubscriber) -> StorageResult<Option<i64>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::subscribers::insert(connection, &new)).await,
            db => postgres::subscribers::insert(db, &new).await,
        )
    }

    pub async fn subscriber_by_email(&self, email: &str) -> StorageResult<Option<SubscriberRow>> {
        dispatch!(self,
            db => {
                let email = email.to_owned();
                db.read_by_key(move |connection| sqlite::subscribers::find_by_email(connection, &email)).await
            },
            db => postgres::subscribers::find_by_email(db, email).await,
        )
    }

    pub async fn subscriber(&self, id: i64) -> StorageResult<Option<SubscriberRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::subscribers::find(connection, id)).await,
            db => postgres::subscribers::find(db, id).await,
        )
    }

    /// Replaces the secret's hash, when it is still `replaced_hash`, and moves the credential
    /// generation on (every instance then refuses older tokens); the new generation, or `None`
    /// when the subscriber or that hash is gone.
    pub async fn replace_secret(
        &self,
        id: i64,
        replaced_hash: String,
        secret_hash: String,
        now: i64,
    ) -> StorageResult<Option<i64>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::subscribers::replace_secret(connection, id, &replaced_hash, &secret_hash, now)).await,
            db => {
                let generation = postgres::subscribers::replace_secret(db, id, &replaced_hash, &secret_hash, now).await?;
                if generation.is_some() {
                    db.notify(Change::Credentials(id).payload());
                }
                Ok(generation)
            },
        )
    }

    /// The current credential generation of a subscriber, `None` when there is no such one.
    pub async fn credential_generation(&self, id: i64) -> StorageResult<Option<i64>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::subscribers::credential_generation(connection, id)).await,
            db => postgres::subscribers::credential_generation(db, id).await,
        )
    }

    /// The subscriber's pinned API version (`YYYY-MM-DD`), `None` when there is no such one.
    pub async fn api_version(&self, id: i64) -> StorageResult<Option<String>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::subscribers::api_version(connection, id)).await,
            db => postgres::subscribers::api_version(db, id).await,
        )
    }

    /// Pins the subscriber to `version` (every instance hears of it); whether it exists.
    pub async fn set_api_version(&self, id: i64, version: String) -> StorageResult<bool> {
        let changed = dispatch!(self,
            db => db.write(move |connection| sqlite::subscribers::set_api_version(connection, id, &version)).await,
            db => postgres::subscribers::set_api_version(db, id, &version).await,
        )?;
        if changed {
            self.announce(&Change::ApiVersion(id));
        }
        Ok(changed)
    }
}
