-- A refund made as one (the sandbox's `POST /sandbox/transactions/<id>/refund`) names the
-- purchase it gives back; the others are matched to theirs by the history, as before. Both are
-- the same card's, so they are erased together.
ALTER TABLE transactions ADD COLUMN refund_of INTEGER;
CREATE INDEX transactions_by_refunded ON transactions (refund_of) WHERE refund_of IS NOT NULL;
