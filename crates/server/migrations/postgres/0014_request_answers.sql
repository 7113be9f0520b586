-- Beside migrations/0022_request_answers.sql: a successful read's kept answer, once per
-- subscriber and distinct text.
CREATE TABLE request_answers (
    subscriber_id  BIGINT NOT NULL,
    digest         BYTEA NOT NULL,
    body           TEXT NOT NULL,
    last_at_ms     BIGINT NOT NULL,
    PRIMARY KEY (subscriber_id, digest)
);
CREATE INDEX request_answers_by_last_use ON request_answers (last_at_ms);
ALTER TABLE request_history ADD COLUMN response_answer BYTEA;
