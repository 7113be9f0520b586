//! Bank accounts being linked or linked. Every step of the link is an update that holds only
//! while the link is pending and unexpired, so a late or repeated step changes nothing.

use super::sql::{Connection, FromValue, OptionalExtension, Row, ToValue, Transaction, Value, params};

use super::StorageResult;

/// Where the person is in the bank's pages (the table's CHECK holds the same four names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkStage {
    /// The bank's sign-in form.
    Login,
    /// Password right, the one-time code asked.
    Mfa,
    /// Signed in: the consent page.
    Consent,
    /// Linked or failed: no step moves it any more.
    Done,
}

/// What the link came to (the table's CHECK holds the same three names). A pending link past
/// `expires_at` reads as expired; that is not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkStatus {
    Pending,
    Linked,
    Failed,
}

impl LinkStage {
    fn as_str(self) -> &'static str {
        match self {
            Self::Login => "login",
            Self::Mfa => "mfa",
            Self::Consent => "consent",
            Self::Done => "done",
        }
    }
}

impl ToValue for LinkStage {
    fn to_value(&self) -> Value {
        Value::Text(self.as_str().to_owned())
    }
}

impl FromValue for LinkStage {
    fn from_value(value: &Value) -> Result<Self, String> {
        match String::from_value(value)?.as_str() {
            "login" => Ok(Self::Login),
            "mfa" => Ok(Self::Mfa),
            "consent" => Ok(Self::Consent),
            "done" => Ok(Self::Done),
            other => Err(format!("unknown bank link stage {other:?}")),
        }
    }
}

impl FromValue for LinkStatus {
    fn from_value(value: &Value) -> Result<Self, String> {
        match String::from_value(value)?.as_str() {
            "pending" => Ok(Self::Pending),
            "linked" => Ok(Self::Linked),
            "failed" => Ok(Self::Failed),
            other => Err(format!("unknown bank link status {other:?}")),
        }
    }
}

#[derive(Debug, Clone)]
pub struct BankAccountRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub bank_id: String,
    pub stage: LinkStage,
    pub browser_hash: Option<Vec<u8>>,
    pub status: LinkStatus,
    pub login_failures: u32,
    pub failure_reason: Option<String>,
    /// Comma-separated: `balances,cards,transactions`.
    pub permissions: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub linked_at: Option<i64>,
}

const COLUMNS: &str = "id, subscriber_id, bank_id, stage, browser_hash, status, login_failures, failure_reason, \
     permissions, created_at, expires_at, linked_at";

fn from_row(row: &Row<'_>) -> super::StorageResult<BankAccountRow> {
    Ok(BankAccountRow {
        id: row.get(0)?,
        subscriber_id: row.get(1)?,
        bank_id: row.get(2)?,
        stage: row.get(3)?,
        browser_hash: row.get(4)?,
        status: row.get(5)?,
        login_failures: row.get(6)?,
        failure_reason: row.get(7)?,
        permissions: row.get(8)?,
        created_at: row.get(9)?,
        expires_at: row.get(10)?,
        linked_at: row.get(11)?,
    })
}

pub fn insert(
    transaction: &Transaction<'_>,
    subscriber_id: i64,
    bank_id: &str,
    link_token_hash: &[u8],
    created_at: i64,
    expires_at: i64,
) -> StorageResult<i64> {
    transaction.execute(
        "INSERT INTO bank_accounts (subscriber_id, bank_id, link_token_hash, stage, status, created_at, expires_at)
         VALUES (?1, ?2, ?3, 'login', 'pending', ?4, ?5)",
        params![subscriber_id, bank_id, link_token_hash, created_at, expires_at],
    )?;
    Ok(transaction.last_insert_rowid())
}

/// The account when it belongs to the subscriber.
pub fn get(connection: &Connection, subscriber_id: i64, id: i64) -> StorageResult<Option<BankAccountRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM bank_accounts WHERE id = ?1 AND subscriber_id = ?2"))?;
    statement.query_row(params![id, subscriber_id], from_row).optional()
}

