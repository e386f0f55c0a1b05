-- The shopper's space (docs/shopper-space.md): sign-in without a password and its sessions.
-- A shopper is an identity, not an account's row: a lower-case e-mail or an E.164 phone number,
-- the same across every merchant that uses Chipin. These rows hold no merchant data, so they
-- have no account_id; what a shopper may see is decided by that identity, purchase by purchase.

-- One request to sign in: a link sent by e-mail (its 256-bit token) or a 6-digit code sent by SMS.
-- Only hashes are stored (token_hash: SHA-256 of the link's token, or an HMAC of the code and the
-- request's id), and the hash of the cookie of the browser that asked (browser_hash): the link or
-- code works in that browser only, once (used_at), until expires_at; a code takes 5 tries.
CREATE TABLE shopper_sign_in_requests (
  id            uuid PRIMARY KEY,
  identity_kind text NOT NULL CHECK (identity_kind IN ('email', 'phone')),
  identity      text NOT NULL,
  token_hash    bytea NOT NULL,
  browser_hash  bytea NOT NULL,
  return_path   text,
  attempts      int4 NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz
);
CREATE UNIQUE INDEX shopper_sign_in_requests_token_key ON shopper_sign_in_requests (token_hash);
CREATE INDEX shopper_sign_in_requests_browser_idx ON shopper_sign_in_requests (browser_hash, created_at DESC);

-- Server-side sessions, as the back office's (012_dashboard_sessions.sql): the cookie holds a
-- random token, the table its SHA-256.
CREATE TABLE shopper_sessions (
  id            uuid PRIMARY KEY,
  token_hash    bytea NOT NULL,
  identity_kind text NOT NULL CHECK (identity_kind IN ('email', 'phone')),
  identity      text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz
);
CREATE UNIQUE INDEX shopper_sessions_token_key ON shopper_sessions (token_hash);

-- The space lists a shopper's purchases across accounts: by the leader's e-mail or phone, and by
-- the pledgers'. E-mails are stored as typed, and compared lower-cased.
CREATE INDEX clients_email_lower_idx ON clients (lower(email));
CREATE INDEX purchases_phone_number_idx ON purchases (phone_number) WHERE phone_number IS NOT NULL;
CREATE INDEX pledges_email_lower_idx ON pledges (lower(email)) WHERE email IS NOT NULL;
CREATE INDEX pledges_phone_number_idx ON pledges (phone_number) WHERE phone_number IS NOT NULL;
