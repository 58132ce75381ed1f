-- Manual refreshes (POST /v1/videos/…/refresh): when the organization last
-- asked for one of its video, so an ask within the cooldown is told to wait.
-- Not part of the record: no revision trigger watches it.
ALTER TABLE tracked_videos ADD COLUMN refresh_asked_at TIMESTAMPTZ;
