-- Invitation tokens (issue 35): an invitation's id is listed to its
-- organization's admins and proves nothing, so the e-mailed link also
-- carries a random token, of which only the SHA-256 is kept. It works
-- while the invitation is pending and unexpired, once (using it clears
-- it), and a re-send replaces it. Admins may also cancel a pending
-- invitation: status `cancelled`.
--
-- SQLite cannot change a CHECK constraint: the table is rebuilt with the
-- new status and column (no table refers to invitations).

CREATE TABLE invitations_new (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email           TEXT NOT NULL,
    email_lower     TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    status          TEXT NOT NULL
                    CHECK (status IN ('pending', 'accepted', 'declined', 'expired', 'cancelled')),
    invited_by      BLOB REFERENCES users (id) ON DELETE SET NULL,
    created_at      TEXT NOT NULL,
    expires_at      TEXT NOT NULL,
    accepted_at     TEXT,
    responded_at    TEXT,
    token_hash      BLOB
);
INSERT INTO invitations_new (id, organization_id, email, email_lower, role, status,
                             invited_by, created_at, expires_at, accepted_at, responded_at)
SELECT id, organization_id, email, email_lower, role, status,
       invited_by, created_at, expires_at, accepted_at, responded_at
FROM invitations;
DROP TABLE invitations;
ALTER TABLE invitations_new RENAME TO invitations;

CREATE UNIQUE INDEX invitations_one_pending ON invitations (organization_id, email_lower)
    WHERE status = 'pending';
CREATE INDEX invitations_org_status ON invitations (organization_id, status, expires_at);
CREATE UNIQUE INDEX invitations_token ON invitations (token_hash) WHERE token_hash IS NOT NULL;
