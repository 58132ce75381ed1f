-- The video listing's default order (newest first, id as the tie-break)
-- read from an index instead of sorting every tracked video of the
-- organization.
CREATE INDEX tracked_videos_org_created_id ON tracked_videos (organization_id, created_at, id);
