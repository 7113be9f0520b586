-- Failed logins, kept in the database rather than in one process's memory: a restart does not
-- forgive a guesser, and every instance on one database counts the same failures. The subject
-- is a keyed digest (HMAC under the service's idempotency key, with its own label) of the
-- e-mail address, the client address, or both: the table names nobody.
CREATE TABLE login_failures (
    scope        TEXT NOT NULL CHECK (scope IN ('pair', 'address', 'email')),
    subject      BLOB NOT NULL,
    failed_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX login_failures_by_subject ON login_failures (scope, subject, failed_at_ms);
CREATE INDEX login_failures_by_time ON login_failures (failed_at_ms);
