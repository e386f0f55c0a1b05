-- Lookups the index audit found reading a whole table at 10 M purchases
-- (docs/performance.md#queries-without-a-fitting-index-at-10-m), each served by the index below.
-- Partial where most rows have no value to look up, so only the rows a lookup can find are kept.
-- Built in the migration's transaction: on a 10 M database the writes to each table wait for its
-- build (docs/deployment.md#rolling-upgrade).

-- payment-repository.ts countPledgePayments (every pledge payment), and the foreign-key check of
-- payments.pledge_id when insertDraftPledges deletes draft pledges.
CREATE INDEX payments_pledge_idx ON payments (pledge_id) WHERE pledge_id IS NOT NULL;
-- The foreign-key check of refund_allocations.pledge_id on the same delete.
CREATE INDEX refund_allocations_pledge_idx ON refund_allocations (pledge_id) WHERE pledge_id IS NOT NULL;

-- installment-repository.ts installmentHeldBy (re-authorisation) and lockShopperPaymentInstallments
-- (a shopper paying installments in the shopper space).
CREATE INDEX installments_payment_idx ON installments (account_id, payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX installments_shopper_payment_idx ON installments (account_id, shopper_payment_id) WHERE shopper_payment_id IS NOT NULL;

-- A purchase's disputes (dispute-repository.ts disputesOfPurchase, chargedBackCents: every
-- purchase page) and its messages (shopper-purchase-repository.ts receiptsOf; the sandbox inbox
-- by purchase).
CREATE INDEX disputes_purchase_idx ON disputes (account_id, purchase_id);
CREATE INDEX outbound_messages_purchase_idx ON outbound_messages (account_id, purchase_id, created_at DESC) WHERE purchase_id IS NOT NULL;
