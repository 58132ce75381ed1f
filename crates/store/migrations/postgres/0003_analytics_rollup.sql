-- The analytics rollup (ARCHITECTURE.md, "Analytics path").
--
-- Each daily close remembers the close before it (`prev_day` and that day's
-- last counters), so a close's share of totals and increments needs no
-- window function. The two rollup tables sum those shares per organization,
-- day and cell; every write that moves a close, a tracking window, a
-- campaign or an author moves them in the same transaction. Columns per
-- metric m, over the closes an organization sees (its tracking window):
--   step_m   closes after the organization's first visible day: last − previous last
--   open_m   first visible day: last − first   (totals when that day is `from`)
--   entry_m  first visible day: last           (totals when it is after `from`)
--   gain_m   increments: max(0, last − (previous last, or first on the first day))
-- so totals over from..=to = Σ step + Σ (day = from ? open : entry) and the
-- increments of a day = Σ gain. The store fills both tables from the closes
-- after this migration (the `store_tasks` row below).

ALTER TABLE daily_closes ADD COLUMN prev_day DATE;
ALTER TABLE daily_closes ADD COLUMN prev_views BIGINT;
ALTER TABLE daily_closes ADD COLUMN prev_likes BIGINT;
ALTER TABLE daily_closes ADD COLUMN prev_comments BIGINT;
ALTER TABLE daily_closes ADD COLUMN prev_reposts BIGINT;
ALTER TABLE daily_closes ADD COLUMN prev_saves BIGINT;

CREATE INDEX tracked_videos_catalog ON tracked_videos (platform_video_id);

CREATE TABLE analytics_creator_days (
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day             DATE NOT NULL,
    platform        TEXT NOT NULL,
    author_username TEXT NOT NULL, -- author as stored; '' when unknown
    closes          BIGINT NOT NULL,
    step_views      BIGINT NOT NULL DEFAULT 0,
    step_likes      BIGINT NOT NULL DEFAULT 0,
    step_comments   BIGINT NOT NULL DEFAULT 0,
    step_reposts    BIGINT NOT NULL DEFAULT 0,
    step_saves      BIGINT NOT NULL DEFAULT 0,
    open_views      BIGINT NOT NULL DEFAULT 0,
    open_likes      BIGINT NOT NULL DEFAULT 0,
    open_comments   BIGINT NOT NULL DEFAULT 0,
    open_reposts    BIGINT NOT NULL DEFAULT 0,
    open_saves      BIGINT NOT NULL DEFAULT 0,
    entry_views     BIGINT NOT NULL DEFAULT 0,
    entry_likes     BIGINT NOT NULL DEFAULT 0,
    entry_comments  BIGINT NOT NULL DEFAULT 0,
    entry_reposts   BIGINT NOT NULL DEFAULT 0,
    entry_saves     BIGINT NOT NULL DEFAULT 0,
    gain_views      BIGINT NOT NULL DEFAULT 0,
    gain_likes      BIGINT NOT NULL DEFAULT 0,
    gain_comments   BIGINT NOT NULL DEFAULT 0,
    gain_reposts    BIGINT NOT NULL DEFAULT 0,
    gain_saves      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, day, platform, author_username)
);

CREATE TABLE analytics_campaign_days (
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day             DATE NOT NULL,
    platform        TEXT NOT NULL,
    campaign        TEXT NOT NULL, -- '' without one
    closes          BIGINT NOT NULL,
    step_views      BIGINT NOT NULL DEFAULT 0,
    step_likes      BIGINT NOT NULL DEFAULT 0,
    step_comments   BIGINT NOT NULL DEFAULT 0,
    step_reposts    BIGINT NOT NULL DEFAULT 0,
    step_saves      BIGINT NOT NULL DEFAULT 0,
    open_views      BIGINT NOT NULL DEFAULT 0,
    open_likes      BIGINT NOT NULL DEFAULT 0,
    open_comments   BIGINT NOT NULL DEFAULT 0,
    open_reposts    BIGINT NOT NULL DEFAULT 0,
    open_saves      BIGINT NOT NULL DEFAULT 0,
    entry_views     BIGINT NOT NULL DEFAULT 0,
    entry_likes     BIGINT NOT NULL DEFAULT 0,
    entry_comments  BIGINT NOT NULL DEFAULT 0,
    entry_reposts   BIGINT NOT NULL DEFAULT 0,
    entry_saves     BIGINT NOT NULL DEFAULT 0,
    gain_views      BIGINT NOT NULL DEFAULT 0,
    gain_likes      BIGINT NOT NULL DEFAULT 0,
    gain_comments   BIGINT NOT NULL DEFAULT 0,
    gain_reposts    BIGINT NOT NULL DEFAULT 0,
    gain_saves      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, day, platform, campaign)
);

-- One-off work the store does in code right after migrating.
CREATE TABLE store_tasks (
    name TEXT PRIMARY KEY
);
INSERT INTO store_tasks (name) VALUES ('rebuild_analytics');
