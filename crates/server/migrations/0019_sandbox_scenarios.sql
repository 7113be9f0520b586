-- The sandbox's scenarios (contract: "Sandbox scenarios, snapshots, request history").
--
-- A refund made as one (`POST /sandbox/transactions/<id>/refund`) names the purchase it gives
-- back; the others are matched to theirs by the history, as before. Both are the same card's,
-- so they are erased together.
ALTER TABLE transactions ADD COLUMN refund_of INTEGER;
CREATE INDEX transactions_by_refunded ON transactions (refund_of) WHERE refund_of IS NOT NULL;

-- A reversed authorization (`POST /sandbox/transactions/<id>/reverse`) leaves `transactions`;
-- what is left of it is its id, for sync's `removed`: the card it was on and where its removal
-- stands in the card's change order (the id of its `transaction.removed` event). No amount,
-- no descriptor: nothing of the purchase but that it is gone.
CREATE TABLE removed_transactions (
    transaction_id INTEGER PRIMARY KEY,
    card_id        INTEGER NOT NULL,
    removed_seq    INTEGER NOT NULL
) STRICT;
CREATE INDEX removed_transactions_by_card ON removed_transactions (card_id, removed_seq);

-- An event the sandbox sent on request (`POST /sandbox/events`) says so (`sandbox: true`):
-- nothing changed.
ALTER TABLE events ADD COLUMN sandbox INTEGER NOT NULL DEFAULT 0;
