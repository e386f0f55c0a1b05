-- Back mode (docs/psp-connectors.md#psp-accounts): merchants' own PSP accounts. Credentials are
-- sealed with the secret box (AES-256-GCM, src/crypto/secret-box.ts) as one JSON object; they are
-- never stored in clear.
CREATE TABLE psp_accounts (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL REFERENCES accounts (id),
  psp              text NOT NULL,
  environment      text NOT NULL CHECK (environment IN ('test', 'live')),
  label            text NOT NULL,
  credentials_enc  text NOT NULL,
  endpoint_url     text,
  verified_at      timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  UNIQUE (account_id, id)
);
CREATE INDEX psp_accounts_account_idx ON psp_accounts (account_id, created_at);

-- The PSP account an offer pays through (NULL: the built-in sandbox PSP). The composite key keeps
-- an offer from pointing at another merchant's PSP account.
ALTER TABLE offers ADD COLUMN psp_account_id uuid;
ALTER TABLE offers ADD CONSTRAINT offers_psp_account_fk FOREIGN KEY (account_id, psp_account_id) REFERENCES psp_accounts (account_id, id);

-- Which PSP account a payment ran on (later captures, voids and refunds of it use the same one,
-- even if the offer is rebound), and the card scheme's id of a customer-initiated transaction
-- that stored the card (PSD2: later merchant-initiated charges reference it).
ALTER TABLE payments ADD COLUMN psp_account_id uuid, ADD COLUMN network_transaction_id text;
ALTER TABLE payments ADD CONSTRAINT payments_psp_account_fk FOREIGN KEY (account_id, psp_account_id) REFERENCES psp_accounts (account_id, id);
-- Inbound PSP notifications name a transaction of one PSP account.
CREATE INDEX payments_psp_transaction_idx ON payments (psp_account_id, psp_transaction_id) WHERE psp_account_id IS NOT NULL;
