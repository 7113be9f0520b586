-- Secure flows: the hosted card-entry page, bank account links, identity verification.
-- The one-time links of hosted pages are kept only as SHA-256 hashes. Nothing here holds a
-- card number, a bank credential, or what a person typed to prove who they are (date of
-- birth, address, phone, SSN digits). Times are Unix seconds (UTC).

-- One-time card-entry pages opened by POST /card/session.
CREATE TABLE card_sessions (
    id              INTEGER PRIMARY KEY,
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id),
    token_hash      BLOB NOT NULL UNIQUE,  -- SHA-256 of the link's token
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,      -- moved to the moment of closing after too many bad submissions
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    completed_at    INTEGER,
    card_id         INTEGER REFERENCES cards(id)
) STRICT;
CREATE INDEX card_sessions_by_subscriber ON card_sessions (subscriber_id, id);

-- Bank accounts being linked or linked (POST /account). The status 'expired' is not stored:
-- a pending link past expires_at reads as expired.
CREATE TABLE bank_accounts (
    id              INTEGER PRIMARY KEY,
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers(id),
    bank_id         TEXT NOT NULL,
    link_token_hash BLOB NOT NULL UNIQUE,  -- SHA-256 of the bank sign-in link's token
    stage           TEXT NOT NULL,         -- 'login', 'consent' (signed in), 'done'
    browser_hash    BLOB,                  -- SHA-256 of the browser nonce that signed in
    status          TEXT NOT NULL,         -- 'pending', 'linked', 'failed'
    login_failures  INTEGER NOT NULL DEFAULT 0,
    failure_reason  TEXT,
    permissions     TEXT NOT NULL DEFAULT '', -- granted, comma-separated: balances,cards,transactions
    access_token    TEXT,                  -- the bank's random token, scoped to the permissions
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    linked_at       INTEGER
) STRICT;
CREATE INDEX bank_accounts_by_subscriber ON bank_accounts (subscriber_id, id);

-- Persons whose identity a subscriber verifies.
CREATE TABLE persons (
    id              INTEGER PRIMARY KEY,
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
CREATE INDEX persons_by_subscriber ON persons (subscriber_id, id);

-- Question sets issued by POST /persons/authenticate; each can be answered once.
CREATE TABLE person_question_sets (
    id              INTEGER PRIMARY KEY,
    person_id       INTEGER NOT NULL REFERENCES persons(id),
    issued_at       INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    answered_at     INTEGER,
    questions       TEXT NOT NULL          -- JSON: [{text, choices: [text], correct: index}]
) STRICT;
CREATE INDEX person_question_sets_by_person ON person_question_sets (person_id, id);
