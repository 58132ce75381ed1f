-- The follower history starts with what the catalog knew before it
-- existed: each creator's last read count, on the day it was read (so
-- creators tracked before 0015 have a first day to measure gains from).
INSERT INTO creator_follower_days (creator_id, day, follower_count, read_at)
SELECT id, (last_fetched_at AT TIME ZONE 'UTC')::DATE, follower_count, last_fetched_at
FROM creators
WHERE follower_count IS NOT NULL
ON CONFLICT (creator_id, day) DO NOTHING;
