-- Webhook delivery as a queue (contract: "Webhook delivery (third round)").
-- A claimed delivery is held until `locked_until` (milliseconds): while it is in flight no
-- instance takes it, nor another delivery of its endpoint; a crashed instance's claim expires.
ALTER TABLE webhook_deliveries ADD COLUMN locked_until INTEGER;
-- An endpoint's pending deliveries in event order: the head of its queue.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, event_id) WHERE status = 'pending';
-- The first secret generation in the Standard Webhooks form (`whsec_` + standard base64 of 32
-- bytes, the key those bytes). Endpoints there before keep their secret's form until rotated.
ALTER TABLE webhooks ADD COLUMN standard_secret_from INTEGER NOT NULL DEFAULT 1;
UPDATE webhooks SET standard_secret_from = secret_generation + 1;
