-- vidpulse schema, SQLite flavour. Timestamps are RFC 3339 text in UTC
-- (sqlx's encoding of DateTime<Utc>; lexical order is time order), days are
-- 'YYYY-MM-DD' text, ids are 16-byte UUID blobs.

CREATE TABLE organizations (
    id            BLOB PRIMARY KEY,
    name          TEXT NOT NULL,
    plan          TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
    video_quota   INTEGER,                 -- NULL: the plan's default
    creator_cap   INTEGER,                 -- NULL: the plan's default
    currency      TEXT NOT NULL DEFAULT 'USD',
    logo_url      TEXT,
    created_at    TEXT NOT NULL
);

CREATE TABLE users (
    id            BLOB PRIMARY KEY,
    subject       TEXT UNIQUE,             -- identity provider subject
    email         TEXT NOT NULL,
    email_lower   TEXT NOT NULL UNIQUE,
    language      TEXT NOT NULL DEFAULT 'en',
    created_at    TEXT NOT NULL
);

CREATE TABLE memberships (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'owner')),
    created_at      TEXT NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);

CREATE TABLE api_keys (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            TEXT,
    prefix          TEXT NOT NULL,
    key_hash        BLOB NOT NULL UNIQUE,
    created_at      TEXT NOT NULL,
    last_used_at    TEXT,
    revoked_at      TEXT
);
CREATE INDEX api_keys_prefix ON api_keys (prefix);
CREATE INDEX api_keys_org ON api_keys (organization_id);

-- The video catalog, shared by every organization: one upstream read serves all.
CREATE TABLE platform_videos (
    id                  INTEGER PRIMARY KEY,
    platform            TEXT NOT NULL,
    external_id         TEXT NOT NULL,
    url                 TEXT NOT NULL,
    title               TEXT,
    thumbnail_url       TEXT,
    author_username     TEXT,
    author_display_name TEXT,
    published_at        TEXT,
    views               INTEGER,
    likes               INTEGER,
    comments            INTEGER,
    reposts             INTEGER,
    saves               INTEGER,
    stats_updated_at    TEXT,
    tracking_started_at TEXT NOT NULL,     -- most recent tracking start: picks the schedule tier
    refresh_until       TEXT NOT NULL,     -- latest tracking end over all organizations
    next_refresh_at     TEXT,              -- NULL: no read scheduled
    lease_until         TEXT,              -- a worker's claim, void once past
    lease_token         BLOB,
    failures            INTEGER NOT NULL DEFAULT 0,  -- consecutive failed reads
    last_error          TEXT,
    gone_at             TEXT,              -- the platform reported it removed or private
    created_at          TEXT NOT NULL,
    UNIQUE (platform, external_id)
);
CREATE INDEX platform_videos_due ON platform_videos (next_refresh_at) WHERE next_refresh_at IS NOT NULL;
CREATE INDEX platform_videos_external_id ON platform_videos (external_id);

-- Append-only time series of readings.
CREATE TABLE observations (
    platform_video_id INTEGER NOT NULL REFERENCES platform_videos (id),
    captured_at       TEXT NOT NULL,
    views             INTEGER,
    likes             INTEGER,
    comments          INTEGER,
    reposts           INTEGER,
    saves             INTEGER,
    source            TEXT NOT NULL,
    PRIMARY KEY (platform_video_id, captured_at)
) WITHOUT ROWID;

-- First and last observation of each video on each UTC day, kept on write.
CREATE TABLE daily_closes (
    platform_video_id INTEGER NOT NULL REFERENCES platform_videos (id),
    day               TEXT NOT NULL,
    first_at          TEXT NOT NULL,
    first_views       INTEGER,
    first_likes       INTEGER,
    first_comments    INTEGER,
    first_reposts     INTEGER,
    first_saves       INTEGER,
    last_at           TEXT NOT NULL,
    last_views        INTEGER,
    last_likes        INTEGER,
    last_comments     INTEGER,
    last_reposts      INTEGER,
    last_saves        INTEGER,
    PRIMARY KEY (platform_video_id, day)
) WITHOUT ROWID;

-- One organization's tracking of a catalog video: the public video record.
CREATE TABLE tracked_videos (
    id                  BLOB PRIMARY KEY,
    organization_id     BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform_video_id   INTEGER NOT NULL REFERENCES platform_videos (id),
    tracking_started_at TEXT NOT NULL,
    tracking_ends_at    TEXT NOT NULL,
    notes               TEXT,
    budget              INTEGER,
    campaign            TEXT,
    video_status        TEXT NOT NULL DEFAULT 'tracking',
    workflow_status     TEXT NOT NULL DEFAULT 'to do',
    ecpm                REAL,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    UNIQUE (organization_id, platform_video_id)
);
CREATE INDEX tracked_videos_org_created ON tracked_videos (organization_id, created_at);
CREATE INDEX tracked_videos_org_ends ON tracked_videos (organization_id, tracking_ends_at);

CREATE TABLE tags (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    name_lower      TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    UNIQUE (organization_id, name_lower)
);

CREATE TABLE video_tags (
    tracked_video_id BLOB NOT NULL REFERENCES tracked_videos (id) ON DELETE CASCADE,
    tag_id           BLOB NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (tracked_video_id, tag_id)
) WITHOUT ROWID;

-- Request counters per organization and UTC day, flushed in batches.
CREATE TABLE usage_daily (
    organization_id     BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day                 TEXT NOT NULL,
    total_requests      INTEGER NOT NULL DEFAULT 0,
    successful_requests INTEGER NOT NULL DEFAULT 0,
    error_requests      INTEGER NOT NULL DEFAULT 0,
    response_ms_total   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, day)
) WITHOUT ROWID;

CREATE TABLE usage_daily_keys (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day             TEXT NOT NULL,
    api_key_id      BLOB NOT NULL,
    PRIMARY KEY (organization_id, day, api_key_id)
) WITHOUT ROWID;

-- Every charge, written in the same transaction as the work it pays for.
CREATE TABLE credit_ledger (
    id              INTEGER PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    api_key_id      BLOB,
    request_id      TEXT NOT NULL,
    amount          INTEGER NOT NULL,
    reason          TEXT NOT NULL,
    subject         TEXT,
    created_at      TEXT NOT NULL
);
CREATE INDEX credit_ledger_org_created ON credit_ledger (organization_id, created_at);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
