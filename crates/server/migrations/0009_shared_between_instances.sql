-- Requests with an Idempotency-Key that are being served: a claim in the database rather than
-- in one process's memory, so two instances on one database never serve the same key at once.
-- A claim a crash left behind lapses at expires_at.
CREATE TABLE idempotency_claims (
    scope      TEXT NOT NULL,
    key        TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
) STRICT;

-- Work that must run on one instance at a time (the sandbox's simulated purchases): the
-- instance holding a name's lease does it, renews it while it runs, and another takes it over
-- once it has lapsed.
CREATE TABLE leases (
    name          TEXT PRIMARY KEY,
    holder        TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL
) STRICT;
