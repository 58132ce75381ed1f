-- PostgreSQL partitions observations by month (its migration 0007); here the
-- same retention (VIDPULSE_OBSERVATION_RETENTION_DAYS) deletes old rows by
-- time, which this index makes a range scan.
CREATE INDEX observations_captured ON observations (captured_at);
