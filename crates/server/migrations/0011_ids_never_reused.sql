-- Ids are never reused. A plain INTEGER PRIMARY KEY takes the largest id + 1, so a row deleted
-- at the top (a sandbox reset deletes a subscriber's newest card) gave its id to the next row
-- inserted: another subscriber's card could take an id an old stream or link still named.
-- AUTOINCREMENT remembers the largest id ever given (sqlite_sequence). SQLite adds it only by
-- rebuilding each table; the rows keep their ids. The service runs this with foreign keys off
-- (SQLite's procedure for rebuilding tables others reference) and checks them afterwards.

CREATE TABLE subscribers_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    email           TEXT NOT NULL UNIQUE,
    client_id       TEXT NOT NULL UNIQUE,
    public_key      TEXT NOT NULL UNIQUE,
    secret_hash     TEXT NOT NULL,     -- argon2id PHC string; the secret itself is never stored
    secret_rotated_at INTEGER,
    created_at      INTEGER NOT NULL,
    credential_generation INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO subscribers_new (id, email, client_id, public_key, secret_hash, secret_rotated_at, created_at, credential_generation)
    SELECT id, email, client_id, public_key, secret_hash, secret_rotated_at, created_at, credential_generation FROM subscribers;
DROP TABLE subscribers;
ALTER TABLE subscribers_new RENAME TO subscribers;

CREATE TABLE cards_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO cards_new SELECT id, subscriber_id, fingerprint, last_four, brand, first_name, last_name, exp_month,
    exp_year, country_code, enrolled_at FROM cards;
DROP TABLE cards;
ALTER TABLE cards_new RENAME TO cards;
CREATE INDEX cards_by_subscriber ON cards (subscriber_id, id);

CREATE TABLE transactions_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
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
    location_id     INTEGER,           -- its location
    created_seq     INTEGER NOT NULL DEFAULT 0,
    change_seq      INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO transactions_new SELECT id, card_id, last_four, created_at, pending, settles_at, amount_minor, currency,
    merchant_name, descriptor, category, street, street_no, city, country, zip, directory_id, merchant_id, location_id,
    created_seq, change_seq FROM transactions;
DROP TABLE transactions;
ALTER TABLE transactions_new RENAME TO transactions;
CREATE INDEX transactions_by_card ON transactions (card_id, created_at DESC, id DESC) WHERE card_id IS NOT NULL;
CREATE INDEX transactions_by_merchant ON transactions (merchant_id, created_at DESC, id DESC) WHERE merchant_id IS NOT NULL;
CREATE INDEX transactions_pending ON transactions (settles_at) WHERE pending = 1;
CREATE INDEX transactions_by_card_change ON transactions (card_id, change_seq, id) WHERE card_id IS NOT NULL;

CREATE TABLE merchants_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id   INTEGER NOT NULL UNIQUE REFERENCES subscribers(id),
    name            TEXT NOT NULL,
    mcc             TEXT NOT NULL,     -- ISO 18245, 4 digits
    country_code    TEXT NOT NULL,     -- ISO 3166-1 alpha-3
    phone           TEXT,
    website         TEXT,
    created_at      INTEGER NOT NULL
) STRICT;
INSERT INTO merchants_new SELECT id, subscriber_id, name, mcc, country_code, phone, website, created_at FROM merchants;
DROP TABLE merchants;
ALTER TABLE merchants_new RENAME TO merchants;

CREATE TABLE locations_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    merchant_id     INTEGER NOT NULL REFERENCES merchants(id),
    country_code    TEXT NOT NULL,     -- ISO 3166-1 alpha-3
    street          TEXT NOT NULL,
    street_no       TEXT NOT NULL,
    city            TEXT NOT NULL,
    zip             TEXT NOT NULL,
    latitude        REAL,              -- NULL when neither sent nor derivable from the city
    longitude       REAL,
    coordinates_source TEXT NOT NULL CHECK (coordinates_source IN ('provided', 'derived', 'unknown')),
    descriptor      TEXT NOT NULL,     -- what a card statement prints for purchases here
    created_at      INTEGER NOT NULL
) STRICT;
INSERT INTO locations_new SELECT id, merchant_id, country_code, street, street_no, city, zip, latitude, longitude,
    coordinates_source, descriptor, created_at FROM locations;
DROP TABLE locations;
ALTER TABLE locations_new RENAME TO locations;
CREATE INDEX locations_by_merchant ON locations (merchant_id, id);

CREATE TABLE card_sessions_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id),
    token_hash      BLOB NOT NULL UNIQUE,  -- SHA-256 of the link's token
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,      -- moved to the moment of closing after too many bad submissions
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    completed_at    INTEGER,
    card_id         INTEGER REFERENCES cards(id)
) STRICT;
INSERT INTO card_sessions_new SELECT id, subscriber_id, token_hash, created_at, expires_at, failed_attempts,
    completed_at, card_id FROM card_sessions;
DROP TABLE card_sessions;
ALTER TABLE card_sessions_new RENAME TO card_sessions;
CREATE INDEX card_sessions_by_subscriber ON card_sessions (subscriber_id, id);

CREATE TABLE bank_accounts_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id),
    bank_id         TEXT NOT NULL,
    link_token_hash BLOB NOT NULL UNIQUE,  -- SHA-256 of the bank sign-in link's token
    stage           TEXT NOT NULL CHECK (stage IN ('login', 'mfa', 'consent', 'done')),
    browser_hash    BLOB,                  -- SHA-256 of the browser nonce that signed in
    -- 'expired' is not stored: a pending link past expires_at reads as expired.
    status          TEXT NOT NULL CHECK (status IN ('pending', 'linked', 'failed')),
    login_failures  INTEGER NOT NULL DEFAULT 0,
    failure_reason  TEXT,
    permissions     TEXT NOT NULL DEFAULT '', -- granted, comma-separated: balances,cards,transactions
    access_token    TEXT,                  -- the bank's random token, scoped to the permissions
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    linked_at       INTEGER
) STRICT;
INSERT INTO bank_accounts_new SELECT id, subscriber_id, bank_id, link_token_hash, stage, browser_hash, status,
    login_failures, failure_reason, permissions, access_token, created_at, expires_at, linked_at FROM bank_accounts;
DROP TABLE bank_accounts;
ALTER TABLE bank_accounts_new RENAME TO bank_accounts;
CREATE INDEX bank_accounts_by_subscriber ON bank_accounts (subscriber_id, id);

CREATE TABLE persons_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id),
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    email           TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    country_code    TEXT,                  -- of the last address given: the signals' currency
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    locked_until    INTEGER,
    verified_at     INTEGER
) STRICT;
INSERT INTO persons_new SELECT id, subscriber_id, first_name, last_name, email, created_at, country_code,
    failed_attempts, locked_until, verified_at FROM persons;
DROP TABLE persons;
ALTER TABLE persons_new RENAME TO persons;
CREATE INDEX persons_by_subscriber ON persons (subscriber_id, id);

CREATE TABLE person_question_sets_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    person_id       INTEGER NOT NULL REFERENCES persons(id),
    issued_at       INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    answered_at     INTEGER,
    questions       TEXT NOT NULL          -- JSON: [{text, choices: [text], correct: index}]
) STRICT;
INSERT INTO person_question_sets_new SELECT id, person_id, issued_at, expires_at, answered_at, questions
    FROM person_question_sets;
DROP TABLE person_question_sets;
ALTER TABLE person_question_sets_new RENAME TO person_question_sets;
CREATE INDEX person_question_sets_by_person ON person_question_sets (person_id, id);
