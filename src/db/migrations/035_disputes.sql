-- Disputes opened by a cardholder's bank on a captured payment (docs/money-operations.md#disputes):
-- chargebacks, retrieval requests (a request for information before a chargeback) and fraud
-- warnings (TC40/SAFE reports), as the payment's PSP notifies them. One row per PSP dispute.
CREATE TABLE disputes (
  id                uuid PRIMARY KEY,
  account_id        uuid NOT NULL REFERENCES accounts (id),
  purchase_id       uuid NOT NULL REFERENCES purchases (id),
  payment_id        uuid NOT NULL REFERENCES payments (id),
  psp               text NOT NULL,
  -- The PSP's id of the dispute (Stripe `dp_…`, Adyen's chargeback pspReference …).
  psp_dispute_id    text NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('chargeback', 'retrieval', 'fraud_warning')),
  -- open → evidence_sent → won | lost; a retrieval request or fraud warning ends `closed`.
  state             text NOT NULL CHECK (state IN ('open', 'evidence_sent', 'won', 'lost', 'closed')),
  -- The PSP's reason code or label, verbatim (`fraudulent`, `4837` …).
  reason            text,
  -- What the bank disputes; a lost chargeback takes it from the merchant.
  amount_cents      bigint NOT NULL CHECK (amount_cents >= 0),
  currency          text NOT NULL,
  evidence_due_at   timestamptz,
  evidence_sent_at  timestamptz,
  opened_at         timestamptz NOT NULL,
  closed_at         timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  UNIQUE (psp, psp_dispute_id)
);
-- The purchase's disputes, and a payment's lost amount (reconciliation, reports).
CREATE INDEX disputes_payment_idx ON disputes (account_id, payment_id);
-- The back office's open disputes, by deadline.
CREATE INDEX disputes_open_idx ON disputes (account_id, evidence_due_at) WHERE state IN ('open', 'evidence_sent');
