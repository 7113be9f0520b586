-- Secret rotation revokes tokens: every token carries the generation of the subscriber's
-- credentials it was issued under, and a rotation moves the generation on.
ALTER TABLE subscribers ADD COLUMN credential_generation INTEGER NOT NULL DEFAULT 0;
