-- Blogger management: creator profiles group an organization's tracked
-- accounts (one person on several platforms); account tags are the tags a
-- tracked creator's videos carry, its future videos included.

CREATE TABLE creator_profiles (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX creator_profiles_org ON creator_profiles (organization_id);

ALTER TABLE tracked_accounts ADD COLUMN creator_profile_id BLOB REFERENCES creator_profiles (id) ON DELETE SET NULL;
CREATE INDEX tracked_accounts_profile ON tracked_accounts (creator_profile_id);

CREATE TABLE account_tags (
    tracked_account_id BLOB NOT NULL REFERENCES tracked_accounts (id) ON DELETE CASCADE,
    tag_id             BLOB NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (tracked_account_id, tag_id)
) WITHOUT ROWID;
