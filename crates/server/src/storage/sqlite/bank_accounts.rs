use rusqlite::{Connection, OptionalExtension, Row, params};

use super::events::record_other;
use crate::storage::StorageResult;
use crate::storage::bank_accounts::{BankAccountRow, COLUMNS, Consent, LinkFailure, LinkStage, LinkStatus, Outcome};
use crate::storage::card_sessions::NewTokenPage;
use crate::storage::idempotency::Replay;

/// The row, with its stage and status as stored.
fn from_row(row: &Row<'_>) -> rusqlite::Result<(BankAccountRow, String, String)> {
    Ok((
        BankAccountRow {
            id: row.get(0)?,
            subscriber_id: row.get(1)?,
            bank_id: row.get(2)?,
            stage: LinkStage::Login,
            browser_hash: row.get(4)?,
            status: LinkStatus::Pending,
            login_failures: row.get(6)?,
            failure_reason: row.get(7)?,
            permissions: row.get(8)?,
            created_at: row.get(9)?,
            expires_at: row.get(10)?,
            linked_at: row.get(11)?,
        },
        row.get(3)?,
        row.get(5)?,
    ))
}

fn finish((mut row, stage, status): (BankAccountRow, String, String)) -> StorageResult<BankAccountRow> {
    row.stage = LinkStage::parse(&stage)?;
    row.status = LinkStatus::parse(&status)?;
    Ok(row)
}

pub fn insert(
    connection: &Connection,
    page: &NewTokenPage,
    bank_id: &str,
    replay: Option<Replay>,
) -> StorageResult<i64> {
    connection
        .prepare_cached(
            "INSERT INTO bank_accounts (subscriber_id, bank_id, link_token_hash, stage, status, created_at, expires_at)
             VALUES (?1, ?2, ?3, 'login', 'pending', ?4, ?5)",
        )?
        .execute(params![page.subscriber_id, bank_id, page.token_hash, page.created_at, page.expires_at])?;
    let id = connection.last_insert_rowid();
    super::idempotency::store_replay(connection, replay, id, page.created_at)?;
    Ok(id)
}

pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<BankAccountRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM bank_accounts WHERE id = ?1 AND subscriber_id = ?2"))?;
    statement.query_row(params![id, subscriber_id], from_row).optional()?.map(finish).transpose()
}

pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<BankAccountRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM bank_accounts WHERE subscriber_id = ?1 ORDER BY id DESC"))?;
    let rows = statement.query_map([subscriber_id], from_row)?;
    rows.map(|row| finish(row?)).collect()
}

pub fn find_by_token(connection: &Connection, link_token_hash: &[u8]) -> StorageResult<Option<BankAccountRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM bank_accounts WHERE link_token_hash = ?1"))?;
    statement.query_row([link_token_hash], from_row).optional()?.map(finish).transpose()
}

const STILL_PENDING: &str = "status = 'pending' AND expires_at > ?2";

pub fn sign_in(
    connection: &Connection,
    id: i64,
    now: i64,
    browser_hash: &[u8],
    next_stage: LinkStage,
) -> StorageResult<bool> {
    let changed = connection
        .prepare_cached(&format!(
            "UPDATE bank_accounts SET stage = ?4, browser_hash = ?3
             WHERE id = ?1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}"
        ))?
        .execute(params![id, now, browser_hash, next_stage.as_str()])?;
    Ok(changed == 1)
}

pub fn pass_code(connection: &Connection, id: i64, now: i64) -> StorageResult<bool> {
    let changed = connection
        .prepare_cached(&format!(
            "UPDATE bank_accounts SET stage = 'consent' WHERE id = ?1 AND stage = 'mfa' AND {STILL_PENDING}"
        ))?
        .execute(params![id, now])?;
    Ok(changed == 1)
}

/// Records the outcome's event for the subscriber who opened the link.
fn record_outcome(connection: &Connection, id: i64, outcome: &Outcome, now: i64) -> StorageResult<()> {
    let subscriber_id: Option<i64> = connection
        .prepare_cached("SELECT subscriber_id FROM bank_accounts WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()?;
    if let Some(subscriber_id) = subscriber_id {
        record_other(connection, subscriber_id, outcome.event_type, &outcome.data, now)?;
    }
    Ok(())
}

pub fn record_login_failure(
    connection: &Connection,
    id: i64,
    now: i64,
    max_failures: u32,
    failure: &LinkFailure,
) -> StorageResult<Option<u32>> {
    let failures: Option<u32> = connection
        .prepare_cached(&format!(
            "UPDATE bank_accounts SET login_failures = login_failures + 1,
                 status = CASE WHEN login_failures + 1 >= ?3 THEN 'failed' ELSE status END,
                 stage = CASE WHEN login_failures + 1 >= ?3 THEN 'done' ELSE stage END,
                 failure_reason = CASE WHEN login_failures + 1 >= ?3 THEN ?4 ELSE failure_reason END
             WHERE id = ?1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING} RETURNING login_failures"
        ))?
        .query_row(params![id, now, max_failures, failure.reason], |row| row.get(0))
        .optional()?;
    if failures.is_some_and(|failures| failures >= max_failures) {
        record_outcome(connection, id, &failure.event, now)?;
    }
    Ok(failures)
}

pub fn fail(connection: &Connection, id: i64, now: i64, failure: &LinkFailure) -> StorageResult<bool> {
    let changed = connection
        .prepare_cached(&format!(
            "UPDATE bank_accounts SET status = 'failed', stage = 'done', failure_reason = ?3 WHERE id = ?1 AND {STILL_PENDING}"
        ))?
        .execute(params![id, now, failure.reason])?;
    if changed == 1 {
        record_outcome(connection, id, &failure.event, now)?;
    }
    Ok(changed == 1)
}

pub fn link(connection: &Connection, id: i64, now: i64, consent: &Consent) -> StorageResult<bool> {
    let changed = connection
        .prepare_cached(&format!(
            "UPDATE bank_accounts SET status = 'linked', stage = 'done', permissions = ?3, access_token = ?4, linked_at = ?2
             WHERE id = ?1 AND stage = 'consent' AND {STILL_PENDING}"
        ))?
        .execute(params![id, now, consent.permissions, consent.access_token])?;
    if changed == 1 {
        record_outcome(connection, id, &consent.event, now)?;
    }
    Ok(changed == 1)
}
