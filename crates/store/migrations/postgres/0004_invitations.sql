-- Team invitations (dashboard-api.md, "Invitation"): one pending invitation
-- per organization and address at a time; expired, accepted and declined
-- ones stay as history.

CREATE TABLE invitations (
    id              UUID PRIMARY KEY,
    organization_id UUID NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email           TEXT NOT NULL,
    email_lower     TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'expired')),
    invited_by      UUID REFERENCES users (id) ON DELETE SET NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    accepted_at     TIMESTAMPTZ,
    responded_at    TIMESTAMPTZ
);
CREATE UNIQUE INDEX invitations_one_pending ON invitations (organization_id, email_lower)
    WHERE status = 'pending';
CREATE INDEX invitations_org_status ON invitations (organization_id, status, expires_at);
