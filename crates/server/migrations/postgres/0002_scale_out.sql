-- 0002 (beside SQLite's 0011): writes of different subscribers no longer wait for each other.
-- A write that records events locks its subscribers' rows (FOR NO KEY UPDATE) before the events
-- get their ids, so no table here changes; the sale statement takes an event's id itself with
-- nextval(pg_get_serial_sequence('events', 'id')) and inserts it explicitly, which an identity
-- BY DEFAULT accepts. Ids are identities here: never handed out twice, also after a reset.
SELECT 1;
