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

ALTER TABLE daily_closes ADD COLUMN prev_day TEXT;
ALTER TABLE daily_closes ADD COLUMN prev_views INTEGER;
ALTER TABLE daily_closes ADD COLUMN prev_likes INTEGER;
ALTER TABLE daily_closes ADD COLUMN prev_comments INTEGER;
ALTER TABLE daily_closes ADD COLUMN prev_reposts INTEGER;
ALTER TABLE daily_closes ADD COLUMN prev_saves INTEGER;

CREATE INDEX tracked_videos_catalog ON tracked_videos (platform_video_id);

CREATE TABLE analytics_creator_days (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day             TEXT NOT NULL,
    platform        TEXT NOT NULL,
    author_username TEXT NOT NULL, -- author as stored; '' when unknown
    closes          INTEGER NOT NULL,
    step_views      INTEGER NOT NULL DEFAULT 0,
    step_likes      INTEGER NOT NULL DEFAULT 0,
    step_comments   INTEGER NOT NULL DEFAULT 0,
    step_reposts    INTEGER NOT NULL DEFAULT 0,
    step_saves      INTEGER NOT NULL DEFAULT 0,
    open_views      INTEGER NOT NULL DEFAULT 0,
    open_likes      INTEGER NOT NULL DEFAULT 0,
    open_comments   INTEGER NOT NULL DEFAULT 0,
    open_reposts    INTEGER NOT NULL DEFAULT 0,
    open_saves      INTEGER NOT NULL DEFAULT 0,
    entry_views     INTEGER NOT NULL DEFAULT 0,
    entry_likes     INTEGER NOT NULL DEFAULT 0,
    entry_comments  INTEGER NOT NULL DEFAULT 0,
    entry_reposts   INTEGER NOT NULL DEFAULT 0,
    entry_saves     INTEGER NOT NULL DEFAULT 0,
    gain_views      INTEGER NOT NULL DEFAULT 0,
    gain_likes      INTEGER NOT NULL DEFAULT 0,
    gain_comments   INTEGER NOT NULL DEFAULT 0,
    gain_reposts    INTEGER NOT NULL DEFAULT 0,
    gain_saves      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, day, platform, author_username)
) WITHOUT ROWID;

CREATE TABLE analytics_campaign_days (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    day             TEXT NOT NULL,
    platform        TEXT NOT NULL,
    campaign        TEXT NOT NULL, -- '' without one
    closes          INTEGER NOT NULL,
    step_views      INTEGER NOT NULL DEFAULT 0,
    step_likes      INTEGER NOT NULL DEFAULT 0,
    step_comments   INTEGER NOT NULL DEFAULT 0,
    step_reposts    INTEGER NOT NULL DEFAULT 0,
    step_saves      INTEGER NOT NULL DEFAULT 0,
    open_views      INTEGER NOT NULL DEFAULT 0,
    open_likes      INTEGER NOT NULL DEFAULT 0,
    open_comments   INTEGER NOT NULL DEFAULT 0,
    open_reposts    INTEGER NOT NULL DEFAULT 0,
    open_saves      INTEGER NOT NULL DEFAULT 0,
    entry_views     INTEGER NOT NULL DEFAULT 0,
    entry_likes     INTEGER NOT NULL DEFAULT 0,
    entry_comments  INTEGER NOT NULL DEFAULT 0,
    entry_reposts   INTEGER NOT NULL DEFAULT 0,
    entry_saves     INTEGER NOT NULL DEFAULT 0,
    gain_views      INTEGER NOT NULL DEFAULT 0,
    gain_likes      INTEGER NOT NULL DEFAULT 0,
    gain_comments   INTEGER NOT NULL DEFAULT 0,
    gain_reposts    INTEGER NOT NULL DEFAULT 0,
    gain_saves      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, day, platform, campaign)
) WITHOUT ROWID;

-- One-off work the store does in code right after migrating.
CREATE TABLE store_tasks (
    name TEXT PRIMARY KEY
);
INSERT INTO store_tasks (name) VALUES ('rebuild_analytics');
