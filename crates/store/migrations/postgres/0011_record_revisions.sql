-- Record revisions: a tracked video's record (what the single video reads
-- answer) is its `tracked_videos` row, its catalog row, its tags and its
-- readings. Each of the two rows now carries a revision moved by every
-- change of what the record shows, so a reader that kept a record with the
-- two revisions it had can tell, from two small columns, whether it is
-- still the one the database holds (the API's record cache).
--
-- * platform_videos.revision (was history_revision): moved by the writes
--   that add or remove readings (store::closes, the retention housekeeping)
--   and, by the trigger below, by a change of a column the record shows.
-- * tracked_videos.revision: moved by a change of a column the record shows
--   and by its tags being attached, detached or renamed.
--
-- Triggers, not the writers, move them for the columns, so no write path
-- (present or future) can change a record and leave its revision behind.
ALTER TABLE platform_videos RENAME COLUMN history_revision TO revision;
ALTER TABLE tracked_videos ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION vidpulse_next_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.revision := OLD.revision + 1;
    RETURN NEW;
END
$$;

CREATE TRIGGER platform_videos_revision BEFORE UPDATE ON platform_videos FOR EACH ROW
WHEN ((OLD.platform, OLD.external_id, OLD.url, OLD.title, OLD.thumbnail_url,
       OLD.author_username, OLD.published_at, OLD.failures, OLD.gone_at)
      IS DISTINCT FROM
      (NEW.platform, NEW.external_id, NEW.url, NEW.title, NEW.thumbnail_url,
       NEW.author_username, NEW.published_at, NEW.failures, NEW.gone_at))
EXECUTE FUNCTION vidpulse_next_revision();

CREATE TRIGGER tracked_videos_revision BEFORE UPDATE ON tracked_videos FOR EACH ROW
WHEN ((OLD.organization_id, OLD.platform_video_id, OLD.tracking_started_at,
       OLD.tracking_ends_at, OLD.notes, OLD.budget, OLD.campaign, OLD.video_status,
       OLD.workflow_status, OLD.ecpm, OLD.created_at)
      IS DISTINCT FROM
      (NEW.organization_id, NEW.platform_video_id, NEW.tracking_started_at,
       NEW.tracking_ends_at, NEW.notes, NEW.budget, NEW.campaign, NEW.video_status,
       NEW.workflow_status, NEW.ecpm, NEW.created_at))
EXECUTE FUNCTION vidpulse_next_revision();

-- A tag attached, detached or moved: the tracked videos it leaves or joins.
CREATE FUNCTION vidpulse_video_tags_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE tracked_videos SET revision = revision + 1 WHERE id = OLD.tracked_video_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE tracked_videos SET revision = revision + 1 WHERE id = NEW.tracked_video_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER video_tags_revision AFTER INSERT OR UPDATE OR DELETE ON video_tags
FOR EACH ROW EXECUTE FUNCTION vidpulse_video_tags_moved();

-- A tag renamed: every tracked video carrying it.
CREATE FUNCTION vidpulse_tag_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tracked_videos SET revision = revision + 1
     WHERE id IN (SELECT tracked_video_id FROM video_tags WHERE tag_id = NEW.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER tags_revision AFTER UPDATE OF name ON tags FOR EACH ROW
WHEN (OLD.name IS DISTINCT FROM NEW.name)
EXECUTE FUNCTION vidpulse_tag_renamed();
