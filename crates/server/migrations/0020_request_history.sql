-- Each subscriber's API requests (contract: "Request history"), kept 14 days by default, as
-- every instance answered them: what was asked and answered, bodies at most 16 KiB each, every
-- card number, secret, token and password masked before the row is written.
--
-- `object_ids` holds the ids the request named or got back, each written ` kind:value ` (a
-- space on both sides), so `LIKE '% cardId:12 %'` finds one whole; `bytes` is what the row
-- holds, for the per-subscriber bound. No index on the time: rows come in time order, so the
-- prune deletes by `seq` below the first row young enough (one index fewer to write per
-- request). No foreign key: a subscriber's history outlives nothing
-- but its 14 days, and writes of it never wait for another table.
CREATE TABLE request_history (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id  INTEGER NOT NULL,
    request_id     TEXT NOT NULL,
    method         TEXT NOT NULL,
    route          TEXT,
    path           TEXT NOT NULL,
    query          TEXT,
    status         INTEGER NOT NULL,
    code           TEXT,
    latency_ms     REAL NOT NULL,
    at_ms          INTEGER NOT NULL,
    request_body   TEXT,
    response_body  TEXT,
    truncated      INTEGER NOT NULL,
    object_ids     TEXT NOT NULL,
    bytes          INTEGER NOT NULL
) STRICT;
CREATE INDEX request_history_by_subscriber ON request_history (subscriber_id, seq);
CREATE INDEX request_history_by_request ON request_history (subscriber_id, request_id);
