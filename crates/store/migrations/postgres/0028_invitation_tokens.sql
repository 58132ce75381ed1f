-- Invitation tokens (issue 35): an invitation's id is listed to its
-- organization's admins and proves nothing, so the e-mailed link also
-- carries a random token, of which only the SHA-256 is kept. It works
-- while the invitation is pending and unexpired, once (using it clears
-- it), and a re-send replaces it. Admins may also cancel a pending
-- invitation: status `cancelled`.

ALTER TABLE invitations DROP CONSTRAINT invitations_status_check;
ALTER TABLE invitations ADD CONSTRAINT invitations_status_check
    CHECK (status IN ('pending', 'accepted', 'declined', 'expired', 'cancelled'));
ALTER TABLE invitations ADD COLUMN token_hash BYTEA;
CREATE UNIQUE INDEX invitations_token ON invitations (token_hash) WHERE token_hash IS NOT NULL;
