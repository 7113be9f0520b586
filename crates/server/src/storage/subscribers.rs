use super::sql::{Connection, OptionalExtension, Row, Transaction, params};

use super::StorageResult;

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

const COLUMNS: &str = "id, email, client_id, public_key, secret_hash, created_at, credential_generation";

fn from_row(row: &Row<'_>) -> super::StorageResult<SubscriberRow> {
    Ok(SubscriberRow {
        id: row.get(0)?,
        email: row.get(1)?,
        client_id: row.get(2)?,
        public_key: row.get(3)?,
        secret_hash: row.get(4)?,
        created_at: row.get(5)?,
        credential_generation: row.get(6)?,
    })
}

pub struct NewSubscriber<'a> {
    pub email: &'a str,
    pub client_id: &'a str,
    pub public_key: &'a str,
    pub secret_hash: &'a str,
    pub created_at: i64,
}

/// `Ok(None)` when the e-mail is already signed up.
pub fn insert(transaction: &Transaction<'_>, new: &NewSubscriber<'_>) -> StorageResult<Option<i64>> {
    let inserted = transaction.execute(
        "INSERT INTO subscribers (email, client_id, public_key, secret_hash, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT DO NOTHING",
        params![new.email, new.client_id, new.public_key, new.secret_hash, new.created_at],
    )?;
    // A taken e-mail inserts nothing (a failed statement would end a PostgreSQL transaction).
    Ok((inserted == 1).then(|| transaction.last_insert_rowid()))
}

pub fn find_by_email(connection: &Connection, email: &str) -> StorageResult<Option<SubscriberRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM subscribers WHERE email = ?1"))?;
    statement.query_row([email], from_row).optional()
}

pub fn find(connection: &Connection, id: i64) -> StorageResult<Option<SubscriberRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM subscribers WHERE id = ?1"))?;
    statement.query_row([id], from_row).optional()
}

/// Replaces the secret's hash, when it is still `replaced_hash`, and moves the credential
/// generation on; the new generation, or `None` when the subscriber or that hash is gone.
pub fn replace_secret(
    transaction: &Transaction<'_>,
    id: i64,
    replaced_hash: &str,
    secret_hash: &str,
    now: i64,
) -> StorageResult<Option<i64>> {
    let mut statement = transaction.prepare_cached(
        "UPDATE subscribers SET secret_hash = ?3, secret_rotated_at = ?4,
             credential_generation = credential_generation + 1
         WHERE id = ?1 AND secret_hash = ?2 RETURNING credential_generation",
    )?;
    let generation = statement.query_row(params![id, replaced_hash, secret_hash, now], |row| row.get(0)).optional()?;
    if generation.is_some() {
        super::changes::announce(transaction, super::changes::Change::Credentials(id))?;
    }
    Ok(generation)
}

/// The current credential generation of a subscriber, `None` when there is no such subscriber.
pub fn credential_generation(connection: &Connection, id: i64) -> StorageResult<Option<i64>> {
    let mut statement = connection.prepare_cached("SELECT credential_generation FROM subscribers WHERE id = ?1")?;
    statement.query_row([id], |row| row.get(0)).optional()
}

/// The subscriber's pinned API version (`YYYY-MM-DD`), `None` when there is no such subscriber.
pub fn api_version(connection: &Connection, id: i64) -> StorageResult<Option<String>> {
    let mut statement = connection.prepare_cached("SELECT api_version FROM subscribers WHERE id = ?1")?;
    statement.query_row([id], |row| row.get(0)).optional()
}

/// Pins the subscriber to `version`; whether the subscriber exists.
pub fn set_api_version(transaction: &Transaction<'_>, id: i64, version: &str) -> StorageResult<bool> {
    let changed = transaction.execute("UPDATE subscribers SET api_version = ?2 WHERE id = ?1", params![id, version])?;
    if changed == 1 {
        super::changes::announce(transaction, super::changes::Change::ApiVersion(id))?;
    }
    Ok(changed == 1)
}
