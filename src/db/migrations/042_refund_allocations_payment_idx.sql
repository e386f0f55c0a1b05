-- A payment's refund allocations (src/payments/refund-repository.ts: refundSources, what each
-- captured payment can still give back, and the pending refunds of a payment). Without it they
-- are found through refund_allocations_purchase_idx by account alone, reading every allocation
-- of the merchant for each payment (docs/performance.md#a-payments-refund-allocations).
CREATE INDEX refund_allocations_payment_idx ON refund_allocations (account_id, payment_id);
