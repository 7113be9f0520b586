use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};

use super::{StorageResult, is_unique_violation};

#[derive(Debug, Clone)]
pub struct SubscriberRow {
    pub id: i64,
    pub email: String,
    pub client_id: String,
    pub public_key: String,
    pub secret_hash: String,
    pub created_at: i64,
}

const COLUMNS: &str = "id, email, client_id, public_key, secret_hash, created_at";

fn from_row(row: &Row<'_>) -> rusqlite::Result<SubscriberRow> {
    Ok(SubscriberRow {
        id: row.get(0)?,
        email: row.get(1)?,
        client_id: row.get(2)?,
        public_key: row.get(3)?,
        secret_hash: row.get(4)?,
        created_at: row.get(5)?,
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
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![new.email, new.client_id, new.public_key, new.secret_hash, new.created_at],
    );
    match inserted {
        Ok(_) => Ok(Some(transaction.last_insert_rowid())),
        Err(error) if is_unique_violation(&error) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

pub fn find_by_email(connection: &Connection, email: &str) -> StorageResult<Option<SubscriberRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM subscribers WHERE email = ?1"))?;
    Ok(statement.query_row([email], from_row).optional()?)
}

pub fn find(connection: &Connection, id: i64) -> StorageResult<Option<SubscriberRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM subscribers WHERE id = ?1"))?;
    Ok(statement.query_row([id], from_row).optional()?)
}

pub fn replace_secret(transaction: &Transaction<'_>, id: i64, secret_hash: &str, now: i64) -> StorageResult<bool> {
    let changed = transaction.execute(
        "UPDATE subscribers SET secret_hash = ?2, secret_rotated_at = ?3 WHERE id = ?1",
        params![id, secret_hash, now],
    )?;
    Ok(changed == 1)
}
