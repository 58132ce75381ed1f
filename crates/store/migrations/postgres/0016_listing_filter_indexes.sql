-- Indexes for the listing's filters (GET /v1/videos/stats): each filter
-- reaches its rows through an index, where it used to check every tracked
-- video of the organization. Filters on the organization's tracking start
-- at the organization; filters on the catalog start at the value and join
-- back through tracked_videos_catalog.

-- `campaign`, in the listing's default order.
CREATE INDEX tracked_videos_org_campaign ON tracked_videos (organization_id, campaign, created_at, id);
-- `tracked_from` / `tracked_to`.
CREATE INDEX tracked_videos_org_started ON tracked_videos (organization_id, tracking_started_at);
-- `blogger` (compared lowercase).
CREATE INDEX platform_videos_author_key ON platform_videos (lower(author_username));
-- `published_from` / `published_to`.
CREATE INDEX platform_videos_published ON platform_videos (published_at);
-- `tag`: from a tag to its videos (the key starts at the video).
CREATE INDEX video_tags_by_tag ON video_tags (tag_id, tracked_video_id);
