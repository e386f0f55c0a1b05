-- Refunds, cancellation and expiry (docs/purchase-lifecycle.md).

-- A refund that lowers an installment not yet collected down to nothing cancels it.
ALTER TABLE installments DROP CONSTRAINT installments_state_check;
ALTER TABLE installments ADD CONSTRAINT installments_state_check CHECK (state IN ('scheduled', 'paid', 'failed', 'cancelled'));

-- One merchant refund request. `amount_cents` is what the merchant asked for; what actually
-- moved is the sum of its succeeded allocations.
CREATE TABLE refunds (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id),
  purchase_id     uuid NOT NULL REFERENCES purchases (id),
  amount_cents    bigint NOT NULL CHECK (amount_cents > 0),
  reason          text,
  -- pending while an allocation awaits the PSP; failed when the PSP refused one of them.
  state           text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
  failure_reason  text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE INDEX refunds_purchase_idx ON refunds (account_id, purchase_id, created_at, id);

-- How a refund is split: a PSP refund of one captured payment, or the lowering of an
-- installment not yet collected (with a deferred hold: capture less, or void it).
-- Written under the purchase's row lock before any PSP call, so that the allocations of
-- concurrent refunds, pending ones included, never exceed what each payment captured.
CREATE TABLE refund_allocations (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id),
  refund_id       uuid NOT NULL REFERENCES refunds (id),
  purchase_id     uuid NOT NULL REFERENCES purchases (id),
  position        integer NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('refund', 'installment')),
  payment_id      uuid REFERENCES payments (id),
  installment_id  uuid REFERENCES installments (id),
  payer           text NOT NULL CHECK (payer IN ('leader', 'pledger')),
  pledge_id       uuid REFERENCES pledges (id),
  amount_cents    bigint NOT NULL CHECK (amount_cents > 0),
  state           text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
  -- Sent to the PSP: `<refund id>:<payment id>` (a retry never refunds twice).
  idempotency_key text,
  failure_reason  text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  CHECK (kind <> 'refund' OR payment_id IS NOT NULL),
  CHECK (kind <> 'installment' OR installment_id IS NOT NULL),
  UNIQUE (refund_id, position)
);
CREATE INDEX refund_allocations_purchase_idx ON refund_allocations (account_id, purchase_id);
CREATE INDEX refund_allocations_pending_idx ON refund_allocations (account_id, refund_id) WHERE state = 'pending';
