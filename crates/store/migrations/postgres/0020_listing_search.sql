-- The listing's title search and publish-day filter through indexes
-- (GET /v1/videos/stats `q`, `published_from` / `published_to`, and the
-- `published_at` sort), where they read every title and joined every
-- candidate's catalog row.

-- Titles by their trigrams (pg_trgm, a trusted extension shipped with
-- PostgreSQL's contrib modules): `lower(title) LIKE '%text%'` finds its
-- catalog videos from the index.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX platform_videos_title_trigrams ON platform_videos USING gin (lower(title) gin_trgm_ops);

-- The publish time, copied onto each tracked video (as the platform is,
-- 0019) and indexed with the organization: the filter and the sort read
-- one index. Triggers keep the copy: a tracked video takes its catalog
-- row's time when it is tracked, and every tracking follows a change of it.
ALTER TABLE tracked_videos ADD COLUMN published_at TIMESTAMPTZ;
UPDATE tracked_videos tv SET published_at = pv.published_at
FROM platform_videos pv WHERE pv.id = tv.platform_video_id AND pv.published_at IS NOT NULL;
CREATE INDEX tracked_videos_org_published
    ON tracked_videos (organization_id, published_at DESC NULLS LAST, id DESC) INCLUDE (created_at);
DROP INDEX platform_videos_published;

CREATE FUNCTION tracked_videos_published_at_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.published_at := (SELECT pv.published_at FROM platform_videos pv WHERE pv.id = NEW.platform_video_id);
    RETURN NEW;
END $$;

CREATE TRIGGER tracked_videos_published_at_insert BEFORE INSERT ON tracked_videos
    FOR EACH ROW EXECUTE FUNCTION tracked_videos_published_at_insert();

CREATE FUNCTION tracked_videos_published_at_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tracked_videos SET published_at = NEW.published_at WHERE platform_video_id = NEW.id;
    RETURN NULL;
END $$;

CREATE TRIGGER tracked_videos_published_at_update AFTER UPDATE OF published_at ON platform_videos
    FOR EACH ROW WHEN (OLD.published_at IS DISTINCT FROM NEW.published_at)
    EXECUTE FUNCTION tracked_videos_published_at_update();

ANALYZE tracked_videos, platform_videos;
