-- The listing's title search of two characters through an index
-- (GET /v1/videos/stats `q`), where it compared every title: no trigram
-- (0020) holds so short a text. Each catalog title's distinct
-- two-character substrings, lowercased as SQLite's lower() does (ASCII
-- case, as the search compares), kept by the triggers below; a search of
-- two characters reads its videos by key. (A single character is in most
-- titles: its search reads them all, as its count must.)
CREATE TABLE title_bigrams (
    bigram            TEXT NOT NULL,
    platform_video_id INTEGER NOT NULL,
    PRIMARY KEY (bigram, platform_video_id)
) WITHOUT ROWID;

-- A title's positions, 0 to its length - 1, as the keys of a JSON array
-- of that many zeros (json_each: triggers cannot hold a recursive WITH).
INSERT OR IGNORE INTO title_bigrams (bigram, platform_video_id)
SELECT substr(lower(pv.title), p.key + 1, 2), pv.id
FROM platform_videos pv,
     json_each('[' || rtrim(replace(hex(zeroblob(length(pv.title))), '00', '0,'), ',') || ']') p
WHERE pv.title IS NOT NULL AND p.key + 2 <= length(pv.title);

CREATE TRIGGER title_bigrams_insert AFTER INSERT ON platform_videos
WHEN NEW.title IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO title_bigrams (bigram, platform_video_id)
    SELECT substr(lower(NEW.title), p.key + 1, 2), NEW.id
    FROM json_each('[' || rtrim(replace(hex(zeroblob(length(NEW.title))), '00', '0,'), ',') || ']') p
    WHERE p.key + 2 <= length(NEW.title);
END;

CREATE TRIGGER title_bigrams_delete AFTER DELETE ON platform_videos
WHEN OLD.title IS NOT NULL
BEGIN
    DELETE FROM title_bigrams
    WHERE platform_video_id = OLD.id
      AND bigram IN (
          SELECT substr(lower(OLD.title), p.key + 1, 2)
          FROM json_each('[' || rtrim(replace(hex(zeroblob(length(OLD.title))), '00', '0,'), ',') || ']') p
          WHERE p.key + 2 <= length(OLD.title));
END;

CREATE TRIGGER title_bigrams_update AFTER UPDATE OF title ON platform_videos
WHEN OLD.title IS NOT NEW.title
BEGIN
    DELETE FROM title_bigrams
    WHERE platform_video_id = OLD.id
      AND bigram IN (
          SELECT substr(lower(OLD.title), p.key + 1, 2)
          FROM json_each('[' || rtrim(replace(hex(zeroblob(length(OLD.title))), '00', '0,'), ',') || ']') p
          WHERE OLD.title IS NOT NULL AND p.key + 2 <= length(OLD.title));
    INSERT OR IGNORE INTO title_bigrams (bigram, platform_video_id)
    SELECT substr(lower(NEW.title), p.key + 1, 2), NEW.id
    FROM json_each('[' || rtrim(replace(hex(zeroblob(length(NEW.title))), '00', '0,'), ',') || ']') p
    WHERE NEW.title IS NOT NULL AND p.key + 2 <= length(NEW.title);
END;

-- A title search's matches (from either index) are catalog videos: each
-- is found among the organization's tracked videos by this index, which
-- also holds the listing's default order, so the page of a search sorts
-- its matches without reading their rows (the unique (organization_id,
-- platform_video_id) index holds neither).
CREATE INDEX tracked_videos_org_catalog_created
    ON tracked_videos (organization_id, platform_video_id, created_at, id);

PRAGMA analysis_limit = 1000;
ANALYZE tracked_videos;
