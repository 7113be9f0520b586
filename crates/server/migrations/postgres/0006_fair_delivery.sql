-- Fair webhook delivery (issue 37, M1 and M2): one queue row per endpoint, so that a claim
-- costs the number of endpoints due, never the number of deliveries waiting. SQLite's 0014
-- makes the same tables; its comments say what each column holds.
--
-- `webhook_queues` is kept by the triggers below, whoever writes `webhooks` or
-- `webhook_deliveries`; the delivery worker moves it when it claims (`FOR UPDATE SKIP
-- LOCKED`), renews and records. `due_at` may be early, never late: a claim reads the head.
CREATE TABLE webhook_queues (
    webhook_id          BIGINT PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
    subscriber_id       BIGINT NOT NULL,
    host                TEXT NOT NULL,
    pending             BIGINT NOT NULL DEFAULT 0,
    due_at              BIGINT,
    claimed_until       BIGINT,
    claim               BIGINT NOT NULL DEFAULT 0,
    dropped             BIGINT NOT NULL DEFAULT 0,
    gap_open            BIGINT NOT NULL DEFAULT 0,
    gap_count           BIGINT NOT NULL DEFAULT 0,
    gap_first_event_id  BIGINT,
    gap_last_event_id   BIGINT,
    gap_since           BIGINT,
    gap_until           BIGINT,
    tests_since         BIGINT NOT NULL DEFAULT 0,
    tests_sent          BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhook_queues_due ON webhook_queues (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX webhook_queues_by_subscriber ON webhook_queues (subscriber_id);

-- The most deliveries one endpoint's queue holds (the service sets it at start).
CREATE TABLE webhook_queue_limits (
    id          BIGINT PRIMARY KEY CHECK (id = 1),
    pending_max BIGINT NOT NULL
);
INSERT INTO webhook_queue_limits (id, pending_max) VALUES (1, 10000);

-- An endpoint's host and port: its URL (scheme://authority/...) between "://" and the next "/".
CREATE FUNCTION webhook_receiver_host(url TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE AS $$ SELECT lower(split_part(split_part(url, '://', 2), '/', 1)) $$;

INSERT INTO webhook_queues (webhook_id, subscriber_id, host, pending, due_at)
    SELECT w.id, w.subscriber_id, webhook_receiver_host(w.url), COALESCE(p.pending, 0),
           -- Due at once: the first claim reads each head and moves the time on.
           CASE WHEN w.enabled = 1 AND p.pending > 0 THEN 0 END
    FROM webhooks w
    LEFT JOIN (SELECT webhook_id, COUNT(*) AS pending FROM webhook_deliveries WHERE status = 'pending'
               GROUP BY webhook_id) p ON p.webhook_id = w.id;

-- Claims are per endpoint now (webhook_queues.claimed_until): webhook_deliveries.locked_until
-- is no longer read or written; nor is the index of every pending delivery by due time.
DROP INDEX webhook_deliveries_due;

CREATE FUNCTION webhook_queue_follow_endpoint() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO webhook_queues (webhook_id, subscriber_id, host)
        VALUES (NEW.id, NEW.subscriber_id, webhook_receiver_host(NEW.url));
        RETURN NULL;
    END IF;
    IF NEW.url IS DISTINCT FROM OLD.url THEN
        UPDATE webhook_queues SET host = webhook_receiver_host(NEW.url) WHERE webhook_id = NEW.id;
    END IF;
    -- Disabled: parked. Enabled again: due (after a claim still in flight).
    IF NEW.enabled = 0 AND OLD.enabled = 1 THEN
        UPDATE webhook_queues SET due_at = NULL WHERE webhook_id = NEW.id;
    ELSIF NEW.enabled = 1 AND OLD.enabled = 0 THEN
        UPDATE webhook_queues SET due_at = COALESCE(claimed_until, 0) WHERE webhook_id = NEW.id AND pending > 0;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER webhook_queue_follows_endpoint AFTER INSERT OR UPDATE OF url, enabled ON webhooks
    FOR EACH ROW EXECUTE FUNCTION webhook_queue_follow_endpoint();

-- A delivery waiting from `next_attempt_at` makes its endpoint due by then at the latest (not
-- before a claim in flight ends); one gone makes it looked at again; one not queued because the
-- queue was full (failed, never attempted) widens the gap.
CREATE FUNCTION webhook_queue_follow_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was_pending BOOLEAN := TG_OP <> 'INSERT' AND OLD.status = 'pending';
    is_pending BOOLEAN := TG_OP <> 'DELETE' AND NEW.status = 'pending';
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF was_pending THEN
            UPDATE webhook_queues SET
                pending = pending - 1,
                due_at = CASE WHEN due_at IS NULL THEN NULL
                              ELSE GREATEST(LEAST(due_at, OLD.created_at), claimed_until) END
            WHERE webhook_id = OLD.webhook_id;
        END IF;
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' AND NEW.status = 'failed' AND NEW.attempts = 0 THEN
        UPDATE webhook_queues SET
            dropped = dropped + 1,
            gap_count = CASE WHEN gap_open = 1 THEN gap_count + 1 ELSE 1 END,
            gap_first_event_id = CASE WHEN gap_open = 1 THEN gap_first_event_id ELSE NEW.event_id END,
            gap_since = CASE WHEN gap_open = 1 THEN gap_since ELSE NEW.created_at END,
            gap_last_event_id = NEW.event_id,
            gap_until = NEW.created_at,
            gap_open = 1
        WHERE webhook_id = NEW.webhook_id;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status
       AND NEW.next_attempt_at IS NOT DISTINCT FROM OLD.next_attempt_at THEN
        RETURN NULL;
    END IF;
    IF NOT is_pending AND NOT was_pending THEN
        RETURN NULL;
    END IF;
    UPDATE webhook_queues q SET
        pending = q.pending + (CASE WHEN is_pending THEN 1 ELSE 0 END) - (CASE WHEN was_pending THEN 1 ELSE 0 END),
        gap_open = CASE WHEN is_pending AND NOT was_pending THEN 0 ELSE q.gap_open END,
        -- Never later, whatever else this transaction cannot see yet (a statement here reads
        -- the snapshot it began with, also after waiting for the row): SQLite's one writer can
        -- be exact (due only at the head, only enabled); here the claim moves an endpoint on
        -- whose head is not due, and parks one that is disabled.
        due_at = CASE WHEN is_pending THEN GREATEST(LEAST(q.due_at, NEW.next_attempt_at), q.claimed_until)
                      ELSE q.due_at END
    WHERE q.webhook_id = NEW.webhook_id;
    RETURN NULL;
END $$;
CREATE TRIGGER webhook_queue_follows_delivery AFTER INSERT OR DELETE OR UPDATE OF status, next_attempt_at
    ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION webhook_queue_follow_delivery();
