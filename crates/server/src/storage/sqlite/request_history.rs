use rusqlite::Connection;

use crate::storage::StorageResult;
use crate::storage::rows::request_history::{INSERT, KEEP_ANSWER, KeptAnswer, RequestRecord};
use crate::storage::sql::args;

/// The batch and the answers it keeps once, in the writer's transaction.
pub fn insert(connection: &Connection, records: &[RequestRecord], answers: &[KeptAnswer]) -> StorageResult<()> {
    for answer in answers {
        let arguments = args![answer.subscriber_id, &answer.digest, &answer.body, answer.last_at_ms];
        super::rows::execute(connection, &KEEP_ANSWER, rusqlite::params_from_iter(&arguments))?;
    }
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
            record.bytes,
            record.response_answer.as_ref()
        ];
        super::rows::execute(connection, &INSERT, rusqlite::params_from_iter(&arguments))?;
    }
    Ok(())
}
