-- vidpulse schema, PostgreSQL flavour. Every tenant table is keyed by
-- organization_id and the catalog by (platform, external_id), so the schema
-- can be distributed (Citus) without rewriting queries.

CREATE TABLE organizations (
    id            UUID PRIMARY KEY,
    name          TEXT NOT NULL,
    plan          TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
    video_quota   BIGINT,
    creator_cap   BIGINT,
    currency      TEXT NOT NULL DEFAULT 'USD',
    logo_url      TEXT,
    created_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE users (
    id            UUID PRIMARY KEY,
    subject       TEXT UNIQUE,
    email         TEXT NOT NULL,
    email_lower   TEXT NOT NULL UNIQUE,
    language      TEXT NOT NULL DEFAULT 'en',
    created_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE memberships (
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'owner')),
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);

CREATE TABLE api_keys (
    id              UUID PRIMARY KEY,
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            TEXT,
    prefix          TEXT NOT NULL,
    key_hash        BYTEA NOT NULL UNIQUE,
    created_at      TIMESTAMPTZ NOT NULL,
    last_used_at    TIMESTAMPTZ,
    revoked_at      TIMESTAMPTZ
);
CREATE INDEX api_keys_prefix ON api_keys (prefix);
CREATE INDEX api_keys_org ON api_keys (organization_id);

CREATE TABLE platform_videos (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform            TEXT NOT NULL,
    external_id         TEXT NOT NULL,
    url                 TEXT NOT NULL,
    title               TEXT,
    thumbnail_url       TEXT,
    author_username     TEXT,
    author_display_name TEXT,
    published_at        TIMESTAMPTZ,
    views               BIGINT,
    likes               BIGINT,
    comments            BIGINT,
    reposts             BIGINT,
    saves               BIGINT,
    stats_updated_at    TIMESTAMPTZ,
    tracking_started_at TIMESTAMPTZ NOT NULL,
    refresh_until       TIMESTAMPTZ NOT NULL,
    next_refresh_at     TIMESTAMPTZ,
    lease_until         TIMESTAMPTZ,
    lease_token         UUID,
    failures            BIGINT NOT NULL DEFAULT 0,
    last_error          TEXT,
    gone_at             TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL,
    UNIQUE (platform, external_id)
);
CREATE INDEX platform_videos_due ON platform_videos (next_refresh_at) WHERE next_refresh_at IS NOT NULL;
CREATE INDEX platform_videos_external_id ON platform_videos (external_id);

CREATE TABLE observations (
    platform_video_id BIGINT NOT NULL REFERENCES platform_videos (id),
    captured_at       TIMESTAMPTZ NOT NULL,
    views             BIGINT,
    likes             BIGINT,
    comments          BIGINT,
    reposts           BIGINT,
    saves             BIGINT,
    source            TEXT NOT NULL,
    PRIMARY KEY (platform_video_id, captured_at)
);

CREATE TABLE daily_closes (
    platform_video_id BIGINT NOT NULL REFERENCES platform_videos (id),
    day               DATE NOT NULL,
    first_at          TIMESTAMPTZ NOT NULL,
    first_views       BIGINT,
    first_likes       BIGINT,
    first_comments    BIGINT,
    first_reposts     BIGINT,
    first_saves       BIGINT,
    last_at           TIMESTAMPTZ NOT NULL,
    last_views        BIGINT,
    last_likes        BIGINT,
    last_comments     BIGINT,
    last_reposts      BIGINT,
    last_saves        BIGINT,
    PRIMARY KEY (platform_video_id, day)
);

CREATE TABLE tracked_videos (
    id                  UUID PRIMARY KEY,
    organization_id     UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform_video_id   BIGINT NOT NULL REFERENCES platform_videos (id),
    tracking_started_at TIMESTAMPTZ NOT NULL,
    tracking_ends_at    TIMESTAMPTZ NOT NULL,
    notes               TEXT,
    budget              BIGINT,
    campaign            TEXT,
    video_status        TEXT NOT NULL DEFAULT 'tracking',
    workflow_status     TEXT NOT NULL DEFAULT 'to do',
    ecpm                DOUBLE PRECISION,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    UNIQUE (organization_id, platform_video_id)
);
CREATE INDEX tracked_videos_org_created ON tracked_videos (organization_id, created_at);
CREATE INDEX tracked_videos_org_ends ON tracked_videos (organization_id, tracking_ends_at);

CREATE TABLE tags (
    id              UUID PRIMARY KEY,
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    name_lower      TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (organization_id, name_lower)
);

CREATE TABLE video_tags (
    tracked_video_id UUID NOT NULL REFERENCES tracked_videos (id) ON DELETE CASCADE,
    tag_id           UUID NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (tracked_video_id, tag_id)
);

CREATE TABLE usage_daily (
    organization_id     UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day                 DATE NOT NULL,
    total_requests      BIGINT NOT NULL DEFAULT 0,
    successful_requests BIGINT NOT NULL DEFAULT 0,
    error_requests      BIGINT NOT NULL DEFAULT 0,
    response_ms_total   BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, day)
);

CREATE TABLE usage_daily_keys (
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day             DATE NOT NULL,
    api_key_id      UUID NOT NULL,
    PRIMARY KEY (organization_id, day, api_key_id)
);

CREATE TABLE credit_ledger (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    api_key_id      UUID,
    request_id      TEXT NOT NULL,
    amount          BIGINT NOT NULL,
    reason          TEXT NOT NULL,
    subject         TEXT,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX credit_ledger_org_created ON credit_ledger (organization_id, created_at);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
