//! The rows of `server_keys`: what the database keeps about the service's keys.

use crate::storage::sql::sql;

/// A row of `server_keys`: `(name, value)`.
pub type KeyRow = (String, Vec<u8>);

sql! {
    /// Every row, by name.
    pub(in crate::storage) static ALL = "SELECT name, value FROM server_keys ORDER BY name";
}

sql! {
    /// Removes keys an older version kept here, leaving the check values.
    pub(in crate::storage) static REMOVE_KEYS = "DELETE FROM server_keys WHERE name NOT LIKE 'check:%'";
}
