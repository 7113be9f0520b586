//! A person's hosted identity pages' rows: found by the hash of their link's token, never by
//! the token.

use super::{Columns, FromRow};
use crate::storage::StorageResult;
use subscriber_protocol::PersonId;
use subscriber_protocol::PersonSessionId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

#[derive(Debug, Clone)]
pub struct PersonSessionRow {
    pub id: PersonSessionId,
    pub subscriber_id: SubscriberId,
    pub person_id: PersonId,
    pub created_at: UnixSeconds,
    pub expires_at: UnixSeconds,
    /// Where the browser goes back to when the person is done (checked when the page opened).
    pub return_url: Option<String>,
    /// When the person was verified or locked on it: the page is used then.
    pub completed_at: Option<UnixSeconds>,
}

pub(in crate::storage) const COLUMNS: &str =
    "id, subscriber_id, person_id, created_at, expires_at, return_url, completed_at";

impl FromRow for PersonSessionRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            person_id: row.column(2)?,
            created_at: row.column(3)?,
            expires_at: row.column(4)?,
            return_url: row.column(5)?,
            completed_at: row.column(6)?,
        })
    }
}
