-- Follower history of catalog creators: one row per creator per UTC day,
-- the last follower count read that day (a later read the same day
-- replaces it). Written with every profile read that has a count: a
-- creator job, a daily discovery, a dashboard add.

CREATE TABLE creator_follower_days (
    creator_id     BLOB NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
    day            TEXT NOT NULL,
    follower_count INTEGER NOT NULL,
    read_at        TEXT NOT NULL,
    PRIMARY KEY (creator_id, day)
);
