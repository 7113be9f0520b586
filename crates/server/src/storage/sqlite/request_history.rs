use rusqlite::Connection;

use crate::storage::StorageResult;
use crate::storage::rows::request_history::{INSERT, RequestRecord};
use crate::storage::sql::args;

/// The batch, in the writer's transaction.
pub fn insert(connection: &Connection, records: &[RequestRecord]) -> StorageResult<()> {
    for record in records {
        let line = &record.line;
        let arguments = args![
            line.subscriber_id,
            &line.request_id,
            &line.method,
            line.route.as_ref(),
            &line.path,
            line.query.as_ref(),
            line.status,
            line.code.as_ref(),
            line.latency_ms,
            line.at_ms,
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
