use futures::FutureExt;
use tokio_postgres::Row;

use super::events::record_other;
use super::idempotency::{OwnedParams, borrowed, insert_keeping_replay};
use super::{Client, Database, LOCK_ACCOUNT_OWNER, execute, query, query_opt, unsigned};
use crate::storage::StorageResult;
use crate::storage::bank_accounts::{BankAccountRow, COLUMNS, Consent, LinkFailure, LinkStage, LinkStatus, Outcome};
use crate::storage::card_sessions::NewTokenPage;
use crate::storage::changes::Change;
use crate::storage::idempotency::Replay;

fn from_row(row: &Row) -> StorageResult<BankAccountRow> {
    Ok(BankAccountRow {
        id: row.try_get(0)?,
        subscriber_id: row.try_get(1)?,
        bank_id: row.try_get(2)?,
        stage: LinkStage::parse(row.try_get(3)?)?,
        browser_hash: row.try_get(4)?,
        status: LinkStatus::parse(row.try_get(5)?)?,
        login_failures: unsigned(row, 6)?,
        failure_reason: row.try_get(7)?,
        permissions: row.try_get(8)?,
        created_at: row.try_get(9)?,
        expires_at: row.try_get(10)?,
        linked_at: row.try_get(11)?,
    })
}

const INSERT: &str =
    "INSERT INTO bank_accounts (subscriber_id, bank_id, link_token_hash, stage, status, created_at, expires_at)
     VALUES ($1, $2, $3, 'login', 'pending', $4, $5) RETURNING id";

pub async fn insert(
    db: &Database,
    page: NewTokenPage,
    bank_id: &'static str,
    replay: Option<Replay>,
) -> StorageResult<i64> {
    let NewTokenPage { subscriber_id, token_hash, created_at, expires_at } = page;
    let params: OwnedParams = vec![
        Box::new(subscriber_id),
        Box::new(bank_id),
        Box::new(token_hash),
        Box::new(created_at),
        Box::new(expires_at),
    ];
    insert_keeping_replay(db, INSERT, params, created_at, replay).await
}

pub async fn get(db: &Database, subscriber_id: i64, id: i64) -> StorageResult<Option<BankAccountRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {COLUMNS} FROM bank_accounts WHERE id = $1 AND subscriber_id = $2"),
        &[&id, &subscriber_id],
    )
    .await?
    .map(|row| from_row(&row))
    .transpose()
}

pub async fn list(db: &Database, subscriber_id: i64) -> StorageResult<Vec<BankAccountRow>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        &format!("SELECT {COLUMNS} FROM bank_accounts WHERE subscriber_id = $1 ORDER BY id DESC"),
        &[&subscriber_id],
    )
    .await?;
    rows.iter().map(from_row).collect()
}

pub async fn find_by_token(db: &Database, token_hash: &[u8]) -> StorageResult<Option<BankAccountRow>> {
    let client = db.client().await?;
    query_opt(&client, &format!("SELECT {COLUMNS} FROM bank_accounts WHERE link_token_hash = $1"), &[&token_hash])
        .await?
        .map(|row| from_row(&row))
        .transpose()
}

const STILL_PENDING: &str = "status = 'pending' AND expires_at > $2";

pub async fn sign_in(
    db: &Database,
    id: i64,
    now: i64,
    browser_hash: &[u8],
    next_stage: LinkStage,
) -> StorageResult<bool> {
    let client = db.client().await?;
    let changed = execute(
        &client,
        &format!(
            "UPDATE bank_accounts SET stage = $4, browser_hash = $3
             WHERE id = $1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}"
        ),
        &[&id, &now, &browser_hash, &next_stage.as_str()],
    )
    .await?;
    Ok(changed == 1)
}

pub async fn pass_code(db: &Database, id: i64, now: i64) -> StorageResult<bool> {
    let client = db.client().await?;
    let changed = execute(
        &client,
        &format!("UPDATE bank_accounts SET stage = 'consent' WHERE id = $1 AND stage = 'mfa' AND {STILL_PENDING}"),
        &[&id, &now],
    )
    .await?;
    Ok(changed == 1)
}

/// A step that may end the link: in one write that first locks the subscriber who opened it,
/// runs `update` (returning the subscriber when it changed the row, and the failures so far),
/// and records `outcome`'s event when `ends` says the step ended the link.
async fn step(
    db: &Database,
    id: i64,
    now: i64,
    update: String,
    params: OwnedParams,
    outcome: Outcome,
    ends: impl FnOnce(i64) -> bool + Send + 'static,
) -> StorageResult<Option<i64>> {
    let (changed, queued) = db
        .write(move |client: &Client| {
            async move {
                let params = borrowed(&params);
                let (locked, updated) = futures::future::join(
                    execute(client, LOCK_ACCOUNT_OWNER, &[&id]),
                    query_opt(client, &update, &params),
                )
                .await;
                locked?;
                let Some(row) = updated? else { return Ok((None, 0)) };
                let (subscriber_id, failures): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
                let mut queued = 0;
                if ends(failures) {
                    queued = record_other(client, subscriber_id, outcome.event_type, &outcome.data, now).await?.1;
                }
                Ok((Some(failures), queued))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(changed)
}

pub async fn record_login_failure(
    db: &Database,
    id: i64,
    now: i64,
    max_failures: u32,
    failure: LinkFailure,
) -> StorageResult<Option<u32>> {
    let max = i64::from(max_failures);
    let update = format!(
        "UPDATE bank_accounts SET login_failures = login_failures + 1,
             status = CASE WHEN login_failures + 1 >= $3 THEN 'failed' ELSE status END,
             stage = CASE WHEN login_failures + 1 >= $3 THEN 'done' ELSE stage END,
             failure_reason = CASE WHEN login_failures + 1 >= $3 THEN $4 ELSE failure_reason END
         WHERE id = $1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}
         RETURNING subscriber_id, login_failures"
    );
    let failures = step(
        db,
        id,
        now,
        update,
        vec![Box::new(id), Box::new(now), Box::new(max), Box::new(failure.reason)],
        failure.event,
        move |failures| failures >= max,
    )
    .await?;
    failures
        .map(|failures| {
            u32::try_from(failures).map_err(|_| crate::storage::StorageError::Corrupt("failures out of range".into()))
        })
        .transpose()
}

pub async fn fail(db: &Database, id: i64, now: i64, failure: LinkFailure) -> StorageResult<bool> {
    let update = format!(
        "UPDATE bank_accounts SET status = 'failed', stage = 'done', failure_reason = $3
         WHERE id = $1 AND {STILL_PENDING} RETURNING subscriber_id, login_failures"
    );
    let changed =
        step(db, id, now, update, vec![Box::new(id), Box::new(now), Box::new(failure.reason)], failure.event, |_| true)
            .await?;
    Ok(changed.is_some())
}

pub async fn link(db: &Database, id: i64, now: i64, consent: Consent) -> StorageResult<bool> {
    let update = format!(
        "UPDATE bank_accounts SET status = 'linked', stage = 'done', permissions = $3, access_token = $4, linked_at = $2
         WHERE id = $1 AND stage = 'consent' AND {STILL_PENDING} RETURNING subscriber_id, login_failures"
    );
    let changed = step(
        db,
        id,
        now,
        update,
        vec![Box::new(id), Box::new(now), Box::new(consent.permissions), Box::new(consent.access_token)],
        consent.event,
        |_| true,
    )
    .await?;
    Ok(changed.is_some())
}
