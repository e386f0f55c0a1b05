-- The shopper pays from their space (docs/schedules.md#the-shopper-pays-now): a refused
-- installment paid now, the rest of a plan repaid early, the card changed for what is left.
-- `card_check`: the customer-initiated authorisation that stores a new card, voided at once.
ALTER TABLE payments DROP CONSTRAINT payments_purpose_check;
ALTER TABLE payments ADD CONSTRAINT payments_purpose_check
  CHECK (purpose IN ('guarantee', 'leader_share', 'pledge', 'rest', 'first_installment', 'installment', 'deferred', 'card_check'));
-- The shopper's payment that pays (or paid) the installment: one for "pay now", the same for
-- every installment an early repayment settles. While it is unresolved the installment is not
-- collected by its job, and a resolution finds the installments it pays here.
ALTER TABLE installments ADD COLUMN shopper_payment_id uuid REFERENCES payments (id);
