//! Failed logins by subject (see migration 0008): recorded, counted in a window, forgotten.

use super::sql::{Connection, OptionalExtension, Transaction, params};

use super::StorageResult;

/// What a failure is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One e-mail address from one client address.
    Pair,
    /// One client address, whatever the e-mail.
    Address,
    /// One e-mail address, from anywhere.
    Email,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pair => "pair",
            Self::Address => "address",
            Self::Email => "email",
        }
    }
}

pub fn record(transaction: &Transaction<'_>, subjects: &[(Scope, Vec<u8>)], at_ms: i64) -> StorageResult<()> {
    let mut statement =
        transaction.prepare_cached("INSERT INTO login_failures (scope, subject, failed_at_ms) VALUES (?1, ?2, ?3)")?;
    for (scope, subject) in subjects {
        statement.execute(params![scope.as_str(), subject, at_ms])?;
    }
    Ok(())
}

/// When the `nth` newest failure of this subject since `since_ms` happened (1 is the newest),
/// or `None` when it has fewer.
pub fn nth_newest_since(
    connection: &Connection,
    scope: Scope,
    subject: &[u8],
    since_ms: i64,
    nth: usize,
) -> StorageResult<Option<i64>> {
    let offset = i64::try_from(nth.saturating_sub(1)).unwrap_or(i64::MAX);
    let mut statement = connection.prepare_cached(
        "SELECT failed_at_ms FROM login_failures WHERE scope = ?1 AND subject = ?2 AND failed_at_ms > ?3
         ORDER BY failed_at_ms DESC LIMIT 1 OFFSET ?4",
    )?;
    statement.query_row(params![scope.as_str(), subject, since_ms, offset], |row| row.get(0)).optional()
}

pub fn forget(transaction: &Transaction<'_>, scope: Scope, subject: &[u8]) -> StorageResult<usize> {
    transaction
        .execute("DELETE FROM login_failures WHERE scope = ?1 AND subject = ?2", params![scope.as_str(), subject])
}

/// Forgets failures older than `before_ms`.
pub fn purge(transaction: &Transaction<'_>, before_ms: i64) -> StorageResult<usize> {
    transaction.execute("DELETE FROM login_failures WHERE failed_at_ms < ?1", [before_ms])
}
