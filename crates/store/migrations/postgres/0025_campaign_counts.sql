-- How many videos each campaign of an organization holds, kept by triggers
-- on tracked_videos: the listing filtered by a campaign alone (a
-- dashboard's campaign page) reads its total here instead of counting the
-- campaign's index entries on every request. A campaign's row stays at 0
-- when its last video leaves it.
CREATE TABLE campaign_counts (
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    campaign        TEXT NOT NULL,
    videos          BIGINT NOT NULL,
    PRIMARY KEY (organization_id, campaign)
);

INSERT INTO campaign_counts (organization_id, campaign, videos)
SELECT organization_id, campaign, count(*)
FROM tracked_videos
WHERE campaign IS NOT NULL
GROUP BY 1, 2;

-- Statement-level triggers, as for tracked_video_ends (0009): each reads
-- its statement's rows once and touches each (organization, campaign) once,
-- in key order, so two statements cannot deadlock on the counts.
CREATE FUNCTION campaign_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO campaign_counts AS e (organization_id, campaign, videos)
    SELECT organization_id, campaign, count(*)
    FROM added
    WHERE campaign IS NOT NULL
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (organization_id, campaign) DO UPDATE SET videos = e.videos + excluded.videos;
    RETURN NULL;
END $$;

CREATE FUNCTION campaign_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- An organization being deleted may have lost its counts already (the
    -- cascade): then there is nothing to update.
    PERFORM 1 FROM campaign_counts e
    WHERE (e.organization_id, e.campaign) IN (
        SELECT organization_id, campaign FROM removed WHERE campaign IS NOT NULL)
    ORDER BY e.organization_id, e.campaign
    FOR UPDATE;
    UPDATE campaign_counts e SET videos = e.videos - r.videos
    FROM (SELECT organization_id, campaign, count(*) AS videos
          FROM removed
          WHERE campaign IS NOT NULL
          GROUP BY 1, 2) r
    WHERE e.organization_id = r.organization_id AND e.campaign = r.campaign;
    RETURN NULL;
END $$;

-- A video moved between campaigns (a patch, a bulk edit): the old
-- campaign loses it, the new one gains it, in one upsert in key order.
CREATE FUNCTION campaign_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO campaign_counts AS e (organization_id, campaign, videos)
    SELECT organization_id, campaign, sum(delta)
    FROM (SELECT a.organization_id, a.campaign, 1 AS delta
          FROM added a JOIN removed r ON r.id = a.id
          WHERE a.campaign IS NOT NULL
            AND (r.campaign IS DISTINCT FROM a.campaign OR r.organization_id <> a.organization_id)
          UNION ALL
          SELECT r.organization_id, r.campaign, -1
          FROM removed r JOIN added a ON a.id = r.id
          WHERE r.campaign IS NOT NULL
            AND (r.campaign IS DISTINCT FROM a.campaign OR r.organization_id <> a.organization_id)
         ) d
    GROUP BY 1, 2
    HAVING sum(delta) <> 0
    ORDER BY 1, 2
    ON CONFLICT (organization_id, campaign) DO UPDATE SET videos = e.videos + excluded.videos;
    RETURN NULL;
END $$;

CREATE TRIGGER campaign_counts_add AFTER INSERT ON tracked_videos
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION campaign_counts_add();

CREATE TRIGGER campaign_counts_remove AFTER DELETE ON tracked_videos
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION campaign_counts_remove();

CREATE TRIGGER campaign_counts_move AFTER UPDATE ON tracked_videos
    REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION campaign_counts_move();
