-- The outbox of events still to dispatch becomes a table of its own (docs/webhooks.md#how-it-works-operators).
-- Until now an event was written with `dispatched_at` NULL and updated when dispatched: the column
-- is in the predicate of the two partial indexes that find undispatched events, so that update was
-- never HOT and wrote a new entry into each of the table's three full indexes, after the two
-- partial entries of the insert and the row lock of the claim; the table kept a dead version of
-- every event. This build writes each event already marked dispatched (no partial index entry, no
-- later update: `purchase_events` is append-only) and, in the same statement, a row here, which
-- the dispatcher deletes in the transaction that makes the event's deliveries. 11 WAL records per
-- event become 9 (docs/performance.md#what-limits-each-row).
--
-- No foreign key to purchase_events: its check would lock the event row, the very write this
-- saves; both rows come from one statement and events are never deleted.
--
-- Expand-only (docs/deployment.md#rolling-upgrade): a process of the previous build still writes
-- events with `dispatched_at` NULL and no row here, and still dispatches them itself; this build
-- dispatches both kinds, and the delivery claim below keeps a purchase's deliveries in order
-- behind an undispatched event of either kind.
CREATE TABLE event_outbox (
  event_id   bigint PRIMARY KEY,
  account_id uuid NOT NULL,
  purchase_id uuid NOT NULL
);
-- The claim's ordering check: an earlier event of the purchase not yet dispatched.
CREATE INDEX event_outbox_purchase_idx ON event_outbox (account_id, purchase_id, event_id);

-- The delivery claim of 047, its ordering rule also checking the outbox.
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
        -- The ordering rule: first in line for its purchase and destination. OFFSET 0
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
        AND NOT EXISTS (
          SELECT 1 FROM event_outbox o
          WHERE o.account_id = d.account_id AND o.purchase_id = d.purchase_id
            AND o.event_id < d.event_id
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
