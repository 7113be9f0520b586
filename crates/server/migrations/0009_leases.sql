-- Work that must run on one instance at a time (the sandbox's simulated purchases): the
-- instance holding a name's lease does it, renews it while it runs, and another takes it over
-- once it has lapsed.
CREATE TABLE leases (
    name          TEXT PRIMARY KEY,
    holder        TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL
) STRICT;
