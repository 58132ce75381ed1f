-- The platform of a tracked video, beside the organization: a catalog
-- video never changes platform, and with it here the listing's `platform`
-- filter reads one index (page and count) where it joined every tracked
-- video to its catalog row.
ALTER TABLE tracked_videos ADD COLUMN platform TEXT NOT NULL DEFAULT '';
UPDATE tracked_videos
SET platform = (SELECT pv.platform FROM platform_videos pv WHERE pv.id = tracked_videos.platform_video_id);
CREATE INDEX tracked_videos_org_platform ON tracked_videos (organization_id, platform, created_at, id);
PRAGMA analysis_limit = 1000;
ANALYZE tracked_videos;
