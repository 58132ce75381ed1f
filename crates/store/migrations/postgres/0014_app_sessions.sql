-- Signing in to the web app: a password per user (argon2id, PHC string),
-- sessions kept server-side (the cookie carries a random token; only its
-- SHA-256 is stored), and one-time links that set a password.

ALTER TABLE users ADD COLUMN password_hash TEXT;

CREATE TABLE sessions (
    id           UUID PRIMARY KEY,
    token_hash   BYTEA NOT NULL UNIQUE,
    user_id      UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    user_agent   TEXT
);
CREATE INDEX sessions_by_user ON sessions (user_id, expires_at);

CREATE TABLE password_links (
    token_hash BYTEA PRIMARY KEY,
    user_id    UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);
CREATE INDEX password_links_by_user ON password_links (user_id);
