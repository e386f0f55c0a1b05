-- Invitations to join an account's back office (docs/back-office.md#invitations). The e-mailed link
-- holds a random token; only its SHA-256 is stored, so a copy of this table lets nobody join.
-- An invitation is pending until it is accepted, revoked or expired (wall-clock `expires_at`,
-- as sessions'); inviting the same e-mail again revokes the pending one.
CREATE TABLE dashboard_invitations (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts (id),
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin', 'support')),
  token_hash   bytea NOT NULL,
  -- Who invited (an audit label, so it outlives the member).
  invited_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  revoked_at   timestamptz
);
CREATE UNIQUE INDEX dashboard_invitations_token_key ON dashboard_invitations (token_hash);
CREATE UNIQUE INDEX dashboard_invitations_pending_key ON dashboard_invitations (account_id, lower(email))
  WHERE accepted_at IS NULL AND revoked_at IS NULL;
