use tokio_postgres::Row;

use super::idempotency::{OwnedParams, insert_keeping_replay};
use super::{Database, query_one, query_opt, unsigned};
use crate::storage::StorageResult;
use crate::storage::card_sessions::{COLUMNS, CardSessionRow, NewTokenPage};
use crate::storage::idempotency::Replay;

fn from_row(row: &Row) -> StorageResult<CardSessionRow> {
    Ok(CardSessionRow {
        id: row.try_get(0)?,
        subscriber_id: row.try_get(1)?,
        created_at: row.try_get(2)?,
        expires_at: row.try_get(3)?,
        failed_attempts: unsigned(row, 4)?,
        completed_at: row.try_get(5)?,
        card_id: row.try_get(6)?,
    })
}

const INSERT: &str = "INSERT INTO card_sessions (subscriber_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4) RETURNING id";

pub async fn insert(db: &Database, page: NewTokenPage, replay: Option<Replay>) -> StorageResult<i64> {
    let NewTokenPage { subscriber_id, token_hash, created_at, expires_at } = page;
    let params: OwnedParams =
        vec![Box::new(subscriber_id), Box::new(token_hash), Box::new(created_at), Box::new(expires_at)];
    insert_keeping_replay(db, INSERT, params, created_at, replay).await
}

pub async fn get(db: &Database, subscriber_id: i64, id: i64) -> StorageResult<Option<CardSessionRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {COLUMNS} FROM card_sessions WHERE id = $1 AND subscriber_id = $2"),
        &[&id, &subscriber_id],
    )
    .await?
    .map(|row| from_row(&row))
    .transpose()
}

pub async fn find_by_token(db: &Database, token_hash: &[u8]) -> StorageResult<Option<CardSessionRow>> {
    let client = db.client().await?;
    query_opt(&client, &format!("SELECT {COLUMNS} FROM card_sessions WHERE token_hash = $1"), &[&token_hash])
        .await?
        .map(|row| from_row(&row))
        .transpose()
}

pub async fn record_failure(db: &Database, id: i64, max_attempts: u32, now: i64) -> StorageResult<u32> {
    let client = db.client().await?;
    let row = query_one(
        &client,
        "UPDATE card_sessions SET failed_attempts = failed_attempts + 1,
             expires_at = CASE WHEN failed_attempts + 1 >= $2 THEN LEAST(expires_at, $3) ELSE expires_at END
         WHERE id = $1 RETURNING failed_attempts",
        &[&id, &i64::from(max_attempts), &now],
    )
    .await?;
    unsigned(&row, 0)
}
