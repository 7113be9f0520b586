//! One-time card-entry pages' rows: found by the hash of their link's token, never by the token.

use super::labels::Labels;
use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::sql;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{CardId, CardSessionId, SubscriberId};

/// A one-time page to open for a subscriber (a card-entry page, a bank link), found later by
/// the hash of its link's token, never by the token.
#[derive(Debug, Clone)]
pub struct NewTokenPage {
    pub subscriber_id: SubscriberId,
    pub token_hash: Vec<u8>,
    pub created_at: UnixSeconds,
    pub expires_at: UnixSeconds,
    /// Where the browser goes back to when the person is done (checked when the page opened).
    pub return_url: Option<String>,
    /// Whose the card or account will be, and the subscriber's notes on it.
    pub labels: Labels,
}

#[derive(Debug, Clone)]
pub struct CardSessionRow {
    pub id: CardSessionId,
    pub subscriber_id: SubscriberId,
    pub created_at: UnixSeconds,
    pub expires_at: UnixSeconds,
    pub failed_attempts: u32,
    pub completed_at: Option<UnixSeconds>,
    pub card_id: Option<CardId>,
    pub return_url: Option<String>,
    /// What the card enrolled on the page takes.
    pub labels: Labels,
}

pub(in crate::storage) const COLUMNS: &str = "id, subscriber_id, created_at, expires_at, failed_attempts, completed_at, card_id, return_url, client_user_id, \
     metadata";

impl FromRow for CardSessionRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            created_at: row.column(2)?,
            expires_at: row.column(3)?,
            failed_attempts: row.column(4)?,
            completed_at: row.column(5)?,
            card_id: row.column(6)?,
            return_url: row.column(7)?,
            labels: super::labels::read(row, 8)?,
        })
    }
}

sql! {
    /// Marks session `$1` of subscriber `$2` as having had its expiry recorded at `$3`, when it is
    /// expired then and was not marked before; returns its id.
    pub(in crate::storage) static MARK_EXPIRED = "UPDATE card_sessions SET expiry_recorded_at = $3
         WHERE id = $1 AND subscriber_id = $2 AND completed_at IS NULL AND expires_at <= $3
             AND expiry_recorded_at IS NULL
         RETURNING id";
}

sql! {
    /// Closes session `$1` at `$2` with card `$3`.
    pub(in crate::storage) static COMPLETE = "UPDATE card_sessions SET completed_at = $2, card_id = $3 WHERE id = $1";
}
