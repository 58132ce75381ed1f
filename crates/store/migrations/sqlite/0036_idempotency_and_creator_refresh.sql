-- Idempotent requests (issue 39): a POST of the public API that carries an
-- `Idempotency-Key` claims the key for its organization here before it
-- runs, and keeps its answer (status, headers, body) when it ends, so a
-- retry with the same key and the same request (`fingerprint`: method, path
-- and body, hashed) gets that answer without doing anything again. While
-- the first request runs, the row holds its lease (`lease_token`,
-- `lease_until`) and `status` is NULL; a lease that ran out (its API node
-- died) lets a retry take the key over. Rows older than a day are purged by
-- the worker's housekeeping, and a claim treats them as absent.
CREATE TABLE idempotency_keys (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    lease_token     BLOB,
    lease_until     TEXT,
    status          INTEGER,
    headers         TEXT,
    body            BLOB,
    PRIMARY KEY (organization_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Creators refreshed by API key (issue 39): when the organization last had
-- a creator's profile and new videos read on demand, for the cooldown
-- between two such reads.
ALTER TABLE tracked_accounts ADD COLUMN refresh_asked_at TEXT;
