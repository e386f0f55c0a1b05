-- Risk rules (docs/risk.md#the-rules): an account's defaults (offer_id NULL) and each offer's
-- overrides, one row each, as a JSON object of rules. The application checks it against the
-- rules' schema (src/domain/risk-rules.ts) before every write and after every read; here only
-- that it is an object.
CREATE TABLE risk_rules (
  account_id  uuid NOT NULL REFERENCES accounts (id),
  offer_id    uuid REFERENCES offers (id),
  rules       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(rules) = 'object'),
  updated_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX risk_rules_account_key ON risk_rules (account_id) WHERE offer_id IS NULL;
CREATE UNIQUE INDEX risk_rules_offer_key ON risk_rules (account_id, offer_id) WHERE offer_id IS NOT NULL;

-- The shopper-history query (src/risk/shopper-history-repository.ts, docs/risk.md#the-history-query)
-- finds a shopper's purchases by e-mail whatever their client's ref (clients_account_email_key
-- covers only clients without one), and by phone number.
CREATE INDEX clients_account_email_idx ON clients (account_id, lower(email));
CREATE INDEX purchases_account_phone_idx ON purchases (account_id, phone_number) WHERE phone_number IS NOT NULL;
