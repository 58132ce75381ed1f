-- Signing in to the web app: a password per user (argon2id, PHC string),
-- sessions kept server-side (the cookie carries a random token; only its
-- SHA-256 is stored), and one-time links that set a password.

ALTER TABLE users ADD COLUMN password_hash TEXT;

CREATE TABLE sessions (
    id           BLOB PRIMARY KEY,
    token_hash   BLOB NOT NULL UNIQUE,
    user_id      BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    user_agent   TEXT
);
CREATE INDEX sessions_by_user ON sessions (user_id, expires_at);

CREATE TABLE password_links (
    token_hash BLOB PRIMARY KEY,
    user_id    BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
);
CREATE INDEX password_links_by_user ON password_links (user_id);
