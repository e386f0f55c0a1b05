-- Stateless PSP connectors (docs/psp-connectors.md, "State and idempotency").
--
-- payments.psp_state: what the payment's connector learnt from its PSP (PSP references, the
-- stored-credential reference, capture and refund references, the last known amounts where the
-- PSP cannot be asked), as the connector returned it; given back to the connector in every later
-- call on the payment, by whichever process makes it. NULL on rows written before this
-- migration: connectors whose PSP can be read by id work from the id alone.
ALTER TABLE payments ADD COLUMN psp_state jsonb;

-- The PSP operation log: one row per mutating connector call, so that the same idempotency key
-- replays the first outcome whichever process sends it, after any restart. `scope` is the PSP
-- account id (`psa_` uuid without prefix), or the connector's name for a connector without an
-- account; `fingerprint` an HMAC of the call's parameters (never a card number in clear or
-- merely hashed); `started` with no result: the call's outcome is unknown (a crash, a timeout),
-- the next call with the key reconciles with the PSP before sending anything.
CREATE TABLE psp_operations (
  scope           text NOT NULL,
  operation       text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint     text NOT NULL,
  status          text NOT NULL CHECK (status IN ('started', 'done')),
  result          jsonb,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (scope, operation, idempotency_key)
);
