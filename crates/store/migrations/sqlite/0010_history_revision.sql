-- A video's history revision: moved by every write that adds or removes
-- observations of the video (store::closes::insert_observations, the
-- retention housekeeping). A reader that kept a record's rendered history
-- with the revision it had can tell, from the catalog row alone, whether
-- the readings are still those (the API's record cache).
ALTER TABLE platform_videos ADD COLUMN history_revision INTEGER NOT NULL DEFAULT 0;
