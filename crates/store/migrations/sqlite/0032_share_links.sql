-- Share links (issue 38): a live, read-only, revocable link to one
-- campaign's report, for a client who has no account. The token itself is
-- shown once when the link is made; only its SHA-256 (hex) is kept, and a
-- shared page finds its link by that hash. A revoked link stays (listed
-- with `revoked_at`) and opens nothing; so does one past `expires_at`.
CREATE TABLE share_links (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    campaign_id     BLOB NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    token_hash      TEXT NOT NULL UNIQUE,
    label           TEXT,
    show_spend      BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at      TEXT,
    revoked_at      TEXT,
    created_at      TEXT NOT NULL,
    created_by      BLOB REFERENCES users (id) ON DELETE SET NULL,
    last_viewed_at  TEXT,
    views           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX share_links_campaign ON share_links (organization_id, campaign_id, created_at);
