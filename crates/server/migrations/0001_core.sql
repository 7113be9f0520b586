-- Core: the service's own keys, subscribers, cards, transactions, idempotency, usage.
-- Times are Unix seconds (UTC). Money is in minor units (cents).

CREATE TABLE server_keys (
    name        TEXT PRIMARY KEY,
    value       BLOB NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE subscribers (
    id              INTEGER PRIMARY KEY,
    email           TEXT NOT NULL UNIQUE,
    client_id       TEXT NOT NULL UNIQUE,
    public_key      TEXT NOT NULL UNIQUE,
    secret_hash     TEXT NOT NULL,     -- argon2id PHC string; the secret itself is never stored
    secret_rotated_at INTEGER,
    created_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE cards (
    id              INTEGER PRIMARY KEY,
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id),
    fingerprint     BLOB NOT NULL,     -- HMAC-SHA256 of the PAN under a server key; the PAN is never stored
    last_four       INTEGER NOT NULL,
    brand           TEXT NOT NULL,
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    exp_month       INTEGER NOT NULL,
    exp_year        INTEGER NOT NULL,
    country_code    TEXT NOT NULL,
    enrolled_at     INTEGER NOT NULL,
    UNIQUE (subscriber_id, fingerprint)
) STRICT;
CREATE INDEX cards_by_subscriber ON cards (subscriber_id, id);

-- Every payment: a card's history, point-of-sale purchases, purchases at enrolled merchants.
-- card_id is NULL for purchases by the sandbox's synthetic population (cards of nobody here).
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    card_id         INTEGER REFERENCES cards(id),
    last_four       INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    pending         INTEGER NOT NULL,
    settles_at      INTEGER,
    amount_minor    INTEGER NOT NULL,
    currency        TEXT NOT NULL,
    merchant_name   TEXT NOT NULL,
    descriptor      TEXT NOT NULL,
    category        TEXT NOT NULL,     -- MCC, 4 digits
    street          TEXT NOT NULL,
    street_no       TEXT NOT NULL,
    city            TEXT NOT NULL,
    country         TEXT NOT NULL,     -- ISO 3166-1 alpha-3
    zip             TEXT NOT NULL,
    directory_id    INTEGER,           -- the directory merchant, when at one
    merchant_id     INTEGER,           -- the enrolled merchant, when at one
    location_id     INTEGER            -- its location
) STRICT;
CREATE INDEX transactions_by_card ON transactions (card_id, created_at DESC, id DESC) WHERE card_id IS NOT NULL;
CREATE INDEX transactions_by_merchant ON transactions (merchant_id, created_at DESC, id DESC) WHERE merchant_id IS NOT NULL;
CREATE INDEX transactions_pending ON transactions (settles_at) WHERE pending = 1;

-- Responses of creating POSTs sent with an Idempotency-Key, replayed on a retry.
CREATE TABLE idempotency_keys (
    scope           TEXT NOT NULL,     -- 'subscriber:<id>' or 'anonymous'
    key             TEXT NOT NULL,
    request_hash    BLOB NOT NULL,
    status          INTEGER NOT NULL,
    response_body   BLOB NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
) STRICT;

-- Billable requests in the established environment, by day and route.
CREATE TABLE usage_counts (
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id),
    day             TEXT NOT NULL,
    endpoint        TEXT NOT NULL,
    count           INTEGER NOT NULL,
    PRIMARY KEY (subscriber_id, day, endpoint)
) STRICT;
