-- A bank link's stage and status can only hold the values the code knows: a CHECK on each, so a
-- bad write fails instead of leaving a link no step can move. SQLite adds a CHECK only by
-- rebuilding the table (nothing references bank_accounts).
CREATE TABLE bank_accounts_checked (
    id              INTEGER PRIMARY KEY,
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
INSERT INTO bank_accounts_checked
    SELECT id, subscriber_id, bank_id, link_token_hash, stage, browser_hash, status, login_failures,
           failure_reason, permissions, access_token, created_at, expires_at, linked_at
    FROM bank_accounts;
DROP TABLE bank_accounts;
ALTER TABLE bank_accounts_checked RENAME TO bank_accounts;
CREATE INDEX bank_accounts_by_subscriber ON bank_accounts (subscriber_id, id);
