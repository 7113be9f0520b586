-- Identity verification by the person on a hosted page (contract: "Identity verification by the
-- person themselves", fourth round): a one-time link to a person's page, found by the hash of its
-- token, never by the token. Nothing the person types on it is stored here (or anywhere): the
-- page runs the same question sets as the API. A person's removal deletes their sessions first.
-- PostgreSQL's 0010 makes the same table.
CREATE TABLE person_sessions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    subscriber_id INTEGER NOT NULL REFERENCES subscribers(id),
    person_id     INTEGER NOT NULL REFERENCES persons(id),
    token_hash    BLOB NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,
    return_url    TEXT,
    completed_at  INTEGER
);
CREATE INDEX person_sessions_of_person ON person_sessions (person_id);
