-- The delivery workers' claim (src/delivery/delivery-queue-repository.ts, claimDue, docs/performance.md). Its plan must not
-- depend on row estimates: mid-burst the deliveries table grows by thousands of rows a second,
-- the estimates lag behind, and the planner switched to sequential scans and sorts of every
-- pending row (10-30 ms per claim instead of 2). The claim walks the due deliveries in order on
-- this index and stops at its LIMIT; each ordering check is one probe of deliveries_order_idx or
-- purchase_events_undispatched_by_purchase_idx.
DROP INDEX deliveries_due_idx;
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at, event_id) WHERE status = 'pending';
-- The "no earlier event of the purchase still undispatched" check.
CREATE INDEX purchase_events_undispatched_by_purchase_idx ON purchase_events (account_id, purchase_id, id)
  WHERE dispatched_at IS NULL;

-- The claim as a function so that its plan is fixed by these settings, whatever the statistics
-- say: no sequential scan, bitmap scan, sort or hash/merge join is ever cheaper here once the
-- table holds more than a handful of rows. Leases deliveries and answers them.
CREATE FUNCTION chipin_claim_deliveries(p_now timestamptz, p_wall_now timestamptz, p_limit integer,
    p_locked_until timestamptz, p_lease_id uuid)
  RETURNS SETOF deliveries LANGUAGE sql
  SET enable_seqscan = off SET enable_bitmapscan = off SET enable_sort = off
  SET enable_hashjoin = off SET enable_mergejoin = off
AS $$
  WITH due AS (
    SELECT d.id FROM deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= p_now
      AND (d.locked_until IS NULL OR d.locked_until <= p_wall_now)
      AND NOT EXISTS (
        SELECT 1 FROM deliveries b
        WHERE b.account_id = d.account_id AND b.purchase_id = d.purchase_id AND b.kind = d.kind
          AND b.status = 'pending' AND b.event_id < d.event_id)
      AND NOT EXISTS (
        SELECT 1 FROM purchase_events e
        WHERE e.account_id = d.account_id AND e.purchase_id = d.purchase_id
          AND e.id < d.event_id AND e.dispatched_at IS NULL)
    ORDER BY d.next_attempt_at, d.event_id
    LIMIT p_limit
    FOR UPDATE OF d SKIP LOCKED
  )
  UPDATE deliveries d SET locked_until = p_locked_until, lease_id = p_lease_id
  FROM due WHERE d.id = due.id
  RETURNING d.*
$$;
