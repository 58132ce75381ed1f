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
-- (A trigger's own UPDATE does not fire triggers again: SQLite's
-- recursive_triggers is off, and it changes no column they watch.)
ALTER TABLE platform_videos RENAME COLUMN history_revision TO revision;
ALTER TABLE tracked_videos ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER platform_videos_revision AFTER UPDATE ON platform_videos FOR EACH ROW
WHEN OLD.platform IS NOT NEW.platform OR OLD.external_id IS NOT NEW.external_id
  OR OLD.url IS NOT NEW.url OR OLD.title IS NOT NEW.title
  OR OLD.thumbnail_url IS NOT NEW.thumbnail_url
  OR OLD.author_username IS NOT NEW.author_username
  OR OLD.published_at IS NOT NEW.published_at OR OLD.failures IS NOT NEW.failures
  OR OLD.gone_at IS NOT NEW.gone_at
BEGIN
    UPDATE platform_videos SET revision = revision + 1 WHERE id = NEW.id;
END;

CREATE TRIGGER tracked_videos_revision AFTER UPDATE ON tracked_videos FOR EACH ROW
WHEN OLD.organization_id IS NOT NEW.organization_id
  OR OLD.platform_video_id IS NOT NEW.platform_video_id
  OR OLD.tracking_started_at IS NOT NEW.tracking_started_at
  OR OLD.tracking_ends_at IS NOT NEW.tracking_ends_at
  OR OLD.notes IS NOT NEW.notes OR OLD.budget IS NOT NEW.budget
  OR OLD.campaign IS NOT NEW.campaign OR OLD.video_status IS NOT NEW.video_status
  OR OLD.workflow_status IS NOT NEW.workflow_status OR OLD.ecpm IS NOT NEW.ecpm
  OR OLD.created_at IS NOT NEW.created_at
BEGIN
    UPDATE tracked_videos SET revision = revision + 1 WHERE id = NEW.id;
END;

-- A tag attached, detached or moved: the tracked videos it leaves or joins.
CREATE TRIGGER video_tags_revision_insert AFTER INSERT ON video_tags FOR EACH ROW
BEGIN
    UPDATE tracked_videos SET revision = revision + 1 WHERE id = NEW.tracked_video_id;
END;

CREATE TRIGGER video_tags_revision_delete AFTER DELETE ON video_tags FOR EACH ROW
BEGIN
    UPDATE tracked_videos SET revision = revision + 1 WHERE id = OLD.tracked_video_id;
END;

CREATE TRIGGER video_tags_revision_update AFTER UPDATE ON video_tags FOR EACH ROW
BEGIN
    UPDATE tracked_videos SET revision = revision + 1
     WHERE id IN (OLD.tracked_video_id, NEW.tracked_video_id);
END;

-- A tag renamed: every tracked video carrying it.
CREATE TRIGGER tags_revision AFTER UPDATE OF name ON tags FOR EACH ROW
WHEN OLD.name IS NOT NEW.name
BEGIN
    UPDATE tracked_videos SET revision = revision + 1
     WHERE id IN (SELECT tracked_video_id FROM video_tags WHERE tag_id = NEW.id);
END;
