-- Payouts of transfer mode (docs/money-operations.md#payouts): what the operator owes a merchant
-- (`balance_postings`, book merchant_payable) paid by bank transfer, once a day per merchant and
-- currency.
--
-- * `payout_bank_details`: the merchant's "Payment params", the account holder's name, IBAN and
--   BIC, sealed together with the master key (one text, as every secret at rest), set by its
--   admins in the back office. No payout is made without them.
-- * `payouts`: one per merchant, currency and business day (the merchant's day that ended, in its
--   time zone), of a positive amount only; its status moves created → exported → sent → returned.
-- * `payout_lines`: the postings a payout pays, one line each. A posting is in at most one
--   payout: the line's key is the posting.
-- * `payout_exports`: each pain.001 file produced (the operator's SEPA credit transfers), kept
--   sealed (it names the merchants' IBANs) so that it can be produced again.
-- * `purchase_events.purchase_id` (and `to_state`) and `deliveries.purchase_id` may be NULL: a
--   payout's event (`payout.paid`) is the merchant's, about no purchase and no purchase state
--   (docs/webhooks.md#webhook-payload). It is written already dispatched, with its webhook's
--   delivery, so the previous build's dispatcher never reads it during a rolling upgrade.
--   Dropping NOT NULL changes no row and rewrites nothing.
CREATE TABLE payout_bank_details (
  account_id   uuid PRIMARY KEY REFERENCES accounts (id),
  details_enc  text NOT NULL,
  updated_at   timestamptz NOT NULL
);

CREATE TABLE payout_exports (
  id                 uuid PRIMARY KEY,
  pain_format        text NOT NULL CHECK (pain_format IN ('pain.001.001.03', 'pain.001.001.09')),
  message_id         text NOT NULL UNIQUE CHECK (char_length(message_id) BETWEEN 1 AND 35),
  transaction_count  int4 NOT NULL CHECK (transaction_count > 0),
  control_sum_cents  int8 NOT NULL CHECK (control_sum_cents > 0),
  file_enc           text NOT NULL,
  created_at         timestamptz NOT NULL
);

CREATE TABLE payouts (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  business_day  date NOT NULL,
  amount_cents  int8 NOT NULL CHECK (amount_cents > 0),
  line_count    int4 NOT NULL CHECK (line_count > 0),
  status        text NOT NULL CHECK (status IN ('created', 'exported', 'sent', 'returned')),
  export_id     uuid REFERENCES payout_exports (id),
  created_at    timestamptz NOT NULL,
  exported_at   timestamptz,
  sent_at       timestamptz,
  returned_at   timestamptz,
  UNIQUE (account_id, currency, business_day),
  UNIQUE (account_id, id),
  CHECK ((status = 'exported') <= (export_id IS NOT NULL))
);
-- The back office's list, newest first.
CREATE INDEX payouts_account_idx ON payouts (account_id, created_at DESC, id DESC);
-- The export's pick: the payouts still to put in a file.
CREATE INDEX payouts_created_idx ON payouts (currency, business_day) WHERE status = 'created';

CREATE TABLE payout_lines (
  posting_id    bigint PRIMARY KEY REFERENCES balance_postings (id),
  account_id    uuid NOT NULL,
  payout_id     uuid NOT NULL,
  purchase_id   uuid,
  kind          text NOT NULL,
  journal       text NOT NULL,
  amount_cents  int8 NOT NULL,
  occurred_at   timestamptz NOT NULL,
  FOREIGN KEY (account_id, payout_id) REFERENCES payouts (account_id, id)
);
CREATE INDEX payout_lines_payout_idx ON payout_lines (payout_id, posting_id);

ALTER TABLE purchase_events ALTER COLUMN purchase_id DROP NOT NULL, ALTER COLUMN to_state DROP NOT NULL;
ALTER TABLE deliveries ALTER COLUMN purchase_id DROP NOT NULL;
