-- Creators: the shared catalog of platform accounts, each organization's
-- tracked accounts, and the creator-track jobs (the public resource and the
-- queue at once).

CREATE TABLE creators (
    id              BLOB PRIMARY KEY,
    platform        TEXT NOT NULL,
    channel_id      TEXT NOT NULL,
    username        TEXT NOT NULL,
    username_key    TEXT NOT NULL,
    display_name    TEXT,
    avatar_url      TEXT,
    follower_count  INTEGER,
    last_fetched_at TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    UNIQUE (platform, channel_id)
);
CREATE INDEX creators_username ON creators (platform, username_key);

CREATE TABLE tracked_accounts (
    id                    BLOB PRIMARY KEY,
    organization_id       BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    creator_id            BLOB NOT NULL REFERENCES creators (id),
    is_active             INTEGER NOT NULL,
    initial_videos_count  INTEGER NOT NULL,
    daily_videos_count    INTEGER,
    campaign              TEXT,
    ecpm                  REAL,
    last_scraped_at       TEXT,
    discovered_since      TEXT NOT NULL,
    next_discovery_at     TEXT,
    discovery_lease_until TEXT,
    discovery_lease_token BLOB,
    discovery_note        TEXT,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL,
    UNIQUE (organization_id, creator_id)
);
CREATE INDEX tracked_accounts_due ON tracked_accounts (next_discovery_at)
    WHERE is_active AND next_discovery_at IS NOT NULL;

CREATE TABLE creator_jobs (
    id                   BLOB PRIMARY KEY,
    organization_id      BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    api_key_id           BLOB,
    request_id           TEXT NOT NULL,
    platform             TEXT NOT NULL,
    username             TEXT NOT NULL,
    username_key         TEXT NOT NULL,
    initial_videos_count INTEGER NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'succeeded', 'error')),
    created_at           TEXT NOT NULL,
    started_at           TEXT,
    completed_at         TEXT,
    lease_until          TEXT,
    lease_token          BLOB,
    attempts             INTEGER NOT NULL DEFAULT 0,
    tracked_account_id   BLOB REFERENCES tracked_accounts (id) ON DELETE SET NULL,
    is_reactivation      INTEGER,
    error_code           TEXT,
    error_message        TEXT
);
-- One job in flight per organization, platform and username: the database
-- says so, not a check-then-insert.
CREATE UNIQUE INDEX creator_jobs_in_flight ON creator_jobs (organization_id, platform, username_key)
    WHERE status IN ('queued', 'processing');
CREATE INDEX creator_jobs_open ON creator_jobs (status, lease_until)
    WHERE status IN ('queued', 'processing');
