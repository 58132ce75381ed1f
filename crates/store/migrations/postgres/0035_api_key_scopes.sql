-- Scoped API keys (issue 39): `read` (the public API's reads) or
-- `read,write` (full access). Keys made before keep full access.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read,write'
    CHECK (scopes IN ('read', 'read,write'));
