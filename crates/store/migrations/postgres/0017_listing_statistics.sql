-- Fresh planner statistics for the tables 0016 indexed (among them the
-- expression lower(author_username), which has none until analyzed).
ANALYZE tracked_videos, platform_videos, video_tags;
