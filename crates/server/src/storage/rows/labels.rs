//! Whose an object is and the subscriber's notes on it, as the tables keep them: two columns,
//! `client_user_id` (NULL when none) and `metadata` (a JSON object of string pairs), read and
//! written the same way for cards, bank accounts, persons, locations (metadata alone) and
//! card-entry sessions.

use super::{Column, Columns};
use crate::storage::sql::Param;
use crate::storage::{StorageError, StorageResult};

pub use subscriber_protocol::rules::labels::{Labels, Metadata};

/// The two columns from `index` on.
pub fn read(row: &impl Columns, index: usize) -> StorageResult<Labels> {
    Ok(Labels { client_user_id: row.column(index)?, metadata: row.column(index + 1)? })
}

/// The two columns' arguments (owned: a statement may run after the caller's borrow ends).
pub fn args(labels: &Labels) -> [Param<'static>; 2] {
    [labels.client_user_id.clone().into(), metadata_text(&labels.metadata).into()]
}

/// The JSON text a `metadata` column keeps.
pub fn metadata_text(metadata: &Metadata) -> String {
    // A map of strings always serializes.
    serde_json::to_string(metadata).unwrap_or_else(|_| "{}".to_owned())
}

impl Column for Metadata {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.text(index)?
            .map(|text| {
                serde_json::from_str(text).map_err(|error| {
                    StorageError::Corrupt(format!("column {index}: metadata not a JSON object ({error})"))
                })
            })
            .transpose()
    }
}
