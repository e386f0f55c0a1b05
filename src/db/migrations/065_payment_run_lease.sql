-- How long the request running a payment is known to be alive (docs/money-operations.md#payments-in-doubt):
-- set when a shopper's request reserves the payment, renewed every few seconds while its PSP
-- calls run, ended at once when the request fails. A `pending` payment whose lease lapsed has
-- nobody working on it: the reconciliation job resolves it within seconds instead of after
-- 20 minutes. NULL: a payment of a job (resolved by its job), one a PSP fault left for the
-- shopper's next attempt, or one made by an older build (a rolling upgrade mixes both); those keep
-- the 20-minute rule. Expand-only (docs/deployment.md#rolling-upgrade). No index: the job reads the
-- few unresolved rows through payments_unresolved_idx.
ALTER TABLE payments ADD COLUMN run_lease_until timestamptz;
