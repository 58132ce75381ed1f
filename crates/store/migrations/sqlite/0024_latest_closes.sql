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
    organization_id   BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform_video_id INTEGER NOT NULL REFERENCES platform_videos (id),
    day               TEXT NOT NULL,
    last_views        INTEGER,
    last_likes        INTEGER,
    last_comments     INTEGER,
    last_reposts      INTEGER,
    last_saves        INTEGER,
    PRIMARY KEY (platform_video_id, organization_id)
) WITHOUT ROWID;

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
                                  AND m.day >= substr(tv.tracking_started_at, 1, 10)
                                  AND m.day <= substr(tv.tracking_ends_at, 1, 10)
                                ORDER BY m.day DESC LIMIT 1);
