use super::{Database, execute};
use crate::storage::StorageResult;
use crate::storage::rows::request_history::{ANSWER_CONFLICT, KeptAnswer, RequestRecord};

/// The batch in one statement (`unnest` of one array per column), after the answers it keeps
/// once in another.
pub async fn insert(db: &Database, records: Vec<RequestRecord>, answers: Vec<KeptAnswer>) -> StorageResult<()> {
    let client = db.client().await?;
    if !answers.is_empty() {
        let size = answers.len();
        let (mut subscribers, mut digests, mut bodies, mut ats) =
            (Vec::with_capacity(size), Vec::with_capacity(size), Vec::with_capacity(size), Vec::with_capacity(size));
        for answer in answers {
            subscribers.push(answer.subscriber_id);
            digests.push(answer.digest);
            bodies.push(answer.body);
            ats.push(answer.last_at_ms);
        }
        execute(
            &client,
            &format!(
                "INSERT INTO request_answers (subscriber_id, digest, body, last_at_ms)
                 SELECT * FROM unnest($1::BIGINT[], $2::BYTEA[], $3::TEXT[], $4::BIGINT[]) {ANSWER_CONFLICT}"
            ),
            &[&subscribers, &digests, &bodies, &ats],
        )
        .await?;
    }
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
    let (mut request_bodies, mut response_bodies, mut truncated, mut object_ids, mut bytes, mut answer_digests) = (
        Vec::with_capacity(size),
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
        answer_digests.push(record.response_answer);
    }
    execute(
        &client,
        "INSERT INTO request_history (subscriber_id, request_id, method, route, path, query, status, code,
                                      latency_ms, at_ms, request_body, response_body, truncated, object_ids, bytes,
                                      response_answer)
         SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::TEXT[],
                              $7::BIGINT[], $8::TEXT[], $9::DOUBLE PRECISION[], $10::BIGINT[], $11::TEXT[],
                              $12::TEXT[], $13::BIGINT[], $14::TEXT[], $15::BIGINT[], $16::BYTEA[])",
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
            &answer_digests,
        ],
    )
    .await?;
    Ok(())
}
