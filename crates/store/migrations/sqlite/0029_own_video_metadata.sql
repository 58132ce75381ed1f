-- Each organization's own word on a video it tracks: the URL it tracked or
-- imported the video by, and the author, title and publish time it gave
-- (its URL's handle, its creator's username, or its import's columns).
-- Until now an import wrote its metadata into the shared catalog row, where
-- every other organization tracking the video saw it as the platform's. The
-- catalog now holds only what platforms and the first tracking's URL say;
-- what an organization said is kept here, and only it sees it: its record
-- shows its own URL, and the platform's author, title and publish time,
-- falling back to its own where the platform has said nothing.
ALTER TABLE tracked_videos ADD COLUMN own_url TEXT;
ALTER TABLE tracked_videos ADD COLUMN own_author TEXT;
ALTER TABLE tracked_videos ADD COLUMN own_title TEXT;
ALTER TABLE tracked_videos ADD COLUMN own_published_at TEXT;

-- The listing's creator filter finds the videos an organization attributed
-- itself (the catalog's authors have their own index, 0016).
CREATE INDEX tracked_videos_org_own_author ON tracked_videos (organization_id, lower(own_author))
    WHERE own_author IS NOT NULL;

-- A record's stamp moves when what it shows moves (0011): the new columns too.
DROP TRIGGER tracked_videos_revision;
CREATE TRIGGER tracked_videos_revision AFTER UPDATE ON tracked_videos FOR EACH ROW
WHEN OLD.organization_id IS NOT NEW.organization_id
  OR OLD.platform_video_id IS NOT NEW.platform_video_id
  OR OLD.tracking_started_at IS NOT NEW.tracking_started_at
  OR OLD.tracking_ends_at IS NOT NEW.tracking_ends_at
  OR OLD.notes IS NOT NEW.notes OR OLD.budget IS NOT NEW.budget
  OR OLD.campaign IS NOT NEW.campaign OR OLD.video_status IS NOT NEW.video_status
  OR OLD.workflow_status IS NOT NEW.workflow_status OR OLD.ecpm IS NOT NEW.ecpm
  OR OLD.created_at IS NOT NEW.created_at
  OR OLD.own_url IS NOT NEW.own_url OR OLD.own_author IS NOT NEW.own_author
  OR OLD.own_title IS NOT NEW.own_title OR OLD.own_published_at IS NOT NEW.own_published_at
BEGIN
    UPDATE tracked_videos SET revision = revision + 1 WHERE id = NEW.id;
END;
