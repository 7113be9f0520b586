-- Snapshots of a subscriber's sandbox (contract: "Sandbox scenarios, snapshots"): what its
-- rows were, table by table, to be put back exactly. Each part holds one table's rows of the
-- subscriber as JSON text (the rows themselves: column names and values; a BLOB as hex), read
-- in one transaction. `event_seq` is the newest event id then: a restore tells sync clients
-- about every transaction changed after it. At most 20 per subscriber (the service checks).
CREATE TABLE sandbox_snapshots (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id  INTEGER NOT NULL REFERENCES subscribers(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    event_seq      INTEGER NOT NULL,
    cards          INTEGER NOT NULL DEFAULT 0,
    transactions   INTEGER NOT NULL DEFAULT 0,
    bytes          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sandbox_snapshots_by_subscriber ON sandbox_snapshots (subscriber_id, id);

CREATE TABLE sandbox_snapshot_parts (
    snapshot_id    INTEGER NOT NULL REFERENCES sandbox_snapshots(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    rows           TEXT NOT NULL,
    PRIMARY KEY (snapshot_id, name)
);
