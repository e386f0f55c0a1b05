-- The delivery claim of 019, its selection unchanged, in two steps: the deliveries it picks are
-- gathered first, and the UPDATE that writes their leases runs only when there is one. A statement
-- trigger runs for every UPDATE, one that changes no row included, and migration 044's running sums
-- of deliveries are kept by one (with transition tables): on an idle service, where nearly every
-- claim finds nothing due, that trigger had become most of the claim's cost (0.51 ms an empty
-- claim instead of 0.34 ms; docs/performance.md#the-delivery-pipeline). The picked rows are locked by
-- the first step (FOR UPDATE SKIP LOCKED) and stay locked until the claim's transaction ends, so the
-- second step writes exactly what the first chose.
CREATE OR REPLACE FUNCTION chipin_claim_deliveries(p_now timestamptz, p_wall_now timestamptz, p_limit integer,
    p_locked_until timestamptz, p_lease_id uuid, p_per_destination integer,
    p_busy_accounts uuid[], p_busy_kinds text[], p_busy_counts integer[])
  RETURNS SETOF deliveries LANGUAGE plpgsql
  SET enable_seqscan = off SET enable_bitmapscan = off SET enable_sort = off
  SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off
AS $$
DECLARE
  picked_ids uuid[];
BEGIN
  WITH RECURSIVE destinations AS (
    -- Every destination with a pending delivery and its earliest one: one index probe per
    -- destination (a loose index scan), however many deliveries each has.
    (SELECT d.account_id, d.kind, d.next_attempt_at FROM deliveries d
     WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL
     ORDER BY d.account_id, d.kind, d.next_attempt_at LIMIT 1)
    UNION ALL
    SELECT n.account_id, n.kind, n.next_attempt_at FROM destinations p
    CROSS JOIN LATERAL (
      SELECT d.account_id, d.kind, d.next_attempt_at FROM deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL AND (d.account_id, d.kind) > (p.account_id, p.kind)
      ORDER BY d.account_id, d.kind, d.next_attempt_at LIMIT 1) n
  ),
  -- The destinations waiting longest first; no more of them than deliveries asked for.
  due_destinations AS (
    SELECT t.account_id, t.kind, t.next_attempt_at,
      greatest(least(p_per_destination - coalesce((
        SELECT b.n FROM unnest(p_busy_accounts, p_busy_kinds, p_busy_counts) AS b(account_id, kind, n)
        WHERE b.account_id = t.account_id AND b.kind = t.kind), 0), p_limit), 0) AS room
    FROM destinations t
    WHERE t.next_attempt_at <= p_now
    ORDER BY t.next_attempt_at
    LIMIT p_limit
  ),
  candidates AS (
    SELECT c.id, c.next_attempt_at, c.event_id,
      row_number() OVER (PARTITION BY t.account_id, t.kind ORDER BY c.next_attempt_at, c.event_id) AS turn
    FROM due_destinations t
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at, d.event_id FROM deliveries d
      WHERE d.account_id = t.account_id AND d.kind = t.kind
        AND d.status = 'pending' AND d.next_attempt_at <= p_now
        AND (d.locked_until IS NULL OR d.locked_until <= p_wall_now)
        -- The ordering rule (014): first in line for its purchase and destination. OFFSET 0
        -- keeps each check a probe per candidate on its index, by account, purchase and id: as an
        -- anti-join, the planner (whose estimates lag mid-burst) read every undispatched event of
        -- the account once and compared each candidate with all of them (12.6 ms per claim
        -- instead of 1.6, measured with track_functions during a burst).
        AND NOT EXISTS (
          SELECT 1 FROM deliveries b
          WHERE b.account_id = d.account_id AND b.purchase_id = d.purchase_id AND b.kind = d.kind
            AND b.status = 'pending' AND b.event_id < d.event_id
          OFFSET 0)
        AND NOT EXISTS (
          SELECT 1 FROM purchase_events e
          WHERE e.account_id = d.account_id AND e.purchase_id = d.purchase_id
            AND e.id < d.event_id AND e.dispatched_at IS NULL
          OFFSET 0)
      -- Within the destination this is (next_attempt_at, event_id) order; spelt out in full so
      -- that the destination's index gives it, not a walk of every due delivery of every merchant.
      ORDER BY d.account_id, d.kind, d.next_attempt_at, d.event_id
      LIMIT t.room
      FOR UPDATE OF d SKIP LOCKED) c
  ),
  picked AS (
    SELECT id FROM candidates ORDER BY turn, next_attempt_at, event_id LIMIT p_limit
  )
  SELECT array_agg(id) INTO picked_ids FROM picked;
  IF picked_ids IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY UPDATE deliveries d SET locked_until = p_locked_until, lease_id = p_lease_id
    WHERE d.id = ANY (picked_ids)
    RETURNING d.*;
END
$$;
