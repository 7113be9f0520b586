use rusqlite::Connection;

use crate::storage::StorageResult;
use crate::storage::rows::request_history::{INSERT, RequestRecord};
use crate::storage::sql::args;

/// The batch, in the writer's transaction.
pub fn insert(connection: &Connection, records: &[RequestRecord]) -> StorageResult<()> {
    for record in records {
        let arguments = args![
            record.subscriber_id,
            &record.request_id,
            &record.method,
            record.route.as_ref(),
            &record.path,
            record.query.as_ref(),
            record.status,
            record.code.as_ref(),
            record.latency_ms,
            record.at_ms,
            record.request_body.as_ref(),
            record.response_body.as_ref(),
            record.truncated,
            &record.object_ids,
            record.bytes
        ];
        super::rows::execute(connection, &INSERT, rusqlite::params_from_iter(&arguments))?;
    }
    Ok(())
}
