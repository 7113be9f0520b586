-- Merchants, their locations, and the sequence of transaction events the real-time streams
-- send. Times are Unix seconds (UTC).

-- One merchant per subscriber ("enroll as a merchant").
CREATE TABLE merchants (
    id              INTEGER PRIMARY KEY,
    subscriber_id   INTEGER NOT NULL UNIQUE REFERENCES subscribers(id),
    name            TEXT NOT NULL,
    mcc             TEXT NOT NULL,     -- ISO 18245, 4 digits
    country_code    TEXT NOT NULL,     -- ISO 3166-1 alpha-3
    phone           TEXT,
    website         TEXT,
    created_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE locations (
    id              INTEGER PRIMARY KEY,
    merchant_id     INTEGER NOT NULL REFERENCES merchants(id),
    country_code    TEXT NOT NULL,     -- ISO 3166-1 alpha-3
    street          TEXT NOT NULL,
    street_no       TEXT NOT NULL,
    city            TEXT NOT NULL,
    zip             TEXT NOT NULL,
    latitude        REAL,              -- NULL when neither sent nor derivable from the city
    longitude       REAL,
    coordinates_source TEXT NOT NULL CHECK (coordinates_source IN ('provided', 'derived', 'unknown')),
    descriptor      TEXT NOT NULL,     -- what a card statement prints for purchases here
    created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX locations_by_merchant ON locations (merchant_id, id);

-- Every change a real-time stream reports, in commit order. The id is the SSE event id: it
-- never goes back or gets reused (AUTOINCREMENT), so Last-Event-ID resumes across restarts.
-- card_id and merchant_id copy the transaction's, so a resumed stream reads only its own.
CREATE TABLE transaction_events (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id),
    kind            TEXT NOT NULL CHECK (kind IN ('created', 'settled')),
    card_id         INTEGER,
    merchant_id     INTEGER,
    created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX transaction_events_by_card ON transaction_events (card_id, id) WHERE card_id IS NOT NULL;
CREATE INDEX transaction_events_by_merchant ON transaction_events (merchant_id, id) WHERE merchant_id IS NOT NULL;
CREATE INDEX transaction_events_by_time ON transaction_events (created_at);
