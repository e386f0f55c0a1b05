-- The home page's delivery counts of a window (src/dashboard/home-stats-repository.ts:
-- deliveryCounts) by an index-only scan: the account's deliveries by creation, with the status
-- and failures they are counted by, so no heap page is read for a delivery whose page is all
-- visible (docs/performance.md#the-home-pages-delivery-counts).
CREATE INDEX deliveries_account_status_idx ON deliveries (account_id, created_at) INCLUDE (status, failures);
