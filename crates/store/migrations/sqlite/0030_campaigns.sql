-- Campaigns as objects (issue 37). Until now a campaign was only the text
-- `tracked_videos.campaign` (and `tracked_accounts.campaign`, which a
-- creator's new videos get). A campaign is now a row of its organization,
-- unique by its name in any letter case (`name_lower`, computed by the
-- store), with its client, dates, budget, currency, target and notes.
-- Videos and creators still carry the campaign's name: the store keeps
-- every such name equal to a campaign's `name` (attaching by name creates
-- the campaign when absent; renaming or deleting a campaign rewrites them),
-- so the analytics rollup keeps grouping by it.
CREATE TABLE campaigns (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    name_lower      TEXT NOT NULL,
    client          TEXT,
    starts_on       TEXT,
    ends_on         TEXT,
    budget          REAL,
    currency        TEXT NOT NULL,
    target_views    INTEGER,
    notes           TEXT,
    archived_at     TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    UNIQUE (organization_id, name_lower)
);

-- Every campaign name an organization already uses becomes a campaign: the
-- store does it in code right after migrating (names are folded to lower
-- case by Rust's rules, ids are UUIDs), and names that differ only by case
-- are rewritten to one spelling, which moves analytics cells.
INSERT INTO store_tasks (name) VALUES ('adopt_campaigns');
