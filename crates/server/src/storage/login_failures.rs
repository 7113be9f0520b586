//! Failed logins by subject (see migration 0008): recorded, counted in a window, forgotten.

use super::sql::{args, sql};
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::UnixMillis;

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

/// A subject whose failures are counted, and how many it may have in the window.
pub type Limited = (Scope, Vec<u8>, usize);

impl Store {
    pub async fn record_login_failures(&self, subjects: Vec<(Scope, Vec<u8>)>, at_ms: UnixMillis) -> StorageResult<()> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::login_failures::record(connection, &subjects, at_ms)).await,
            db => postgres::login_failures::record(db, subjects, at_ms).await,
        )
    }

    /// For each subject with at least its limit of failures since `since_ms`, when the
    /// `limit`-th newest happened; the latest of those, or `None` when no subject is at its limit.
    pub async fn login_failures_deciding(
        &self,
        subjects: Vec<Limited>,
        since_ms: UnixMillis,
    ) -> StorageResult<Option<UnixMillis>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::login_failures::deciding(connection, &subjects, since_ms)).await,
            db => postgres::login_failures::deciding(db, &subjects, since_ms).await,
        )
    }

    pub async fn forget_login_failures(&self, scope: Scope, subject: Vec<u8>) -> StorageResult<u64> {
        let sql = sql!("DELETE FROM login_failures WHERE scope = $1 AND subject = $2");
        self.execute(sql, args![scope.as_str(), subject]).await
    }

    /// Forgets failures older than `before_ms`.
    pub async fn purge_login_failures(&self, before_ms: UnixMillis) -> StorageResult<u64> {
        self.execute_maintenance(sql!("DELETE FROM login_failures WHERE failed_at_ms < $1"), args![before_ms]).await
    }
}
