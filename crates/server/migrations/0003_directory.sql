-- The sandbox merchant directory, generated once from the sandbox seed (see directory_state).
-- Ids start above 100,000,000 so that they never look like an enrolled location's id.

CREATE TABLE directory_merchants (
    id              INTEGER PRIMARY KEY,
    dba_name        TEXT NOT NULL,
    descriptor      TEXT NOT NULL,     -- as a statement prints it
    mcc             INTEGER NOT NULL,
    street          TEXT NOT NULL,
    street_no       TEXT NOT NULL,
    city            TEXT NOT NULL,
    region          TEXT,
    country         TEXT NOT NULL,     -- ISO 3166-1 alpha-3
    zip             TEXT NOT NULL,
    phone           INTEGER NOT NULL,  -- international digits, e.g. 14155550123
    latitude        REAL NOT NULL,
    longitude       REAL NOT NULL,
    currency        TEXT NOT NULL      -- ISO 4217
) STRICT;

-- Which directory directory_merchants holds: one row.
CREATE TABLE directory_state (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    seed            INTEGER NOT NULL,
    size            INTEGER NOT NULL,
    version         INTEGER NOT NULL,  -- of the generator
    generated_at    INTEGER NOT NULL
) STRICT;
