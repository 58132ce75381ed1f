-- Fresh planner statistics for the tables 0016 indexed. Without them a
-- database analyzed before 0016 knows its old indexes' sizes but not the
-- new ones', and SQLite then takes a new index it believes more selective
-- (reading 100,000 rows and sorting them where the listing's own order
-- index reads 20). Analyzed together, the indexes compare fairly.
PRAGMA analysis_limit = 1000;
ANALYZE tracked_videos;
ANALYZE platform_videos;
ANALYZE video_tags;
