-- Bank consent (contract: "Lifecycle", fourth round). A linked account's consent runs out at
-- `consent_expires_at` (90 days after the person consented; the sandbox clock moves it), the
-- expiring event is recorded once per consent (`consent_warned_at`), `refreshed_at` is the last
-- `POST /account/{id}/refresh`. `login_key` is an HMAC of the bank and the username under the
-- card-fingerprint key (never the username itself), so the same bank login linked again re-links
-- the account it already has. An account linked again that way (`merged_into`) is read as the
-- account it re-linked and listed nowhere.
-- PostgreSQL's 0009 makes the same columns.
ALTER TABLE bank_accounts ADD COLUMN consent_expires_at INTEGER;
ALTER TABLE bank_accounts ADD COLUMN consent_warned_at INTEGER;
ALTER TABLE bank_accounts ADD COLUMN refreshed_at INTEGER;
ALTER TABLE bank_accounts ADD COLUMN login_key BLOB;
ALTER TABLE bank_accounts ADD COLUMN merged_into INTEGER;
CREATE INDEX bank_accounts_consent_to_warn ON bank_accounts (consent_expires_at)
    WHERE consent_warned_at IS NULL AND consent_expires_at IS NOT NULL;
CREATE INDEX bank_accounts_by_login ON bank_accounts (subscriber_id, login_key) WHERE login_key IS NOT NULL;
