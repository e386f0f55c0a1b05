-- The ledger (docs/money-operations.md#reports): one row per movement of money at the PSP, appended
-- in the same transaction that records it. Captures and refunds are written by `recordResult`
-- (src/payments/payment-repository.ts, the only writer of payments.captured_cents/refunded_cents):
-- the positive differences between the row before and after the PSP's answer. Chargebacks and
-- their reversals are written by the disputes' code through `appendLedgerEntry`. Append-only:
-- nothing updates or deletes a row. Per payment, sum(capture) - sum(refund) equals
-- captured_cents - refunded_cents.
CREATE TABLE ledger_entries (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id),
  purchase_id     uuid NOT NULL REFERENCES purchases (id),
  payment_id      uuid NOT NULL REFERENCES payments (id),
  psp             text NOT NULL,
  -- The merchant's PSP account (back mode); NULL: the built-in sandbox PSP.
  psp_account_id  uuid,
  kind            text NOT NULL CHECK (kind IN ('capture', 'refund', 'chargeback', 'chargeback_reversal')),
  amount_cents    bigint NOT NULL CHECK (amount_cents > 0),
  currency        text NOT NULL,
  -- The dispute a chargeback or its reversal belongs to: at most one of each kind per dispute,
  -- so a notification told twice writes once.
  dispute_id      uuid REFERENCES disputes (id),
  occurred_at     timestamptz NOT NULL,
  FOREIGN KEY (account_id, psp_account_id) REFERENCES psp_accounts (account_id, id)
);
-- The daily reports: an account's entries of a period.
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, occurred_at);
-- A payment's entries (the check against its totals, reconciliation).
CREATE INDEX ledger_entries_payment_idx ON ledger_entries (account_id, payment_id);
CREATE UNIQUE INDEX ledger_entries_dispute_idx ON ledger_entries (dispute_id, kind) WHERE dispute_id IS NOT NULL;
-- The daily reports' other reads of a period (src/reports/report-repository.ts), so that they read
-- the period's rows, not every row of the account: the installments whose fees were charged, and
-- the purchases' state moves (a small part of their events).
CREATE INDEX installments_fees_paid_idx ON installments (account_id, paid_at) WHERE state = 'paid' AND fees_cents > 0;
CREATE INDEX purchase_events_moves_idx ON purchase_events (account_id, created_at) WHERE from_state IS DISTINCT FROM to_state;

-- Payments recorded before this migration: one capture and one refund entry each, dated at the
-- payment's last change (the only date kept of them).
INSERT INTO ledger_entries (account_id, purchase_id, payment_id, psp, psp_account_id, kind, amount_cents, currency, occurred_at)
SELECT p.account_id, p.purchase_id, p.id, p.psp, p.psp_account_id, v.kind, v.amount_cents, pu.currency, p.updated_at
  FROM payments p
  JOIN purchases pu ON pu.account_id = p.account_id AND pu.id = p.purchase_id
  CROSS JOIN LATERAL (VALUES ('capture', p.captured_cents), ('refund', p.refunded_cents)) AS v (kind, amount_cents)
 WHERE v.amount_cents > 0
 ORDER BY p.updated_at, p.id, v.kind;
