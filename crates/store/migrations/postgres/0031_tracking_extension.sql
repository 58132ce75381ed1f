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
ALTER TABLE tracked_videos ADD COLUMN window_ends_at TIMESTAMPTZ;
UPDATE tracked_videos SET window_ends_at = tracking_ends_at;

DROP TRIGGER platform_videos_revision ON platform_videos;
CREATE TRIGGER platform_videos_revision BEFORE UPDATE ON platform_videos FOR EACH ROW
WHEN ((OLD.platform, OLD.external_id, OLD.url, OLD.title, OLD.thumbnail_url,
       OLD.author_username, OLD.published_at, OLD.failures, OLD.gone_at, OLD.next_refresh_at)
      IS DISTINCT FROM
      (NEW.platform, NEW.external_id, NEW.url, NEW.title, NEW.thumbnail_url,
       NEW.author_username, NEW.published_at, NEW.failures, NEW.gone_at, NEW.next_refresh_at))
EXECUTE FUNCTION vidpulse_next_revision();

ALTER TABLE usage_daily ADD COLUMN scheduled_reads BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_daily ADD COLUMN reads_skipped BIGINT NOT NULL DEFAULT 0;
