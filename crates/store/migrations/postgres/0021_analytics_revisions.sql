-- The version of each organization's analytics: moved by every write that
-- settles the rollup for it (rollup::settle, in the same transaction, after
-- its cells: writers lock the cells, then the revisions in organization
-- order, so they cannot deadlock on them) and by a rebuild. An API node
-- keeps the answers it computed from the rollup under this revision and
-- answers again from them while it holds: one primary-key read instead of
-- summing the window's cells. An organization without a row is at
-- revision 0.
CREATE TABLE analytics_revisions (
    organization_id UUID PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    revision        BIGINT NOT NULL
);
