-- The tracked-video quota counts the organization's videos still in their
-- tracking window. These counts, kept by triggers on tracked_videos, group
-- an organization's videos by the UTC day their window ends: the check sums
-- the days after today and counts only today's videos row by row, instead
-- of every video still in its window. Timestamps are stored as RFC 3339 in
-- UTC, so a day is the first ten characters.
CREATE TABLE tracked_video_ends (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    end_day         TEXT NOT NULL,
    videos          INTEGER NOT NULL,
    PRIMARY KEY (organization_id, end_day)
) WITHOUT ROWID;

INSERT INTO tracked_video_ends (organization_id, end_day, videos)
SELECT organization_id, substr(tracking_ends_at, 1, 10), count(*)
FROM tracked_videos
GROUP BY 1, 2;

CREATE TRIGGER tracked_video_ends_add AFTER INSERT ON tracked_videos
BEGIN
    INSERT INTO tracked_video_ends (organization_id, end_day, videos)
    VALUES (NEW.organization_id, substr(NEW.tracking_ends_at, 1, 10), 1)
    ON CONFLICT (organization_id, end_day) DO UPDATE SET videos = videos + 1;
END;

-- An organization being deleted may have lost its counts already (the
-- cascade): then the update finds nothing.
CREATE TRIGGER tracked_video_ends_remove AFTER DELETE ON tracked_videos
BEGIN
    UPDATE tracked_video_ends SET videos = videos - 1
    WHERE organization_id = OLD.organization_id
      AND end_day = substr(OLD.tracking_ends_at, 1, 10);
END;

-- No write path moves a video to another organization or changes its
-- window's end; should one ever, the counts follow it.
CREATE TRIGGER tracked_video_ends_move
    AFTER UPDATE OF organization_id, tracking_ends_at ON tracked_videos
    WHEN OLD.organization_id IS NOT NEW.organization_id
      OR substr(OLD.tracking_ends_at, 1, 10) IS NOT substr(NEW.tracking_ends_at, 1, 10)
BEGIN
    UPDATE tracked_video_ends SET videos = videos - 1
    WHERE organization_id = OLD.organization_id
      AND end_day = substr(OLD.tracking_ends_at, 1, 10);
    INSERT INTO tracked_video_ends (organization_id, end_day, videos)
    VALUES (NEW.organization_id, substr(NEW.tracking_ends_at, 1, 10), 1)
    ON CONFLICT (organization_id, end_day) DO UPDATE SET videos = videos + 1;
END;
