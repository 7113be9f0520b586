-- A refund made as one names the purchase it gives back: SQLite's 0019, which says what it is.
ALTER TABLE transactions ADD COLUMN refund_of BIGINT;
CREATE INDEX transactions_by_refunded ON transactions (refund_of) WHERE refund_of IS NOT NULL;
