-- What an organization sees (README, "What an organization sees"): the
-- platform's readings of a video from its own tracking start on, plus the
-- readings it imported itself. Imports move out of the shared
-- `observations` into `imported_observations`, kept per organization, and
-- the daily closes become per organization: each one is built from the
-- readings that organization sees, so its first tracked day starts at its
-- own first reading and another organization's import never reaches it.
--
-- Imports made before this migration carry no importer: each is kept for
-- every organization that saw it until now (tracking started at or before
-- it). The closes are rebuilt from the readings; days whose raw readings a
-- retention already removed keep their shared close. The rollup is then
-- rebuilt from the new closes (the `store_tasks` row).

CREATE TABLE imported_observations (
    organization_id   UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform_video_id BIGINT NOT NULL REFERENCES platform_videos (id),
    captured_at       TIMESTAMPTZ NOT NULL,
    views             BIGINT,
    likes             BIGINT,
    comments          BIGINT,
    reposts           BIGINT,
    saves             BIGINT,
    PRIMARY KEY (organization_id, platform_video_id, captured_at)
);
CREATE INDEX imported_observations_captured ON imported_observations (captured_at);

INSERT INTO imported_observations
SELECT tv.organization_id, o.platform_video_id, o.captured_at,
       o.views, o.likes, o.comments, o.reposts, o.saves
FROM observations o
JOIN tracked_videos tv ON tv.platform_video_id = o.platform_video_id
                      AND tv.tracking_started_at <= o.captured_at
WHERE o.source = 'import'
ON CONFLICT DO NOTHING;
DELETE FROM observations WHERE source = 'import';

ALTER TABLE daily_closes RENAME TO daily_closes_shared;
ALTER TABLE daily_closes_shared RENAME CONSTRAINT daily_closes_pkey TO daily_closes_shared_pkey;

CREATE TABLE daily_closes (
    platform_video_id BIGINT NOT NULL REFERENCES platform_videos (id),
    organization_id   UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
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
    prev_day          DATE,
    prev_views        BIGINT,
    prev_likes        BIGINT,
    prev_comments     BIGINT,
    prev_reposts      BIGINT,
    prev_saves        BIGINT,
    PRIMARY KEY (platform_video_id, organization_id, day)
);

WITH seen AS (
    SELECT tv.organization_id AS org, o.platform_video_id AS pv, o.captured_at AS at,
           o.views, o.likes, o.comments, o.reposts, o.saves
    FROM observations o
    JOIN tracked_videos tv ON tv.platform_video_id = o.platform_video_id
                          AND o.captured_at >= tv.tracking_started_at
    UNION ALL
    SELECT organization_id, platform_video_id, captured_at, views, likes, comments, reposts, saves
    FROM imported_observations
), ranked AS (
    SELECT s.*, (s.at AT TIME ZONE 'UTC')::DATE AS day,
           row_number() OVER (PARTITION BY s.org, s.pv, (s.at AT TIME ZONE 'UTC')::DATE ORDER BY s.at) AS rf,
           row_number() OVER (PARTITION BY s.org, s.pv, (s.at AT TIME ZONE 'UTC')::DATE ORDER BY s.at DESC) AS rl
    FROM seen s
)
INSERT INTO daily_closes (platform_video_id, organization_id, day,
    first_at, first_views, first_likes, first_comments, first_reposts, first_saves,
    last_at, last_views, last_likes, last_comments, last_reposts, last_saves)
SELECT f.pv, f.org, f.day, f.at, f.views, f.likes, f.comments, f.reposts, f.saves,
       l.at, l.views, l.likes, l.comments, l.reposts, l.saves
FROM ranked f
JOIN ranked l ON l.org = f.org AND l.pv = f.pv AND l.day = f.day AND l.rl = 1
WHERE f.rf = 1;

-- Days whose readings a retention removed: the shared close, for every
-- organization whose tracking covered that day.
INSERT INTO daily_closes (platform_video_id, organization_id, day,
    first_at, first_views, first_likes, first_comments, first_reposts, first_saves,
    last_at, last_views, last_likes, last_comments, last_reposts, last_saves)
SELECT dc.platform_video_id, tv.organization_id, dc.day,
       dc.first_at, dc.first_views, dc.first_likes, dc.first_comments, dc.first_reposts, dc.first_saves,
       dc.last_at, dc.last_views, dc.last_likes, dc.last_comments, dc.last_reposts, dc.last_saves
FROM daily_closes_shared dc
JOIN tracked_videos tv ON tv.platform_video_id = dc.platform_video_id
                      AND dc.day >= (tv.tracking_started_at AT TIME ZONE 'UTC')::DATE
WHERE NOT EXISTS (SELECT 1 FROM observations o WHERE o.platform_video_id = dc.platform_video_id
                    AND o.captured_at BETWEEN dc.first_at AND dc.last_at)
  AND NOT EXISTS (SELECT 1 FROM imported_observations o WHERE o.platform_video_id = dc.platform_video_id
                    AND o.captured_at BETWEEN dc.first_at AND dc.last_at)
ON CONFLICT DO NOTHING;

DROP TABLE daily_closes_shared;

INSERT INTO store_tasks (name) VALUES ('rebuild_analytics') ON CONFLICT DO NOTHING;