/// Newest first.
pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<BankAccountRow>> {
    let mut statement = connection
        .prepare_cached(&format!("SELECT {COLUMNS} FROM bank_accounts WHERE subscriber_id = ?1 ORDER BY id DESC"))?;
    let rows = statement.query_map([subscriber_id], from_row)?;
    rows.collect::<Result<_, _>>()
}

pub fn find_by_token(connection: &Connection, link_token_hash: &[u8]) -> StorageResult<Option<BankAccountRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM bank_accounts WHERE link_token_hash = ?1"))?;
    statement.query_row([link_token_hash], from_row).optional()
}

const STILL_PENDING: &str = "status = 'pending' AND expires_at > ?2";

/// The person signed in at the bank in the browser whose nonce hashes to `browser_hash`
/// (again, perhaps in another browser, before consenting); `next_stage` is `Mfa` when the
/// bank asks for a one-time code first, else `Consent`.
pub fn sign_in(
    transaction: &Transaction<'_>,
    id: i64,
    now: i64,
    browser_hash: &[u8],
    next_stage: LinkStage,
) -> StorageResult<bool> {
    let changed = transaction.execute(
        &format!(
            "UPDATE bank_accounts SET stage = ?4, browser_hash = ?3
             WHERE id = ?1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING}"
        ),
        params![id, now, browser_hash, next_stage],
    )?;
    Ok(changed == 1)
}

/// The one-time code was right: on to consent.
pub fn pass_code(transaction: &Transaction<'_>, id: i64, now: i64) -> StorageResult<bool> {
    let changed = transaction.execute(
        &format!("UPDATE bank_accounts SET stage = 'consent' WHERE id = ?1 AND stage = 'mfa' AND {STILL_PENDING}"),
        params![id, now],
    )?;
    Ok(changed == 1)
}

/// Counts a failed sign-in (or one-time code); at `max_failures` the link fails with `reason`. Returns the
/// failures so far, or `None` when the link was no longer pending.
pub fn record_login_failure(
    transaction: &Transaction<'_>,
    id: i64,
    now: i64,
    max_failures: u32,
    reason: &str,
) -> StorageResult<Option<u32>> {
    transaction
        .query_row(
            &format!(
                "UPDATE bank_accounts SET login_failures = login_failures + 1,
                     status = CASE WHEN login_failures + 1 >= ?3 THEN 'failed' ELSE status END,
                     stage = CASE WHEN login_failures + 1 >= ?3 THEN 'done' ELSE stage END,
                     failure_reason = CASE WHEN login_failures + 1 >= ?3 THEN ?4 ELSE failure_reason END
                 WHERE id = ?1 AND stage IN ('login', 'mfa', 'consent') AND {STILL_PENDING} RETURNING login_failures"
            ),
            params![id, now, max_failures, reason],
            |row| row.get(0),
        )
        .optional()
}

pub fn fail(transaction: &Transaction<'_>, id: i64, now: i64, reason: &str) -> StorageResult<bool> {
    let changed = transaction.execute(
        &format!("UPDATE bank_accounts SET status = 'failed', stage = 'done', failure_reason = ?3 WHERE id = ?1 AND {STILL_PENDING}"),
        params![id, now, reason],
    )?;
    Ok(changed == 1)
}

/// The person consented: the bank's scoped token and the permissions it grants are kept.
pub fn link(
    transaction: &Transaction<'_>,
    id: i64,
    now: i64,
    permissions: &str,
    access_token: &str,
) -> StorageResult<bool> {
    let changed = transaction.execute(
        &format!(
            "UPDATE bank_accounts SET status = 'linked', stage = 'done', permissions = ?3, access_token = ?4, linked_at = ?2
             WHERE id = ?1 AND stage = 'consent' AND {STILL_PENDING}"
        ),
        params![id, now, permissions, access_token],
    )?;
    Ok(changed == 1)
}

/// The subscriber who enrolled the account.
pub fn subscriber_of(connection: &Connection, id: i64) -> StorageResult<Option<i64>> {
    connection.query_row("SELECT subscriber_id FROM bank_accounts WHERE id = ?1", [id], |row| row.get(0)).optional()
}
