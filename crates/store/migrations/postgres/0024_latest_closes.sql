-- Each tracked video's latest visible close: the close of its last day
-- within the organization's tracking window (the day and its last
-- counters), kept by every write that settles the rollup
-- (rollup::settle_latest, for the videos in its scope). A gain over a
-- window that holds this day reads its end from here instead of seeking
-- it in `daily_closes`, which at 100,000 videos was most of the videos'
-- leaderboard. A tracked video without a visible close has no row. Keyed
-- like daily_closes, catalog video first: a write settles every
-- organization's rows of the videos it touched.
CREATE TABLE latest_closes (
    organization_id   UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform_video_id BIGINT NOT NULL REFERENCES platform_videos (id),
    day               DATE NOT NULL,
    last_views        BIGINT,
    last_likes        BIGINT,
    last_comments     BIGINT,
    last_reposts      BIGINT,
    last_saves        BIGINT,
    PRIMARY KEY (platform_video_id, organization_id)
);

INSERT INTO latest_closes (organization_id, platform_video_id, day,
                           last_views, last_likes, last_comments, last_reposts, last_saves)
SELECT c.organization_id, c.platform_video_id, c.day,
       c.last_views, c.last_likes, c.last_comments, c.last_reposts, c.last_saves
FROM tracked_videos tv
JOIN daily_closes c ON c.platform_video_id = tv.platform_video_id
                   AND c.organization_id = tv.organization_id
                   AND c.day = (SELECT m.day FROM daily_closes m
                                WHERE m.platform_video_id = tv.platform_video_id
                                  AND m.organization_id = tv.organization_id
                                  AND m.day >= (tv.tracking_started_at AT TIME ZONE 'UTC')::date
                                  AND m.day <= (tv.tracking_ends_at AT TIME ZONE 'UTC')::date
                                ORDER BY m.day DESC LIMIT 1);

ANALYZE latest_closes;
