use tokio_postgres::Row;

use super::{Database, query_opt};
use crate::storage::StorageResult;
use crate::storage::subscribers::{COLUMNS, NewSubscriber, SubscriberRow};

fn from_row(row: &Row) -> StorageResult<SubscriberRow> {
    Ok(SubscriberRow {
        id: row.try_get(0)?,
        email: row.try_get(1)?,
        client_id: row.try_get(2)?,
        public_key: row.try_get(3)?,
        secret_hash: row.try_get(4)?,
        created_at: row.try_get(5)?,
        credential_generation: row.try_get(6)?,
    })
}

pub async fn insert(db: &Database, new: &NewSubscriber) -> StorageResult<Option<i64>> {
    let client = db.client().await?;
    let row = query_opt(
        &client,
        "INSERT INTO subscribers (email, client_id, public_key, secret_hash, created_at, api_version)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id",
        &[&new.email, &new.client_id, &new.public_key, &new.secret_hash, &new.created_at, &new.api_version],
    )
    .await?;
    Ok(row.map(|row| row.try_get(0)).transpose()?)
}

pub async fn find_by_email(db: &Database, email: &str) -> StorageResult<Option<SubscriberRow>> {
    let client = db.client().await?;
    query_opt(&client, &format!("SELECT {COLUMNS} FROM subscribers WHERE email = $1"), &[&email])
        .await?
        .map(|row| from_row(&row))
        .transpose()
}

pub async fn find(db: &Database, id: i64) -> StorageResult<Option<SubscriberRow>> {
    let client = db.client().await?;
    query_opt(&client, &format!("SELECT {COLUMNS} FROM subscribers WHERE id = $1"), &[&id])
        .await?
        .map(|row| from_row(&row))
        .transpose()
}

pub async fn replace_secret(
    db: &Database,
    id: i64,
    replaced_hash: &str,
    secret_hash: &str,
    now: i64,
) -> StorageResult<Option<i64>> {
    let client = db.client().await?;
    let row = query_opt(
        &client,
        "UPDATE subscribers SET secret_hash = $3, secret_rotated_at = $4,
             credential_generation = credential_generation + 1
         WHERE id = $1 AND secret_hash = $2 RETURNING credential_generation",
        &[&id, &replaced_hash, &secret_hash, &now],
    )
    .await?;
    Ok(row.map(|row| row.try_get(0)).transpose()?)
}

pub async fn credential_generation(db: &Database, id: i64) -> StorageResult<Option<i64>> {
    let client = db.client().await?;
    let row = query_opt(&client, "SELECT credential_generation FROM subscribers WHERE id = $1", &[&id]).await?;
    Ok(row.map(|row| row.try_get(0)).transpose()?)
}

pub async fn api_version(db: &Database, id: i64) -> StorageResult<Option<String>> {
    let client = db.client().await?;
    let row = query_opt(&client, "SELECT api_version FROM subscribers WHERE id = $1", &[&id]).await?;
    Ok(row.map(|row| row.try_get(0)).transpose()?)
}

pub async fn set_api_version(db: &Database, id: i64, version: &str) -> StorageResult<bool> {
    let client = db.client().await?;
    Ok(super::execute(&client, "UPDATE subscribers SET api_version = $2 WHERE id = $1", &[&id, &version]).await? == 1)
}
