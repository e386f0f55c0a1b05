-- Merchant accounts, their dashboard users, API keys and offers ("merchant uids").
CREATE TABLE accounts (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE dashboard_users (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts (id),
  email          text NOT NULL,
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
-- Dashboard e-mail is the Basic-auth user name, so it must identify one user.
CREATE UNIQUE INDEX dashboard_users_email_key ON dashboard_users (lower(email));
CREATE INDEX dashboard_users_account_idx ON dashboard_users (account_id);

CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts (id),
  -- SHA-256 of a 256-bit random secret: a slow KDF adds nothing to a secret that cannot be guessed.
  secret_hash  bytea NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);
CREATE INDEX api_keys_revoked_idx ON api_keys (revoked_at) WHERE revoked_at IS NOT NULL;

CREATE TABLE offers (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts (id),
  type                text NOT NULL CHECK (type IN ('SHARED', 'INSTALLMENTS', 'DEFERRED')),
  installments        integer NOT NULL DEFAULT 1 CHECK (installments BETWEEN 1 AND 12),
  deferred_days       integer NOT NULL DEFAULT 0 CHECK (deferred_days >= 0),
  currency            text NOT NULL DEFAULT 'EUR',
  fee_rate_bps        integer NOT NULL DEFAULT 0 CHECK (fee_rate_bps >= 0),
  fixed_fee_cents     bigint NOT NULL DEFAULT 0 CHECK (fixed_fee_cents >= 0),
  debit_rate_bps      integer NOT NULL DEFAULT 0 CHECK (debit_rate_bps >= 0),
  min_amount_cents    bigint NOT NULL DEFAULT 100 CHECK (min_amount_cents >= 0),
  max_amount_cents    bigint NOT NULL DEFAULT 1000000 CHECK (max_amount_cents >= min_amount_cents),
  funding_cap_cents   bigint,
  usury_ceiling_bps   integer,
  pot_deadline_hours  integer NOT NULL DEFAULT 48 CHECK (pot_deadline_hours > 0),
  expiry_hours        integer NOT NULL DEFAULT 24 CHECK (expiry_hours > 0),
  max_attempts        integer NOT NULL DEFAULT 3 CHECK (max_attempts > 0),
  psp                 text NOT NULL DEFAULT 'sandbox',
  -- AES-256-GCM under the master key; see src/crypto/secret-box.ts.
  signing_secret_enc  text NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX offers_account_idx ON offers (account_id);
