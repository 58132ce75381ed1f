-- The platform of a tracked video, beside the organization: a catalog
-- video never changes platform, and with it here the listing's `platform`
-- filter reads one index (page and count) where it joined every tracked
-- video to its catalog row.
ALTER TABLE tracked_videos ADD COLUMN platform TEXT;
UPDATE tracked_videos tv SET platform = pv.platform
FROM platform_videos pv WHERE pv.id = tv.platform_video_id;
ALTER TABLE tracked_videos ALTER COLUMN platform SET NOT NULL;
CREATE INDEX tracked_videos_org_platform ON tracked_videos (organization_id, platform, created_at, id);
ANALYZE tracked_videos;
