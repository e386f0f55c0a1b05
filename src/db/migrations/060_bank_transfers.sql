-- Transfer mode's bank transfers (docs/money-operations.md#payment-by-transfer): a shopper may pay a
-- transfer-mode purchase by bank transfer to the operator's account, and what the operator gives
-- back on such a purchase is paid by bank transfer too.
--
-- * `bank_transfers`: each transfer the operator recorded received for a purchase (`received`,
--   one per purchase, recorded with the CLI from its bank statement) and each refund of a purchase
--   paid that way that the operator must send (`refund`, one per refund, `sent_at` set when the
--   operator records it sent). A purchase with a received transfer is one paid by transfer.
-- * `refund_allocations.kind` 'transfer': the part of a refund given back by bank transfer (a
--   purchase paid by transfer has no card to refund on), with neither a payment nor an
--   installment. Only this build writes it.
CREATE TABLE bank_transfers (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  purchase_id   uuid NOT NULL REFERENCES purchases (id),
  direction     text NOT NULL CHECK (direction IN ('received', 'refund')),
  amount_cents  bigint NOT NULL CHECK (amount_cents > 0),
  currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  refund_id     uuid REFERENCES refunds (id),
  -- received: the day the money reached the operator's account, as its bank statement says.
  value_date    date,
  -- refund: when the operator recorded the transfer sent; NULL while it is still to send.
  sent_at       timestamptz,
  created_at    timestamptz NOT NULL,
  CHECK ((direction = 'refund') = (refund_id IS NOT NULL)),
  CHECK ((direction = 'received') = (value_date IS NOT NULL)),
  CHECK (direction = 'refund' OR sent_at IS NULL)
);
CREATE UNIQUE INDEX bank_transfers_received_idx ON bank_transfers (account_id, purchase_id) WHERE direction = 'received';
CREATE UNIQUE INDEX bank_transfers_refund_idx ON bank_transfers (refund_id) WHERE refund_id IS NOT NULL;
-- The operator's list of refunds to send, oldest first.
CREATE INDEX bank_transfers_to_send_idx ON bank_transfers (created_at) WHERE direction = 'refund' AND sent_at IS NULL;

ALTER TABLE refund_allocations DROP CONSTRAINT refund_allocations_kind_check;
ALTER TABLE refund_allocations ADD CONSTRAINT refund_allocations_kind_check CHECK (kind IN ('refund', 'installment', 'transfer'));
ALTER TABLE refund_allocations ADD CONSTRAINT refund_allocations_transfer_check CHECK (kind <> 'transfer' OR (payment_id IS NULL AND installment_id IS NULL));
