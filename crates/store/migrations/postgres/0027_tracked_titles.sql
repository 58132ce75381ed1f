-- The listing's title search on PostgreSQL from the organization's own
-- index (GET /v1/videos/stats `q`). The trigram and bigram indexes of
-- 0020 and 0026 are on the catalog's titles: a search found its catalog
-- videos there, read each one's row to test its title, then probed the
-- organization's tracked videos for it, about 3.5 µs a match, so a word in
-- 3,000 titles spent 10 ms and more on its exact count alone.
--
-- Each tracked video now carries its catalog title (as it carries the
-- platform, 0019, and the publish time, 0020), and the two indexes are
-- over the organization and the title together (btree_gin, a trusted
-- extension shipped with PostgreSQL's contrib modules, as pg_trgm is, lets
-- a GIN index hold the organization beside the title's grams): a search
-- reads its organization's matches from one index and tests each one's
-- title on its own row.
CREATE EXTENSION IF NOT EXISTS btree_gin;

ALTER TABLE tracked_videos ADD COLUMN title TEXT;
UPDATE tracked_videos tv SET title = pv.title
FROM platform_videos pv WHERE pv.id = tv.platform_video_id AND pv.title IS NOT NULL;

CREATE INDEX tracked_videos_org_title_trigrams
    ON tracked_videos USING gin (organization_id, lower(title) gin_trgm_ops);
CREATE INDEX tracked_videos_org_title_bigrams
    ON tracked_videos USING gin (organization_id, title_bigrams(title));
DROP INDEX platform_videos_title_trigrams;
DROP INDEX platform_videos_title_bigrams;

-- Triggers keep the copies, the title as the publish time: a tracked
-- video takes its catalog row's title and time when it is tracked, and
-- every tracking follows a change of either (0020's two triggers, for the
-- time alone, give way to these).
DROP TRIGGER tracked_videos_published_at_insert ON tracked_videos;
DROP FUNCTION tracked_videos_published_at_insert();
DROP TRIGGER tracked_videos_published_at_update ON platform_videos;
DROP FUNCTION tracked_videos_published_at_update();

CREATE FUNCTION tracked_videos_catalog_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT pv.published_at, pv.title INTO NEW.published_at, NEW.title
    FROM platform_videos pv WHERE pv.id = NEW.platform_video_id;
    RETURN NEW;
END $$;

CREATE TRIGGER tracked_videos_catalog_copy BEFORE INSERT ON tracked_videos
    FOR EACH ROW EXECUTE FUNCTION tracked_videos_catalog_copy();

CREATE FUNCTION tracked_videos_catalog_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tracked_videos SET published_at = NEW.published_at, title = NEW.title
    WHERE platform_video_id = NEW.id;
    RETURN NULL;
END $$;

CREATE TRIGGER tracked_videos_catalog_follow AFTER UPDATE OF published_at, title ON platform_videos
    FOR EACH ROW
    WHEN (OLD.published_at IS DISTINCT FROM NEW.published_at OR OLD.title IS DISTINCT FROM NEW.title)
    EXECUTE FUNCTION tracked_videos_catalog_follow();

ANALYZE tracked_videos;
