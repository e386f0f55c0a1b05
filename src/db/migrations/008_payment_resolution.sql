-- Crash recovery of PSP calls (docs/hosted-payment.md, "Crashes and the in-progress window").
-- The PSP token the call of this row uses, stored before the call: an attempt left `pending` by a
-- crash can then be replayed with the same idempotency key and the same parameters, and the PSP
-- answers its stored outcome instead of charging again.
-- The return URL goes with it: it is part of the call (a changed PUBLIC_URL must not alter a replay).
ALTER TABLE payments ADD COLUMN psp_method_id text, ADD COLUMN psp_return_url text;
-- The reconciliation job looks for unresolved rows older than a timeout.
CREATE INDEX payments_unresolved_idx ON payments (updated_at) WHERE status IN ('pending', 'requires_action');
