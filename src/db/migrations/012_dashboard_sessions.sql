-- Sign-in sessions of the merchant back office (docs/back-office.md). The cookie holds a random
-- token; only its SHA-256 is stored, so a copy of this table signs nobody in. A session ends when
-- it expires or is revoked (sign-out), whichever comes first.
CREATE TABLE dashboard_sessions (
  id          uuid PRIMARY KEY,
  token_hash  bytea NOT NULL,
  account_id  uuid NOT NULL REFERENCES accounts (id),
  user_id     uuid NOT NULL REFERENCES dashboard_users (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE UNIQUE INDEX dashboard_sessions_token_key ON dashboard_sessions (token_hash);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id);
