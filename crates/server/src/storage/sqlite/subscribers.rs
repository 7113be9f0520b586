use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::storage::StorageResult;
use crate::storage::subscribers::{COLUMNS, NewSubscriber, SubscriberRow};

fn from_row(row: &Row<'_>) -> rusqlite::Result<SubscriberRow> {
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

pub fn insert(connection: &Connection, new: &NewSubscriber) -> StorageResult<Option<i64>> {
    let inserted = connection
        .prepare_cached(
            "INSERT INTO subscribers (email, client_id, public_key, secret_hash, created_at, api_version)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
        )?
        .execute(params![new.email, new.client_id, new.public_key, new.secret_hash, new.created_at, new.api_version])?;
    Ok((inserted == 1).then(|| connection.last_insert_rowid()))
}

pub fn find_by_email(connection: &Connection, email: &str) -> StorageResult<Option<SubscriberRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM subscribers WHERE email = ?1"))?;
    Ok(statement.query_row([email], from_row).optional()?)
}

pub fn find(connection: &Connection, id: i64) -> StorageResult<Option<SubscriberRow>> {
    let mut statement = connection.prepare_cached(&format!("SELECT {COLUMNS} FROM subscribers WHERE id = ?1"))?;
    Ok(statement.query_row([id], from_row).optional()?)
}

pub fn replace_secret(
    connection: &Connection,
    id: i64,
    replaced_hash: &str,
    secret_hash: &str,
    now: i64,
) -> StorageResult<Option<i64>> {
    let mut statement = connection.prepare_cached(
        "UPDATE subscribers SET secret_hash = ?3, secret_rotated_at = ?4,
             credential_generation = credential_generation + 1
         WHERE id = ?1 AND secret_hash = ?2 RETURNING credential_generation",
    )?;
    Ok(statement.query_row(params![id, replaced_hash, secret_hash, now], |row| row.get(0)).optional()?)
}

pub fn credential_generation(connection: &Connection, id: i64) -> StorageResult<Option<i64>> {
    let mut statement = connection.prepare_cached("SELECT credential_generation FROM subscribers WHERE id = ?1")?;
    Ok(statement.query_row([id], |row| row.get(0)).optional()?)
}

pub fn api_version(connection: &Connection, id: i64) -> StorageResult<Option<String>> {
    let mut statement = connection.prepare_cached("SELECT api_version FROM subscribers WHERE id = ?1")?;
    Ok(statement.query_row([id], |row| row.get(0)).optional()?)
}

pub fn set_api_version(connection: &Connection, id: i64, version: &str) -> StorageResult<bool> {
    let changed = connection
        .prepare_cached("UPDATE subscribers SET api_version = ?2 WHERE id = ?1")?
        .execute(params![id, version])?;
    Ok(changed == 1)
}
