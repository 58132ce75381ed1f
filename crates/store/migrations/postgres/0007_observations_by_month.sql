-- Observations partitioned by month (of `captured_at`, UTC), so old months
-- can be dropped whole when a retention is set (VIDPULSE_OBSERVATION_RETENTION_DAYS)
-- and each month's index stays small. Partitions run from the month of the
-- oldest observation to three months ahead; the workers' housekeeping keeps
-- three months ahead. Rows outside every partition land in the default one.

ALTER TABLE observations RENAME TO observations_unpartitioned;
ALTER TABLE observations_unpartitioned RENAME CONSTRAINT observations_pkey TO observations_unpartitioned_pkey;

CREATE TABLE observations (
    platform_video_id BIGINT NOT NULL REFERENCES platform_videos (id),
    captured_at       TIMESTAMPTZ NOT NULL,
    views             BIGINT,
    likes             BIGINT,
    comments          BIGINT,
    reposts           BIGINT,
    saves             BIGINT,
    source            TEXT NOT NULL,
    PRIMARY KEY (platform_video_id, captured_at)
) PARTITION BY RANGE (captured_at);

CREATE TABLE observations_default PARTITION OF observations DEFAULT;

DO $$
DECLARE
    m date := date_trunc('month', coalesce(
        (SELECT min(captured_at) FROM observations_unpartitioned), now()) AT TIME ZONE 'UTC')::date;
    last_month date := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months')::date;
BEGIN
    WHILE m <= last_month LOOP
        EXECUTE format(
            'CREATE TABLE %I PARTITION OF observations FOR VALUES FROM (%L) TO (%L)',
            'observations_p' || to_char(m, 'YYYY_MM'),
            m::timestamp AT TIME ZONE 'UTC',
            (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
        m := (m + interval '1 month')::date;
    END LOOP;
END $$;

INSERT INTO observations SELECT * FROM observations_unpartitioned;
DROP TABLE observations_unpartitioned;
