//! Each subscriber's API requests, kept in the database (contract: "Request history"): written
//! in batches by `crate::request_history`, read by page, pruned by age and per subscriber.

use std::time::Duration;

use subscriber_protocol::{SubscriberId, UnixMillis};

use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

use super::rows::request_history::{COLUMNS, HISTORY, kept_answers, page};
pub use super::rows::request_history::{RequestFilter, RequestLine, RequestRecord, StoredRequest, answer_digest};

/// Rows deleted by one statement of a prune: a purge never holds the writer long.
const PRUNE_BATCH: i64 = 2_000;

/// How much older than the oldest request kept an answer's newest use is before the answer
/// goes. Instances write their batches a moment apart, so rows are in time order only within
/// moments; an hour is far beyond that, and costs only an hour of answers no row names.
const ANSWER_SLACK: Duration = Duration::from_secs(3_600);

impl Store {
    /// Stores the batch (already masked), each answer kept once stored once.
    pub async fn record_requests(&self, mut records: Vec<RequestRecord>) -> StorageResult<()> {
        if records.is_empty() {
            return Ok(());
        }
        let answers = kept_answers(&mut records);
        dispatch!(self,
            db => db.write(move |connection| sqlite::request_history::insert(connection, &records, &answers)).await,
            db => postgres::request_history::insert(db, records, answers).await,
        )
    }

    /// The subscriber's requests through `filter`, newest first, at most `limit`.
    pub async fn requests(
        &self,
        subscriber_id: SubscriberId,
        filter: RequestFilter,
        limit: u32,
    ) -> StorageResult<Vec<StoredRequest>> {
        let RequestFilter { status_from, status_to, route, object_pattern, request_id, from_ms, to_ms, before_seq } =
            filter;
        self.fetch_all(
            page(),
            args![
                subscriber_id,
                status_from,
                status_to,
                route,
                object_pattern,
                request_id,
                from_ms,
                to_ms,
                before_seq,
                i64::from(limit)
            ],
        )
        .await
    }

    /// The subscriber's request `request_id` (the newest, should a client have sent one id twice).
    pub async fn request(
        &self,
        subscriber_id: SubscriberId,
        request_id: String,
    ) -> StorageResult<Option<StoredRequest>> {
        let sql = sql!(
            "SELECT {COLUMNS} FROM {HISTORY} WHERE h.subscriber_id = $1 AND h.request_id = $2
             ORDER BY h.seq DESC LIMIT 1"
        );
        self.fetch_one(Read::ByKey, sql, args![subscriber_id, request_id]).await
    }

    /// Forgets requests older than `before_ms`, a batch at a time; how many went. Rows come in
    /// time order (`seq`), so what goes is every row below the first one young enough: found
    /// by reading the old rows once, deleted by key.
    pub async fn prune_requests(&self, before_ms: UnixMillis) -> StorageResult<u64> {
        let young = sql!("SELECT seq FROM request_history WHERE at_ms >= $1 ORDER BY seq LIMIT 1");
        let newest = sql!("SELECT MAX(seq) + 1 FROM request_history");
        let first_kept: Option<i64> = match self.fetch_one(Read::Scan, young, args![before_ms]).await? {
            Some(seq) => Some(seq),
            None => self.fetch_one::<Option<i64>, 0>(Read::Scan, newest, []).await?.flatten(),
        };
        let Some(first_kept) = first_kept else { return Ok(0) };
        let sql = sql!(
            "DELETE FROM request_history WHERE seq IN
               (SELECT seq FROM request_history WHERE seq < $1 ORDER BY seq LIMIT $2)"
        );
        let mut pruned = 0;
        loop {
            let deleted = self.execute_maintenance(sql, args![first_kept, PRUNE_BATCH]).await?;
            pruned += deleted;
            if deleted < PRUNE_BATCH as u64 {
                break;
            }
        }
        // The answers no request young enough names (by their newest use).
        let answers = sql!(
            "DELETE FROM request_answers WHERE (subscriber_id, digest) IN
               (SELECT subscriber_id, digest FROM request_answers WHERE last_at_ms < $1 ORDER BY last_at_ms LIMIT $2)"
        );
        while self.execute_maintenance(answers, args![before_ms.minus(ANSWER_SLACK), PRUNE_BATCH]).await?
            >= PRUNE_BATCH as u64
        {}
        Ok(pruned)
    }

