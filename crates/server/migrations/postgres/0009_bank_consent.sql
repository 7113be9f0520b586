-- Bank consent (contract: "Lifecycle", fourth round): SQLite's 0017, which says what each column is.
ALTER TABLE bank_accounts ADD COLUMN consent_expires_at BIGINT;
ALTER TABLE bank_accounts ADD COLUMN consent_warned_at BIGINT;
ALTER TABLE bank_accounts ADD COLUMN refreshed_at BIGINT;
ALTER TABLE bank_accounts ADD COLUMN login_key BYTEA;
ALTER TABLE bank_accounts ADD COLUMN merged_into BIGINT;
CREATE INDEX bank_accounts_consent_to_warn ON bank_accounts (consent_expires_at)
    WHERE consent_warned_at IS NULL AND consent_expires_at IS NOT NULL;
CREATE INDEX bank_accounts_by_login ON bank_accounts (subscriber_id, login_key) WHERE login_key IS NOT NULL;
