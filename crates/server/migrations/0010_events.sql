-- The event log (an outbox): every change a subscriber can observe, stored in the transaction
-- that makes the change, before anything announces it. Transaction events were the first kind
-- (`transaction_events`); they move here with their ids, so a stream resumes across the upgrade.
CREATE TABLE events (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    type            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    -- A transaction event names its transaction and the two sides that see it; its data is the
    -- transaction as each side lists it, rendered when read.
    transaction_id  INTEGER REFERENCES transactions(id) ON DELETE CASCADE,
    card_id         INTEGER,
    merchant_id     INTEGER,
    -- Any other event carries its data as JSON.
    data            TEXT
) STRICT;
INSERT INTO events (id, type, created_at, transaction_id, card_id, merchant_id)
    SELECT id, CASE kind WHEN 'created' THEN 'transaction.created' ELSE 'transaction.updated' END,
           created_at, transaction_id, card_id, merchant_id
    FROM transaction_events ORDER BY id;
INSERT OR REPLACE INTO sqlite_sequence (name, seq)
    SELECT 'events', COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'transaction_events'), 0);
DROP TABLE transaction_events;
CREATE INDEX events_by_card ON events (card_id, id) WHERE card_id IS NOT NULL;
CREATE INDEX events_by_merchant ON events (merchant_id, id) WHERE merchant_id IS NOT NULL;
CREATE INDEX events_by_time ON events (created_at);
-- For the positions below, and for deleting a transaction (its events go with it).
CREATE INDEX events_by_transaction ON events (transaction_id) WHERE transaction_id IS NOT NULL;

-- Who sees each event: the subscribers it is listed to and delivered to.
CREATE TABLE event_recipients (
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id) ON DELETE CASCADE,
    event_id        INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    PRIMARY KEY (subscriber_id, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_recipients_by_event ON event_recipients (event_id);
INSERT INTO event_recipients (subscriber_id, event_id)
    SELECT c.subscriber_id, e.id FROM events e JOIN cards c ON c.id = e.card_id
    UNION
    SELECT m.subscriber_id, e.id FROM events e JOIN merchants m ON m.id = e.merchant_id;

-- Incremental sync: the id of the event that created a transaction and of the last one that
-- changed it (0 for rows no event announced, such as the sandbox's generated history).
ALTER TABLE transactions ADD COLUMN created_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE transactions ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
UPDATE transactions SET
    created_seq = COALESCE((SELECT MIN(id) FROM events WHERE transaction_id = transactions.id), 0),
    change_seq = COALESCE((SELECT MAX(id) FROM events WHERE transaction_id = transactions.id), 0)
    WHERE id IN (SELECT transaction_id FROM events);
CREATE INDEX transactions_by_card_change ON transactions (card_id, change_seq, id) WHERE card_id IS NOT NULL;

-- Webhook endpoints. Their secrets are not here: each is derived from the service's webhook
-- key, the endpoint and a generation number, so a copy of the database signs nothing.
CREATE TABLE webhooks (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id       INTEGER NOT NULL REFERENCES subscribers(id) ON DELETE CASCADE,
    url                 TEXT NOT NULL,
    events              TEXT NOT NULL,            -- JSON array of types, or ["*"]
    description         TEXT,
    enabled             INTEGER NOT NULL DEFAULT 1,
    disabled_reason     TEXT,
    secret_generation   INTEGER NOT NULL DEFAULT 1,
    -- The generation before the last rotation keeps signing until this time.
    previous_until      INTEGER,
    created_at          INTEGER NOT NULL,
    -- The start of an unbroken run of failed deliveries, in milliseconds (NULL while
    -- deliveries succeed).
    failing_since       INTEGER
) STRICT;
CREATE INDEX webhooks_by_subscriber ON webhooks (subscriber_id, id);

-- The delivery queue and its log: one row per (endpoint, event), attempts counted in it, and
-- one row per attempt in the log. Their times are in milliseconds (Unix epoch).
CREATE TABLE webhook_deliveries (
    webhook_id      INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id        INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    subscriber_id   INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (webhook_id, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
CREATE TABLE webhook_attempts (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id      INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id        INTEGER NOT NULL,
    attempt         INTEGER NOT NULL,
    status          TEXT NOT NULL,                -- delivered | failed
    response_status INTEGER,
    duration_ms     INTEGER NOT NULL,
    error           TEXT,
    at              INTEGER NOT NULL,
    next_attempt_at INTEGER
) STRICT;
CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, id);
