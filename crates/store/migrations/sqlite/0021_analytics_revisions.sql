-- The version of each organization's analytics: moved by every write that
-- settles the rollup for it (rollup::settle, in the same transaction) and
-- by a rebuild. An API node keeps the answers it computed from the rollup
-- under this revision and answers again from them while it holds: one
-- primary-key read instead of summing the window's cells. An organization
-- without a row is at revision 0.
CREATE TABLE analytics_revisions (
    organization_id BLOB PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    revision        INTEGER NOT NULL
) WITHOUT ROWID;
