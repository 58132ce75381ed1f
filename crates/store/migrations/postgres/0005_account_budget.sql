-- Blogger management: the per-video budget of a tracked creator, which the
-- videos its backfill and discovery track from then on take (with its
-- campaign), and which tracked creator brought each video in.
ALTER TABLE tracked_accounts ADD COLUMN budget_per_video BIGINT;
ALTER TABLE tracked_videos ADD COLUMN tracked_account_id UUID REFERENCES tracked_accounts (id) ON DELETE SET NULL;
CREATE INDEX tracked_videos_account ON tracked_videos (tracked_account_id);
