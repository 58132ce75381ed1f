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
ALTER TABLE tracked_videos ADD COLUMN own_published_at TIMESTAMPTZ;

-- The listing's creator filter finds the videos an organization attributed
-- itself (the catalog's authors have their own index, 0016).
CREATE INDEX tracked_videos_org_own_author ON tracked_videos (organization_id, lower(own_author))
    WHERE own_author IS NOT NULL;

-- A record's stamp moves when what it shows moves (0011): the new columns too.
DROP TRIGGER tracked_videos_revision ON tracked_videos;
CREATE TRIGGER tracked_videos_revision BEFORE UPDATE ON tracked_videos FOR EACH ROW
WHEN ((OLD.organization_id, OLD.platform_video_id, OLD.tracking_started_at,
       OLD.tracking_ends_at, OLD.notes, OLD.budget, OLD.campaign, OLD.video_status,
       OLD.workflow_status, OLD.ecpm, OLD.created_at,
       OLD.own_url, OLD.own_author, OLD.own_title, OLD.own_published_at)
      IS DISTINCT FROM
      (NEW.organization_id, NEW.platform_video_id, NEW.tracking_started_at,
       NEW.tracking_ends_at, NEW.notes, NEW.budget, NEW.campaign, NEW.video_status,
       NEW.workflow_status, NEW.ecpm, NEW.created_at,
       NEW.own_url, NEW.own_author, NEW.own_title, NEW.own_published_at))
EXECUTE FUNCTION vidpulse_next_revision();
