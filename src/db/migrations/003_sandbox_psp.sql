-- The built-in sandbox PSP (src/psp/sandbox/). It plays the PSP's side, so its state lives here,
-- shared by every Chipin process on the database, and not in memory. It stores no card number
-- and no CVC: a token, brand, last four digits, expiry and the test behaviour the number selected.
-- Times come from the service clock (the sandbox may move it forward), never from now().

CREATE TABLE sandbox_psp_payment_methods (
  id          text PRIMARY KEY,
  behaviour   text NOT NULL CHECK (behaviour IN ('approve', 'do_not_honor', 'insufficient_funds', 'challenge', 'decline_off_session')),
  brand       text NOT NULL,
  last4       text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
  exp_month   integer NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
  exp_year    integer NOT NULL,
  created_at  timestamptz NOT NULL
);

CREATE TABLE sandbox_psp_transactions (
  id                 text PRIMARY KEY,
  payment_method_id  text NOT NULL REFERENCES sandbox_psp_payment_methods (id),
  off_session        boolean NOT NULL,
  capture_mode       text NOT NULL CHECK (capture_mode IN ('automatic', 'manual')),
  -- The sandbox's own vocabulary; src/psp/sandbox/mapping.ts maps it to Chipin's.
  status             text NOT NULL CHECK (status IN ('pending_authentication', 'held', 'settled', 'cancelled', 'failed', 'lapsed')),
  decline_code       text,
  amount_cents       bigint NOT NULL CHECK (amount_cents > 0),
  currency           text NOT NULL,
  captured_cents     bigint NOT NULL DEFAULT 0,
  refunded_cents     bigint NOT NULL DEFAULT 0,
  return_url         text,
  -- Anti-forgery token of the 3-D Secure challenge form (random, one per transaction).
  challenge_token    text,
  expires_at         timestamptz,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  CHECK (0 <= refunded_cents AND refunded_cents <= captured_cents AND captured_cents <= amount_cents)
);

-- First result of each mutating call, replayed for the same (operation, key).
CREATE TABLE sandbox_psp_idempotency (
  operation        text NOT NULL,
  idempotency_key  text NOT NULL,
  -- SHA-256 of the call's parameters (never of card data), to refuse a key reused for another call.
  fingerprint      text NOT NULL,
  result           jsonb,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (operation, idempotency_key)
);
