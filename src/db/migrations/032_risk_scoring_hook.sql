-- The external scoring hook (docs/risk.md#the-external-scoring-hook): at most one per account, an
-- HTTPS endpoint the payment-time decision asks before a credit plan or a pot's pledge is charged.
-- The signing secret is sealed at rest (src/crypto/secret-box.ts), as webhook secrets are; the
-- URL is checked by the webhook endpoint's rule before it is stored (src/delivery/endpoints.ts).
CREATE TABLE risk_scoring_hooks (
  account_id  uuid PRIMARY KEY REFERENCES accounts (id),
  url         text NOT NULL CHECK (length(url) <= 2048),
  secret_enc  text NOT NULL,
  timeout_ms  integer NOT NULL DEFAULT 1500 CHECK (timeout_ms BETWEEN 100 AND 5000),
  on_error    text NOT NULL DEFAULT 'accept' CHECK (on_error IN ('accept', 'refuse')),
  enabled     boolean NOT NULL DEFAULT true,
  updated_at  timestamptz NOT NULL
);
