use super::{Database, execute};
use crate::storage::StorageResult;
use crate::storage::rows::request_history::RequestRecord;

/// The batch in one statement (`unnest` of one array per column).
pub async fn insert(db: &Database, records: Vec<RequestRecord>) -> StorageResult<()> {
    let size = records.len();
    let (mut subscribers, mut request_ids, mut methods, mut routes, mut paths) = (
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
    );
    let (mut queries, mut statuses, mut codes, mut latencies, mut ats) = (
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
    );
    let (mut request_bodies, mut response_bodies, mut truncated, mut object_ids, mut bytes) = (
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
        Vec::with_capacity(size),
    );
    for record in records {
        let line = record.line;
        subscribers.push(line.subscriber_id);
        request_ids.push(line.request_id);
        methods.push(line.method);
        routes.push(line.route);
        paths.push(line.path);
        queries.push(line.query);
        statuses.push(i64::from(line.status));
        codes.push(line.code);
        latencies.push(line.latency_ms);
        ats.push(line.at_ms);
        request_bodies.push(record.request_body);
        response_bodies.push(record.response_body);
        truncated.push(i64::from(record.truncated));
        object_ids.push(record.object_ids);
        bytes.push(record.bytes);
    }
    let client = db.client().await?;
    execute(
        &client,
        "INSERT INTO request_history (subscriber_id, request_id, method, route, path, query, status, code,
                                      latency_ms, at_ms, request_body, response_body, truncated, object_ids, bytes)
         SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::TEXT[],
                              $7::BIGINT[], $8::TEXT[], $9::DOUBLE PRECISION[], $10::BIGINT[], $11::TEXT[],
                              $12::TEXT[], $13::BIGINT[], $14::TEXT[], $15::BIGINT[])",
        &[
            &subscribers,
            &request_ids,
            &methods,
            &routes,
            &paths,
            &queries,
            &statuses,
            &codes,
            &latencies,
            &ats,
            &request_bodies,
            &response_bodies,
            &truncated,
            &object_ids,
            &bytes,
        ],
    )
    .await?;
    Ok(())
}
