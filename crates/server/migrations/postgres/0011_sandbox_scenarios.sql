-- The sandbox's scenarios: SQLite's 0019, which says what each is.
ALTER TABLE transactions ADD COLUMN refund_of BIGINT;
CREATE INDEX transactions_by_refunded ON transactions (refund_of) WHERE refund_of IS NOT NULL;

CREATE TABLE removed_transactions (
    transaction_id BIGINT PRIMARY KEY,
    card_id        BIGINT NOT NULL,
    removed_seq    BIGINT NOT NULL
);
CREATE INDEX removed_transactions_by_card ON removed_transactions (card_id, removed_seq);

ALTER TABLE events ADD COLUMN sandbox BIGINT NOT NULL DEFAULT 0;
