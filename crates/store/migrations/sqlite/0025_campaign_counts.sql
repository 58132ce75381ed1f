-- How many videos each campaign of an organization holds, kept by triggers
-- on tracked_videos: the listing filtered by a campaign alone (a
-- dashboard's campaign page) reads its total here instead of counting the
-- campaign's index entries on every request. A campaign's row stays at 0
-- when its last video leaves it.
CREATE TABLE campaign_counts (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    campaign        TEXT NOT NULL,
    videos          INTEGER NOT NULL,
    PRIMARY KEY (organization_id, campaign)
) WITHOUT ROWID;

INSERT INTO campaign_counts (organization_id, campaign, videos)
SELECT organization_id, campaign, count(*)
FROM tracked_videos
WHERE campaign IS NOT NULL
GROUP BY 1, 2;

CREATE TRIGGER campaign_counts_add AFTER INSERT ON tracked_videos
WHEN NEW.campaign IS NOT NULL
BEGIN
    INSERT INTO campaign_counts (organization_id, campaign, videos)
    VALUES (NEW.organization_id, NEW.campaign, 1)
    ON CONFLICT (organization_id, campaign) DO UPDATE SET videos = videos + 1;
END;

-- An organization being deleted may have lost its counts already (the
-- cascade): then the update finds nothing.
CREATE TRIGGER campaign_counts_remove AFTER DELETE ON tracked_videos
WHEN OLD.campaign IS NOT NULL
BEGIN
    UPDATE campaign_counts SET videos = videos - 1
    WHERE organization_id = OLD.organization_id AND campaign = OLD.campaign;
END;

-- A video moved between campaigns (a patch, a bulk edit).
CREATE TRIGGER campaign_counts_move AFTER UPDATE OF organization_id, campaign ON tracked_videos
WHEN OLD.organization_id IS NOT NEW.organization_id OR OLD.campaign IS NOT NEW.campaign
BEGIN
    UPDATE campaign_counts SET videos = videos - 1
    WHERE organization_id = OLD.organization_id AND campaign = OLD.campaign;
    INSERT INTO campaign_counts (organization_id, campaign, videos)
    SELECT NEW.organization_id, NEW.campaign, 1 WHERE NEW.campaign IS NOT NULL
    ON CONFLICT (organization_id, campaign) DO UPDATE SET videos = videos + 1;
END;
