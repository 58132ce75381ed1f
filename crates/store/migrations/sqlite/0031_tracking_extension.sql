-- Tracking as long as the campaign runs (issue 37).
--
-- * tracked_videos.window_ends_at: the end of the tracking window the
--   video got when tracked (its start plus the schedule's window), which a
--   campaign running longer extends `tracking_ends_at` past and to which it
--   comes back when the campaign ends sooner or the video leaves it.
--   Existing rows: their end is that window's end.
-- * platform_videos.next_refresh_at: video records now show it, so the
--   revision trigger watches it too (migration 0011).
-- * usage_daily.scheduled_reads / reads_skipped: per organization and UTC
--   day, the scheduled reads of videos it tracked and the reads the daily
--   read cap skipped; counted while an operator sets the cap.
ALTER TABLE tracked_videos ADD COLUMN window_ends_at TEXT;
UPDATE tracked_videos SET window_ends_at = tracking_ends_at;

DROP TRIGGER platform_videos_revision;
CREATE TRIGGER platform_videos_revision AFTER UPDATE ON platform_videos FOR EACH ROW
WHEN OLD.platform IS NOT NEW.platform OR OLD.external_id IS NOT NEW.external_id
  OR OLD.url IS NOT NEW.url OR OLD.title IS NOT NEW.title
  OR OLD.thumbnail_url IS NOT NEW.thumbnail_url
  OR OLD.author_username IS NOT NEW.author_username
  OR OLD.published_at IS NOT NEW.published_at OR OLD.failures IS NOT NEW.failures
  OR OLD.gone_at IS NOT NEW.gone_at OR OLD.next_refresh_at IS NOT NEW.next_refresh_at
BEGIN
    UPDATE platform_videos SET revision = revision + 1 WHERE id = NEW.id;
END;

ALTER TABLE usage_daily ADD COLUMN scheduled_reads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_daily ADD COLUMN reads_skipped INTEGER NOT NULL DEFAULT 0;
