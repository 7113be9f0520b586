//! The service's own keys (token signing, card fingerprints), made on first start and kept
//! with the data so tokens and fingerprints stay valid across restarts.

use rand::RngCore;
use rusqlite::{OptionalExtension, Transaction, params};

use super::StorageResult;

pub fn load_or_create(transaction: &Transaction<'_>, name: &str, now: i64) -> StorageResult<Vec<u8>> {
    let existing: Option<Vec<u8>> =
        transaction.query_row("SELECT value FROM server_keys WHERE name = ?1", [name], |row| row.get(0)).optional()?;
    if let Some(value) = existing {
        return Ok(value);
    }
    let mut value = vec![0u8; 32];
    rand::rng().fill_bytes(&mut value);
    transaction
        .execute("INSERT INTO server_keys (name, value, created_at) VALUES (?1, ?2, ?3)", params![name, value, now])?;
    Ok(value)
}
