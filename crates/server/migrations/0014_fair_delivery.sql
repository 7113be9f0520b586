-- Fair webhook delivery (issue 37, M1 and M2): one queue row per endpoint, so that a claim
-- costs the number of endpoints due, never the number of deliveries waiting.
--
-- `webhook_queues` is kept by the triggers below, whoever writes `webhooks` or
-- `webhook_deliveries` (events queued, resent, recovered, purged, an endpoint disabled,
-- enabled or deleted); the delivery worker moves it when it claims, renews and records.
--   pending        deliveries waiting (status 'pending').
--   due_at         when the endpoint may next be claimed (milliseconds): its head's next
--                  attempt, or the end of the claim in flight; NULL when nothing waits or the
--                  endpoint is disabled (parked: never scanned until enabled again). It may be
--                  early, never late: a claim reads the head and moves it on.
--   claimed_until  the end of the claim in flight (renewed while the attempt runs); NULL when
--                  none. `claim` counts claims, so a stale holder cannot move the queue.
--   host           the receiver's host and port, for the cap of attempts per receiver.
--   dropped, gap_* deliveries not queued because the queue was full (they are kept as
--                  failed, never attempted: `recover` queues them again), the last unbroken
--                  run of them shown to the subscriber.
--   tests_*        the window of test sends (`POST /webhooks/<id>/test`).
CREATE TABLE webhook_queues (
    webhook_id          INTEGER PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
    subscriber_id       INTEGER NOT NULL,
    host                TEXT NOT NULL,
    pending             INTEGER NOT NULL DEFAULT 0,
    due_at              INTEGER,
    claimed_until       INTEGER,
    claim               INTEGER NOT NULL DEFAULT 0,
    dropped             INTEGER NOT NULL DEFAULT 0,
    gap_open            INTEGER NOT NULL DEFAULT 0,
    gap_count           INTEGER NOT NULL DEFAULT 0,
    gap_first_event_id  INTEGER,
    gap_last_event_id   INTEGER,
    gap_since           INTEGER,
    gap_until           INTEGER,
    tests_since         INTEGER NOT NULL DEFAULT 0,
    tests_sent          INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX webhook_queues_due ON webhook_queues (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX webhook_queues_by_subscriber ON webhook_queues (subscriber_id);

-- The most deliveries one endpoint's queue holds (the service sets it at start).
CREATE TABLE webhook_queue_limits (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    pending_max INTEGER NOT NULL
) STRICT;
INSERT INTO webhook_queue_limits (id, pending_max) VALUES (1, 10000);

-- An endpoint's host and port: its URL (as the service stored it, scheme://authority/...)
-- between "://" and the next "/".
INSERT INTO webhook_queues (webhook_id, subscriber_id, host, pending, due_at)
    SELECT w.id, w.subscriber_id,
           lower(substr(substr(w.url, instr(w.url, '://') + 3), 1,
                        instr(substr(w.url, instr(w.url, '://') + 3) || '/', '/') - 1)),
           (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending'),
           -- Due at once: the first claim reads each head and moves the time on.
           CASE WHEN w.enabled = 1
                     AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending')
                THEN 0 END
    FROM webhooks w;

-- Claims are per endpoint now (webhook_queues.claimed_until): webhook_deliveries.locked_until
-- is no longer read or written; nor is the index of every pending delivery by due time.
DROP INDEX webhook_deliveries_due;

CREATE TRIGGER webhook_queue_opened AFTER INSERT ON webhooks BEGIN
    INSERT INTO webhook_queues (webhook_id, subscriber_id, host)
    VALUES (NEW.id, NEW.subscriber_id,
            lower(substr(substr(NEW.url, instr(NEW.url, '://') + 3), 1,
                         instr(substr(NEW.url, instr(NEW.url, '://') + 3) || '/', '/') - 1)));
END;

CREATE TRIGGER webhook_queue_moved AFTER UPDATE OF url ON webhooks BEGIN
    UPDATE webhook_queues
    SET host = lower(substr(substr(NEW.url, instr(NEW.url, '://') + 3), 1,
                            instr(substr(NEW.url, instr(NEW.url, '://') + 3) || '/', '/') - 1))
    WHERE webhook_id = NEW.id;
END;

-- Disabled: parked. Enabled again: due (after a claim still in flight).
CREATE TRIGGER webhook_queue_parked AFTER UPDATE OF enabled ON webhooks WHEN NEW.enabled = 0 BEGIN
    UPDATE webhook_queues SET due_at = NULL WHERE webhook_id = NEW.id;
END;
CREATE TRIGGER webhook_queue_resumed AFTER UPDATE OF enabled ON webhooks
WHEN NEW.enabled = 1 AND OLD.enabled = 0 BEGIN
    UPDATE webhook_queues SET due_at = COALESCE(claimed_until, 0) WHERE webhook_id = NEW.id AND pending > 0;
END;

-- A delivery waiting from `next_attempt_at` at the head of its queue (none before it) makes
-- the endpoint due by then at the latest, unless the endpoint is disabled, and not before a
-- claim in flight ends; one behind the head changes nothing (an index seek says which).
CREATE TRIGGER webhook_delivery_queued AFTER INSERT ON webhook_deliveries WHEN NEW.status = 'pending' BEGIN
    UPDATE webhook_queues SET
        pending = pending + 1,
        gap_open = 0,
        due_at = CASE WHEN (SELECT enabled FROM webhooks WHERE id = NEW.webhook_id) = 1
                           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries h INDEXED BY webhook_deliveries_pending
                                           WHERE h.webhook_id = NEW.webhook_id AND h.status = 'pending'
                                             AND h.event_id < NEW.event_id)
                      THEN max(min(COALESCE(due_at, NEW.next_attempt_at), NEW.next_attempt_at),
                               COALESCE(claimed_until, 0))
                      ELSE due_at END
    WHERE webhook_id = NEW.webhook_id;
END;

CREATE TRIGGER webhook_delivery_dropped AFTER INSERT ON webhook_deliveries
WHEN NEW.status = 'failed' AND NEW.attempts = 0 BEGIN
    UPDATE webhook_queues SET
        dropped = dropped + 1,
        gap_count = CASE WHEN gap_open = 1 THEN gap_count + 1 ELSE 1 END,
        gap_first_event_id = CASE WHEN gap_open = 1 THEN gap_first_event_id ELSE NEW.event_id END,
        gap_since = CASE WHEN gap_open = 1 THEN gap_since ELSE NEW.created_at END,
        gap_last_event_id = NEW.event_id,
        gap_until = NEW.created_at,
        gap_open = 1
    WHERE webhook_id = NEW.webhook_id;
END;

CREATE TRIGGER webhook_delivery_moved AFTER UPDATE OF status, next_attempt_at ON webhook_deliveries
WHEN NEW.status IS NOT OLD.status OR NEW.next_attempt_at IS NOT OLD.next_attempt_at BEGIN
    UPDATE webhook_queues SET
        pending = pending + (NEW.status = 'pending') - (OLD.status = 'pending'),
        gap_open = CASE WHEN NEW.status = 'pending' AND OLD.status <> 'pending' THEN 0 ELSE gap_open END,
        due_at = CASE WHEN NEW.status = 'pending' AND (SELECT enabled FROM webhooks WHERE id = NEW.webhook_id) = 1
                           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries h INDEXED BY webhook_deliveries_pending
                                           WHERE h.webhook_id = NEW.webhook_id AND h.status = 'pending'
                                             AND h.event_id < NEW.event_id)
                      THEN max(min(COALESCE(due_at, NEW.next_attempt_at), NEW.next_attempt_at),
                               COALESCE(claimed_until, 0))
                      ELSE due_at END
    WHERE webhook_id = NEW.webhook_id;
END;

-- A waiting delivery gone (its event purged or deleted): the head may have changed, so the
-- endpoint is looked at again (a time in the past is due).
CREATE TRIGGER webhook_delivery_forgotten AFTER DELETE ON webhook_deliveries WHEN OLD.status = 'pending' BEGIN
    UPDATE webhook_queues SET
        pending = pending - 1,
        due_at = CASE WHEN due_at IS NULL THEN NULL
                      ELSE max(min(due_at, OLD.created_at), COALESCE(claimed_until, 0)) END
    WHERE webhook_id = OLD.webhook_id;
END;