    /// Keeps at most `requests` of the subscriber's newest requests and, when `bytes` is given,
    /// at most that many bytes of them; how many older ones went. Only the subscriber's own rows
    /// are looked at or deleted. The count is read from the index alone; the bytes need every
    /// row, so the caller asks for them less often.
    pub async fn bound_requests(
        &self,
        subscriber_id: SubscriberId,
        requests: u64,
        bytes: Option<u64>,
    ) -> StorageResult<u64> {
        // The newest row that no longer fits: by count, or by the bytes of it and the newer ones.
        let by_count =
            sql!("SELECT seq FROM request_history WHERE subscriber_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2");
        let count_cut: Option<i64> = self
            .fetch_one(Read::Scan, by_count, args![subscriber_id, i64::try_from(requests).unwrap_or(i64::MAX)])
            .await?;
        let bytes_cut: Option<i64> = match bytes {
            Some(bytes) => {
                let held = sql!(
                    "SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM request_history WHERE subscriber_id = $1"
                );
                let total: i64 = self.fetch_one(Read::Scan, held, args![subscriber_id]).await?.unwrap_or(0);
                if u64::try_from(total).unwrap_or(0) <= bytes {
                    None
                } else {
                    let by_bytes = sql!(
                        "SELECT seq FROM (SELECT seq, CAST(SUM(bytes) OVER (ORDER BY seq DESC) AS BIGINT) AS held
                                          FROM request_history WHERE subscriber_id = $1) AS newest
                         WHERE held > $2 ORDER BY seq DESC LIMIT 1"
                    );
                    self.fetch_one(Read::Scan, by_bytes, args![subscriber_id, i64::try_from(bytes).unwrap_or(i64::MAX)])
                        .await?
                }
            }
            None => None,
        };
        let Some(cut) = count_cut.max(bytes_cut) else { return Ok(0) };
        let delete = sql!("DELETE FROM request_history WHERE subscriber_id = $1 AND seq <= $2");
        let gone = self.execute_maintenance(delete, args![subscriber_id, cut]).await?;
        // Its answers no kept request names: last used before its oldest kept request.
        let answers = sql!(
            "DELETE FROM request_answers WHERE subscriber_id = $1 AND last_at_ms <
               (SELECT at_ms FROM request_history WHERE subscriber_id = $1 ORDER BY seq LIMIT 1) - $2"
        );
        self.execute_maintenance(
            answers,
            args![subscriber_id, i64::try_from(ANSWER_SLACK.as_millis()).unwrap_or(i64::MAX)],
        )
        .await?;
        Ok(gone)
    }

    /// Erases the bodies of the subscriber's requests that named or got back `object` (` kind:id `
    /// as stored): what they held of an erased object goes with it.
    pub async fn erase_request_bodies(
        &self,
        subscriber_id: SubscriberId,
        object_pattern: String,
    ) -> StorageResult<u64> {
        // An answer kept once goes whole, for every request naming it: the same text holds the
        // same object.
        let answers = sql!(
            "DELETE FROM request_answers WHERE subscriber_id = $1 AND digest IN
               (SELECT response_answer FROM request_history
                WHERE subscriber_id = $1 AND object_ids LIKE $2 ESCAPE '\\' AND response_answer IS NOT NULL)"
        );
        self.execute_maintenance(answers, args![subscriber_id, object_pattern.clone()]).await?;
        let sql = sql!(
            "UPDATE request_history SET request_body = NULL, response_body = NULL, query = NULL, response_answer = NULL
             WHERE subscriber_id = $1 AND object_ids LIKE $2 ESCAPE '\\'
               AND (request_body IS NOT NULL OR response_body IS NOT NULL OR query IS NOT NULL
                    OR response_answer IS NOT NULL)"
        );
        self.execute_maintenance(sql, args![subscriber_id, object_pattern]).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(subscriber_id: SubscriberId, index: i64, bytes: i64) -> RequestRecord {
        RequestRecord {
            line: RequestLine {
                subscriber_id,
                request_id: format!("req_{subscriber_id}_{index}"),
                method: "GET".to_owned(),
                route: Some("/card".to_owned()),
                path: "/card".to_owned(),
                query: None,
                status: 200,
                code: None,
                latency_ms: 1.0,
                at_ms: UnixMillis(1_000 + index),
            },
            request_body: None,
            response_body: Some("{}".to_owned()),
            response_answer: None,
            truncated: false,
            object_ids: " cardId:1 ".to_owned(),
            bytes,
        }
    }

    /// A subscriber's bound takes its own oldest requests, by count and by bytes, and never
    /// another's; the age prune takes everyone's old ones.
    async fn bounded_and_pruned(store: Store, (busy, quiet): (SubscriberId, SubscriberId)) {
        store.record_requests((0..50).map(|index| record(busy, index, 100)).collect()).await.expect("written");
        store.record_requests(vec![record(quiet, 0, 100)]).await.expect("written");
        let all = |subscriber| {
            let store = store.clone();
            async move { store.requests(subscriber, RequestFilter::default(), 1_000).await.expect("read") }
        };
        assert_eq!(store.bound_requests(busy, 100, Some(1_000_000)).await.expect("bounded"), 0, "within its bounds");
        assert_eq!(store.bound_requests(busy, 20, None).await.expect("bounded"), 30);
        let kept = all(busy).await;
        assert_eq!(kept.len(), 20);
        assert_eq!(kept[0].record.line.request_id, format!("req_{busy}_49"), "the newest stay");
        assert_eq!(store.bound_requests(busy, 20, Some(1_000)).await.expect("bounded"), 10, "1,000 bytes: ten of 100");
        assert_eq!(all(busy).await.len(), 10);
        assert_eq!(all(quiet).await.len(), 1, "another subscriber's requests are never taken");
        // Rows come in time order: busy's 40..49 (at 1,040..1,049), then quiet's 0 (at 1,000)
        // written after them, which a prune by place keeps until the rows before it go.
        assert_eq!(store.prune_requests(UnixMillis(1_045)).await.expect("pruned"), 5, "busy's 40..44");
        assert_eq!(all(busy).await.len(), 5);
        assert_eq!(store.prune_requests(UnixMillis(2_000)).await.expect("pruned"), 6, "everything left");
        assert!(all(quiet).await.is_empty());
    }

    /// Subscriber's read `index`, answered `answer` (kept once), at `at_ms`.
    fn read(subscriber_id: SubscriberId, index: i64, at_ms: i64, answer: &str) -> RequestRecord {
        let mut read = record(subscriber_id, index, 100);
        read.line.at_ms = UnixMillis(at_ms);
        read.response_body = Some(answer.to_owned());
        read.response_answer = Some(answer_digest(answer));
        read
    }

    async fn answers_kept(store: &Store, subscriber_id: SubscriberId) -> i64 {
        let count = sql!("SELECT COUNT(*) FROM request_answers WHERE subscriber_id = $1");
        store.fetch_one(Read::Scan, count, args![subscriber_id]).await.expect("counted").unwrap_or(0)
    }

    /// An answer given again and again is stored once, read back with every request naming it,
    /// and goes once no kept request can name it: after the bound, with an erased object, by age.
    async fn answers_kept_once(store: Store, (busy, quiet): (SubscriberId, SubscriberId)) {
        let (old, new) = ("{\"id\":1,\"status\":\"old\"}", "{\"id\":1,\"status\":\"new\"}");
        let slack = i64::try_from(ANSWER_SLACK.as_millis()).expect("an hour");
        let hour_later = 1_000 + 2 * slack;
        store
            .record_requests((0..5).map(|index| read(busy, index, 1_000 + index, old)).collect())
            .await
            .expect("written");
        store.record_requests(vec![read(quiet, 0, 1_000, old)]).await.expect("written");
        for batch in 0..2 {
            let reads = (0..10).map(|index| read(busy, 5 + batch * 10 + index, hour_later + index, new)).collect();
            store.record_requests(reads).await.expect("written");
        }
        assert_eq!(answers_kept(&store, busy).await, 2, "25 reads, 2 answers");
        assert_eq!(answers_kept(&store, quiet).await, 1, "each subscriber's own");
        let all = |subscriber| {
            let store = store.clone();
            async move { store.requests(subscriber, RequestFilter::default(), 1_000).await.expect("read") }
        };
        let kept = all(busy).await;
        assert_eq!(kept.len(), 25);
        assert_eq!(kept[0].record.response_body.as_deref(), Some(new));
        assert_eq!(kept[24].record.response_body.as_deref(), Some(old));
        let one = store.request(busy, kept[3].record.line.request_id.clone()).await.expect("read").expect("there");
        assert_eq!(one.record.response_body.as_deref(), Some(new));

        // The old answer's requests leave with the bound; the answer with them.
        assert_eq!(store.bound_requests(busy, 20, None).await.expect("bounded"), 5);
        assert_eq!(answers_kept(&store, busy).await, 1, "the old answer went with the last request naming it");
        assert_eq!(answers_kept(&store, quiet).await, 1, "another subscriber's same answer stays");
        assert!(all(busy).await.iter().all(|request| request.record.response_body.as_deref() == Some(new)));

        // Erasing the object the answer holds erases the answer, for every request naming it.
        assert_eq!(store.erase_request_bodies(busy, "% cardId:1 %".to_owned()).await.expect("erased"), 20);
        assert_eq!(answers_kept(&store, busy).await, 0);
        assert!(all(busy).await.iter().all(|request| request.record.response_body.is_none()));

        // By age: the answers no young request names go.
        store.prune_requests(UnixMillis(hour_later + slack)).await.expect("pruned");
        assert_eq!(answers_kept(&store, quiet).await, 0);
    }

    #[tokio::test]
    async fn each_subscriber_is_bounded_by_its_own_requests_and_old_ones_are_pruned() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = Store::open(&dir.path().join("history.sqlite3").into()).await.expect("a database");
        bounded_and_pruned(store.clone(), (SubscriberId(1), SubscriberId(2))).await;
        answers_kept_once(store, (SubscriberId(3), SubscriberId(4))).await;
    }

    /// The same on PostgreSQL (`tests/support/with-postgres.sh cargo test -p subscriber-server
    /// --lib request_history`); without a cluster, says so and passes.
    #[cfg(feature = "postgres")]
    #[tokio::test]
    async fn on_postgresql_too() {
        let Some(admin) = std::env::var("SUBSCRIBER_TEST_POSTGRES").ok().filter(|url| !url.is_empty()) else {
            eprintln!("needs SUBSCRIBER_TEST_POSTGRES (tests/support/with-postgres.sh)");
            return;
        };
        let name = format!("h_{}", uuid::Uuid::new_v4().simple());
        let (server, _) = admin.rsplit_once('/').expect("an address with a database");
        let output = std::process::Command::new("psql")
            .args([admin.as_str(), "-c", &format!("CREATE DATABASE {name}")])
            .output()
            .expect("psql runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let location = crate::storage::Location::Postgres(format!("{server}/{name}"));
        let store = Store::open(&location).await.expect("a database");
        bounded_and_pruned(store.clone(), (SubscriberId(1), SubscriberId(2))).await;
        answers_kept_once(store, (SubscriberId(3), SubscriberId(4))).await;
    }
}
