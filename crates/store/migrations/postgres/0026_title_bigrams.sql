-- The listing's title search of two characters through an index
-- (GET /v1/videos/stats `q`), where it compared every title: pg_trgm's
-- index (0020) finds no trigram in so short a text and reads itself whole.
-- Each catalog title's distinct two-character substrings, lowercased, in
-- a GIN index over the array of them: a search of two characters reads
-- its videos from the index. (A single character is in most titles: its
-- search reads them all, as its count must.)
CREATE FUNCTION title_bigrams(title text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT substr(lower(title), i, 2)), '{}')
    FROM generate_series(1, length(title) - 1) AS i
$$;

CREATE INDEX platform_videos_title_bigrams ON platform_videos USING gin (title_bigrams(title));

ANALYZE platform_videos;
