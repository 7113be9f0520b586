-- A successful read's kept answer, stored once per subscriber and distinct text: a client
-- polling `GET /card/{id}` gets the same answer again and again, and each of its requests
-- names the answer by `response_answer` instead of holding a copy (BENCHMARKS.md, "What the
-- request history costs").
--
-- `digest` is the first 16 bytes of SHA-256 of the masked text (never of anything unmasked);
-- `last_at_ms` is the newest request naming it, so an answer goes once no kept request can
-- name it: with the age prune, after a subscriber's bound, or with an erased object.
CREATE TABLE request_answers (
    subscriber_id  INTEGER NOT NULL,
    digest         BLOB NOT NULL,
    body           TEXT NOT NULL,
    last_at_ms     INTEGER NOT NULL,
    PRIMARY KEY (subscriber_id, digest)
) STRICT;
CREATE INDEX request_answers_by_last_use ON request_answers (last_at_ms);
ALTER TABLE request_history ADD COLUMN response_answer BLOB;
