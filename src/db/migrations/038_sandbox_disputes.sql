-- The built-in sandbox PSP's disputes (src/psp/sandbox/, docs/money-operations.md#disputes): three
-- test cards open one once captured; the sandbox helpers win or lose it, an unanswered one lapses
-- as lost at its deadline. A lost chargeback takes its amount back: `charged_back_cents`, the
-- PSP's side that reconciliation reads.
ALTER TABLE sandbox_psp_payment_methods DROP CONSTRAINT sandbox_psp_payment_methods_behaviour_check;
ALTER TABLE sandbox_psp_payment_methods ADD CONSTRAINT sandbox_psp_payment_methods_behaviour_check
  CHECK (behaviour IN ('approve', 'do_not_honor', 'insufficient_funds', 'challenge', 'decline_off_session',
                       'dispute_fraudulent', 'dispute_inquiry', 'fraud_warning'));

ALTER TABLE sandbox_psp_transactions ADD COLUMN charged_back_cents bigint NOT NULL DEFAULT 0 CHECK (charged_back_cents >= 0);

CREATE TABLE sandbox_psp_disputes (
  id               text PRIMARY KEY,
  transaction_id   text NOT NULL REFERENCES sandbox_psp_transactions (id),
  kind             text NOT NULL CHECK (kind IN ('chargeback', 'retrieval', 'fraud_warning')),
  -- The sandbox's own vocabulary; src/psp/sandbox/mapping.ts maps it to Chipin's.
  status           text NOT NULL CHECK (status IN ('needs_response', 'won', 'lost', 'closed')),
  reason           text NOT NULL,
  amount_cents     bigint NOT NULL CHECK (amount_cents > 0),
  currency         text NOT NULL,
  evidence_due_at  timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX sandbox_psp_disputes_transaction_idx ON sandbox_psp_disputes (transaction_id);
