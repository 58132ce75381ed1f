-- Creators: the shared catalog of platform accounts, each organization's
-- tracked accounts, and the creator-track jobs (the public resource and the
-- queue at once).

CREATE TABLE creators (
    id              UUID PRIMARY KEY,
    platform        TEXT NOT NULL,
    channel_id      TEXT NOT NULL,
    username        TEXT NOT NULL,
    username_key    TEXT NOT NULL,
    display_name    TEXT,
    avatar_url      TEXT,
    follower_count  BIGINT,
    last_fetched_at TIMESTAMPTZ NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (platform, channel_id)
);
CREATE INDEX creators_username ON creators (platform, username_key);

CREATE TABLE tracked_accounts (
    id                    UUID PRIMARY KEY,
    organization_id       UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    creator_id            UUID NOT NULL REFERENCES creators (id),
    is_active             BOOLEAN NOT NULL,
    initial_videos_count  BIGINT NOT NULL,
    daily_videos_count    BIGINT,
    campaign              TEXT,
    ecpm                  DOUBLE PRECISION,
    last_scraped_at       TIMESTAMPTZ,
    discovered_since      TIMESTAMPTZ NOT NULL,
    next_discovery_at     TIMESTAMPTZ,
    discovery_lease_until TIMESTAMPTZ,
    discovery_lease_token UUID,
    discovery_note        TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    UNIQUE (organization_id, creator_id)
);
CREATE INDEX tracked_accounts_due ON tracked_accounts (next_discovery_at)
    WHERE is_active AND next_discovery_at IS NOT NULL;

CREATE TABLE creator_jobs (
    id                   UUID PRIMARY KEY,
    organization_id      UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    api_key_id           UUID,
    request_id           TEXT NOT NULL,
    platform             TEXT NOT NULL,
    username             TEXT NOT NULL,
    username_key         TEXT NOT NULL,
    initial_videos_count BIGINT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'succeeded', 'error')),
    created_at           TIMESTAMPTZ NOT NULL,
    started_at           TIMESTAMPTZ,
    completed_at         TIMESTAMPTZ,
    lease_until          TIMESTAMPTZ,
    lease_token          UUID,
    attempts             BIGINT NOT NULL DEFAULT 0,
    tracked_account_id   UUID REFERENCES tracked_accounts (id) ON DELETE SET NULL,
    is_reactivation      BOOLEAN,
    error_code           TEXT,
    error_message        TEXT
);
-- One job in flight per organization, platform and username: the database
-- says so, not a check-then-insert.
CREATE UNIQUE INDEX creator_jobs_in_flight ON creator_jobs (organization_id, platform, username_key)
    WHERE status IN ('queued', 'processing');
CREATE INDEX creator_jobs_open ON creator_jobs (status, lease_until)
    WHERE status IN ('queued', 'processing');
