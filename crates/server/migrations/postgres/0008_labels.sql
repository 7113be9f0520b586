-- Whose an object is and what the subscriber noted on it (contract: "Lifecycle", fourth round).
-- `client_user_id`: the subscriber's own id for its user (`GET /users/{id}` finds by it, so it
-- is indexed with the subscriber); `metadata`: a JSON object of string pairs, `{}` when none.
-- A card-entry session keeps both until the person enrolls the card, which takes them.
-- SQLite's 0016 makes the same columns.
ALTER TABLE cards ADD COLUMN client_user_id TEXT;
ALTER TABLE cards ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bank_accounts ADD COLUMN client_user_id TEXT;
ALTER TABLE bank_accounts ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE persons ADD COLUMN client_user_id TEXT;
ALTER TABLE persons ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE locations ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE card_sessions ADD COLUMN client_user_id TEXT;
ALTER TABLE card_sessions ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
CREATE INDEX cards_by_client_user ON cards (subscriber_id, client_user_id) WHERE client_user_id IS NOT NULL;
CREATE INDEX bank_accounts_by_client_user ON bank_accounts (subscriber_id, client_user_id)
    WHERE client_user_id IS NOT NULL;
CREATE INDEX persons_by_client_user ON persons (subscriber_id, client_user_id) WHERE client_user_id IS NOT NULL;
