-- The listing's title search and publish-day filter through indexes
-- (GET /v1/videos/stats `q`, `published_from` / `published_to`, and the
-- `published_at` sort), where they read every title and joined every
-- candidate's catalog row.

-- Titles by their trigrams (FTS5's trigram tokenizer, Unicode case folded):
-- a search of three characters or more finds the catalog videos whose title
-- holds it from the index. An external-content table: the titles stay in
-- platform_videos, and the triggers below keep the index in step with them.
CREATE VIRTUAL TABLE platform_video_titles USING fts5(
    title, content = 'platform_videos', content_rowid = 'id', tokenize = 'trigram'
);
INSERT INTO platform_video_titles (platform_video_titles) VALUES ('rebuild');

CREATE TRIGGER platform_video_titles_insert AFTER INSERT ON platform_videos
BEGIN
    INSERT INTO platform_video_titles (rowid, title) VALUES (NEW.id, NEW.title);
END;

CREATE TRIGGER platform_video_titles_delete AFTER DELETE ON platform_videos
BEGIN
    INSERT INTO platform_video_titles (platform_video_titles, rowid, title)
    VALUES ('delete', OLD.id, OLD.title);
END;

CREATE TRIGGER platform_video_titles_update AFTER UPDATE OF title ON platform_videos
WHEN OLD.title IS NOT NEW.title
BEGIN
    INSERT INTO platform_video_titles (platform_video_titles, rowid, title)
    VALUES ('delete', OLD.id, OLD.title);
    INSERT INTO platform_video_titles (rowid, title) VALUES (NEW.id, NEW.title);
END;

-- The publish time, copied onto each tracked video (as the platform is,
-- 0019) and indexed with the organization: the filter and the sort read
-- one index. Triggers keep the copy: a tracked video takes its catalog
-- row's time when it is tracked, and every tracking follows a change of it.
ALTER TABLE tracked_videos ADD COLUMN published_at TEXT;
UPDATE tracked_videos
SET published_at = (SELECT pv.published_at FROM platform_videos pv WHERE pv.id = tracked_videos.platform_video_id);
CREATE INDEX tracked_videos_org_published ON tracked_videos (organization_id, published_at, created_at, id);
DROP INDEX platform_videos_published;

CREATE TRIGGER tracked_videos_published_at_insert AFTER INSERT ON tracked_videos
WHEN NEW.published_at IS NULL
BEGIN
    UPDATE tracked_videos
    SET published_at = (SELECT pv.published_at FROM platform_videos pv WHERE pv.id = NEW.platform_video_id)
    WHERE id = NEW.id
      AND EXISTS (SELECT 1 FROM platform_videos pv
                  WHERE pv.id = NEW.platform_video_id AND pv.published_at IS NOT NULL);
END;

CREATE TRIGGER tracked_videos_published_at_update AFTER UPDATE OF published_at ON platform_videos
WHEN OLD.published_at IS NOT NEW.published_at
BEGIN
    UPDATE tracked_videos SET published_at = NEW.published_at WHERE platform_video_id = NEW.id;
END;

PRAGMA analysis_limit = 1000;
ANALYZE tracked_videos;
