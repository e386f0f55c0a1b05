-- The back-office home page's figures (src/dashboard/home-stats.ts) kept as running sums, so the
-- page reads about 30 days x 96 slots of one account instead of every purchase, payment, refund,
-- event and delivery of its window (docs/performance.md#the-home-pages-running-sums).
--
-- * A slot is the 15 minutes (UTC) in which the purchase (the delivery) was created. Every time
--   zone in use today is offset from UTC by a multiple of 15 minutes, so the page groups slots
--   into the account's own days, and a change of the account's time zone needs no rebuild.
-- * The sums are kept by the triggers below, in the transaction of the write that changes a
--   figure, whatever code (or build, during a rolling upgrade) makes it.
-- * `shard` is the writing connection's (pg_backend_pid() % 8): concurrent transactions of one
--   account add to different rows, so the busiest account's current slot is not one row every
--   write of that account queues on. The page sums the shards.
-- * A figure is "now": a purchase created 20 days ago and paid today moves from `created` alone
--   to `paid` in its creation slot, as the page counted it before (purchases created in the
--   window, and what became of them).

CREATE TABLE purchase_stats (
  account_id         uuid NOT NULL REFERENCES accounts (id),
  slot               timestamptz NOT NULL,
  currency           text NOT NULL,
  shard              integer NOT NULL,
  -- Purchases created, their amount, and how many are now SUCCESSFUL, FAILED, REFUNDED.
  created            integer NOT NULL DEFAULT 0,
  amount_cents       bigint NOT NULL DEFAULT 0,
  paid               integer NOT NULL DEFAULT 0,
  failed             integer NOT NULL DEFAULT 0,
  refunded           integer NOT NULL DEFAULT 0,
  -- Captured on those purchases' payments, and given back by their succeeded refund allocations.
  collected_cents    bigint NOT NULL DEFAULT 0,
  refunded_cents     bigint NOT NULL DEFAULT 0,
  -- Their pots' closings, told by the closing event (src/use-cases/close-pot.ts,
  -- settle-pot-deadline.ts): covered by the pledges (no rest_cents), the rest charged to the
  -- leader at the deadline, or that rest refused. A leader who invited nobody (payment_id) had no pot.
  pots_by_friends    integer NOT NULL DEFAULT 0,
  pots_by_leader     integer NOT NULL DEFAULT 0,
  pots_rest_refused  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, slot, currency, shard)
) WITH (fillfactor = 50); -- room on the page for the next version of a row: its updates stay HOT

-- Webhooks and notifications by the slot of their creation: delivered, failing (failed, or
-- pending after a failure), pending (not failed yet). Cancelled ones count in none.
CREATE TABLE delivery_stats (
  account_id  uuid NOT NULL REFERENCES accounts (id),
  slot        timestamptz NOT NULL,
  shard       integer NOT NULL,
  delivered   integer NOT NULL DEFAULT 0,
  failing     integer NOT NULL DEFAULT 0,
  pending     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, slot, shard)
) WITH (fillfactor = 50);

CREATE FUNCTION chipin_stats_slot(at timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00') $$;

CREATE FUNCTION chipin_stats_shard() RETURNS integer LANGUAGE sql STABLE
  AS $$ SELECT pg_backend_pid() % 8 $$;

-- Adds deltas, merged by row and taken in key order (two statements of colliding shards lock
-- their rows in the same order, so they cannot deadlock); all-zero deltas write nothing.
-- PL/pgSQL: its statement's plan is kept for the connection's later calls.
CREATE FUNCTION chipin_purchase_stats_add(d purchase_stats[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO purchase_stats AS s
    SELECT account_id, slot, currency, shard, sum(created), sum(amount_cents), sum(paid), sum(failed), sum(refunded),
           sum(collected_cents), sum(refunded_cents), sum(pots_by_friends), sum(pots_by_leader), sum(pots_rest_refused)
      FROM unnest(d)
     GROUP BY account_id, slot, currency, shard
    HAVING (sum(created), sum(amount_cents), sum(paid), sum(failed), sum(refunded), sum(collected_cents), sum(refunded_cents),
            sum(pots_by_friends), sum(pots_by_leader), sum(pots_rest_refused)) IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
     ORDER BY account_id, slot, currency, shard
  ON CONFLICT (account_id, slot, currency, shard) DO UPDATE SET
    created = s.created + excluded.created,
    amount_cents = s.amount_cents + excluded.amount_cents,
    paid = s.paid + excluded.paid,
    failed = s.failed + excluded.failed,
    refunded = s.refunded + excluded.refunded,
    collected_cents = s.collected_cents + excluded.collected_cents,
    refunded_cents = s.refunded_cents + excluded.refunded_cents,
    pots_by_friends = s.pots_by_friends + excluded.pots_by_friends,
    pots_by_leader = s.pots_by_leader + excluded.pots_by_leader,
    pots_rest_refused = s.pots_rest_refused + excluded.pots_rest_refused;
END
$$;

CREATE FUNCTION chipin_delivery_stats_add(d delivery_stats[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_stats AS s
    SELECT account_id, slot, shard, sum(delivered), sum(failing), sum(pending)
      FROM unnest(d)
     GROUP BY account_id, slot, shard
    HAVING (sum(delivered), sum(failing), sum(pending)) IS DISTINCT FROM (0, 0, 0)
     ORDER BY account_id, slot, shard
  ON CONFLICT (account_id, slot, shard) DO UPDATE SET
    delivered = s.delivered + excluded.delivered,
    failing = s.failing + excluded.failing,
    pending = s.pending + excluded.pending;
END
$$;

-- A purchase's own figures: +1 for the row as it is now, -1 for the row as it was.
CREATE FUNCTION chipin_purchase_stats_row(p purchases, sign integer) RETURNS purchase_stats LANGUAGE sql STABLE
  AS $$ SELECT ROW(p.account_id, chipin_stats_slot(p.created_at), p.currency, chipin_stats_shard(), sign, sign * p.amount_cents,
                   sign * (p.state = 'SUCCESSFUL')::int, sign * (p.state = 'FAILED')::int, sign * (p.state = 'REFUNDED')::int,
                   0, 0, 0, 0, 0)::purchase_stats $$;

CREATE FUNCTION chipin_purchase_stats_of_purchase() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM chipin_purchase_stats_add(ARRAY[chipin_purchase_stats_row(NEW, 1)]);
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM chipin_purchase_stats_add(ARRAY[chipin_purchase_stats_row(OLD, -1), chipin_purchase_stats_row(NEW, 1)]);
  ELSE
    PERFORM chipin_purchase_stats_add(ARRAY[chipin_purchase_stats_row(OLD, -1)]);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER purchases_stats_insert AFTER INSERT ON purchases FOR EACH ROW EXECUTE FUNCTION chipin_purchase_stats_of_purchase();
-- Only a change of what is counted: most updates (updated_at, expiry, the pot's figures) pass by.
CREATE TRIGGER purchases_stats_update AFTER UPDATE ON purchases FOR EACH ROW
  WHEN ((OLD.state IN ('SUCCESSFUL', 'FAILED', 'REFUNDED') OR NEW.state IN ('SUCCESSFUL', 'FAILED', 'REFUNDED')) AND OLD.state IS DISTINCT FROM NEW.state
        OR OLD.amount_cents IS DISTINCT FROM NEW.amount_cents OR OLD.currency IS DISTINCT FROM NEW.currency
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.account_id IS DISTINCT FROM NEW.account_id)
  EXECUTE FUNCTION chipin_purchase_stats_of_purchase();
CREATE TRIGGER purchases_stats_delete AFTER DELETE ON purchases FOR EACH ROW EXECUTE FUNCTION chipin_purchase_stats_of_purchase();

-- Money on a purchase (a payment's capture, a refund allocation's success): added to the slot of
-- the purchase it is on.
CREATE FUNCTION chipin_purchase_stats_money(p_account uuid, p_purchase uuid, p_collected bigint, p_refunded bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM chipin_purchase_stats_add(ARRAY(
    SELECT ROW(p.account_id, chipin_stats_slot(p.created_at), p.currency, chipin_stats_shard(), 0, 0, 0, 0, 0, p_collected, p_refunded, 0, 0, 0)::purchase_stats
      FROM purchases p WHERE p.id = p_purchase AND p.account_id = p_account));
END
$$;

CREATE FUNCTION chipin_purchase_stats_of_payment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM chipin_purchase_stats_money(OLD.account_id, OLD.purchase_id, -OLD.captured_cents, 0);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM chipin_purchase_stats_money(NEW.account_id, NEW.purchase_id, NEW.captured_cents, 0);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER payments_stats_insert AFTER INSERT ON payments FOR EACH ROW WHEN (NEW.captured_cents <> 0)
  EXECUTE FUNCTION chipin_purchase_stats_of_payment();
CREATE TRIGGER payments_stats_update AFTER UPDATE ON payments FOR EACH ROW
  WHEN (OLD.captured_cents <> NEW.captured_cents OR OLD.purchase_id <> NEW.purchase_id OR OLD.account_id <> NEW.account_id)
  EXECUTE FUNCTION chipin_purchase_stats_of_payment();
CREATE TRIGGER payments_stats_delete AFTER DELETE ON payments FOR EACH ROW WHEN (OLD.captured_cents <> 0)
  EXECUTE FUNCTION chipin_purchase_stats_of_payment();

CREATE FUNCTION chipin_purchase_stats_of_refund_allocation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.state = 'succeeded' THEN
    PERFORM chipin_purchase_stats_money(OLD.account_id, OLD.purchase_id, 0, -OLD.amount_cents);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.state = 'succeeded' THEN
    PERFORM chipin_purchase_stats_money(NEW.account_id, NEW.purchase_id, 0, NEW.amount_cents);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER refund_allocations_stats_insert AFTER INSERT ON refund_allocations FOR EACH ROW WHEN (NEW.state = 'succeeded')
  EXECUTE FUNCTION chipin_purchase_stats_of_refund_allocation();
CREATE TRIGGER refund_allocations_stats_update AFTER UPDATE ON refund_allocations FOR EACH ROW
  WHEN ((OLD.state = 'succeeded' OR NEW.state = 'succeeded')
        AND (OLD.state <> NEW.state OR OLD.amount_cents <> NEW.amount_cents OR OLD.purchase_id <> NEW.purchase_id OR OLD.account_id <> NEW.account_id))
  EXECUTE FUNCTION chipin_purchase_stats_of_refund_allocation();
CREATE TRIGGER refund_allocations_stats_delete AFTER DELETE ON refund_allocations FOR EACH ROW WHEN (OLD.state = 'succeeded')
  EXECUTE FUNCTION chipin_purchase_stats_of_refund_allocation();

-- A pot's closing event. Events are never updated; a deleted one is taken back.
CREATE FUNCTION chipin_purchase_stats_of_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  e purchase_events := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  sign integer := CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  PERFORM chipin_purchase_stats_add(ARRAY(
    SELECT ROW(p.account_id, chipin_stats_slot(p.created_at), p.currency, chipin_stats_shard(), 0, 0, 0, 0, 0, 0, 0,
               sign * (e.to_state = 'SUCCESSFUL' AND e.data->>'rest_cents' IS NULL)::int,
               sign * (e.to_state = 'SUCCESSFUL' AND e.data->>'rest_cents' IS NOT NULL)::int,
               sign * (e.to_state = 'FAILED' AND e.data->>'rest_cents' IS NOT NULL)::int)::purchase_stats
      FROM purchases p WHERE p.id = e.purchase_id AND p.account_id = e.account_id AND p.pot_deadline_at IS NOT NULL));
  RETURN NULL;
END
$$;
CREATE TRIGGER purchase_events_stats_insert AFTER INSERT ON purchase_events FOR EACH ROW
  WHEN (NEW.type IN ('purchase.succeeded', 'purchase.failed') AND NEW.data->>'payment_id' IS NULL)
  EXECUTE FUNCTION chipin_purchase_stats_of_event();
CREATE TRIGGER purchase_events_stats_delete AFTER DELETE ON purchase_events FOR EACH ROW
  WHEN (OLD.type IN ('purchase.succeeded', 'purchase.failed') AND OLD.data->>'payment_id' IS NULL)
  EXECUTE FUNCTION chipin_purchase_stats_of_event();

-- Deliveries change many rows per statement (the worker's batch of successes), so their sums are
-- taken per statement from its transition tables, in key order.
CREATE FUNCTION chipin_delivery_stats_row(account_id uuid, created_at timestamptz, status text, failures integer, sign integer)
  RETURNS delivery_stats LANGUAGE sql STABLE
  AS $$ SELECT ROW(account_id, chipin_stats_slot(created_at), chipin_stats_shard(),
                   sign * (status = 'succeeded')::int,
                   sign * (status = 'failed' OR (status = 'pending' AND failures > 0))::int,
                   sign * (status = 'pending' AND failures = 0)::int)::delivery_stats $$;

CREATE FUNCTION chipin_delivery_stats_of_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM chipin_delivery_stats_add(ARRAY(SELECT chipin_delivery_stats_row(n.account_id, n.created_at, n.status, n.failures, 1) FROM new_rows n));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM chipin_delivery_stats_add(ARRAY(
      SELECT r FROM old_rows o JOIN new_rows n ON n.id = o.id,
             LATERAL (VALUES (chipin_delivery_stats_row(o.account_id, o.created_at, o.status, o.failures, -1)),
                             (chipin_delivery_stats_row(n.account_id, n.created_at, n.status, n.failures, 1))) AS v(r)
       WHERE (o.status, o.failures > 0, o.account_id, o.created_at) IS DISTINCT FROM (n.status, n.failures > 0, n.account_id, n.created_at)));
  ELSE
    PERFORM chipin_delivery_stats_add(ARRAY(SELECT chipin_delivery_stats_row(o.account_id, o.created_at, o.status, o.failures, -1) FROM old_rows o));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER deliveries_stats_insert AFTER INSERT ON deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION chipin_delivery_stats_of_deliveries();
CREATE TRIGGER deliveries_stats_update AFTER UPDATE ON deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION chipin_delivery_stats_of_deliveries();
CREATE TRIGGER deliveries_stats_delete AFTER DELETE ON deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION chipin_delivery_stats_of_deliveries();

-- Every sum again from the rows themselves: for the rows already there when this migration runs,
-- after a bulk load made with triggers off (bench/scale-seed.sql), or to check the sums
-- (test/dashboard/home-stats-sums.test.ts compares them). Writes to the five tables wait meanwhile,
-- so no change is missed or counted twice.
CREATE FUNCTION chipin_home_stats_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  LOCK TABLE purchases, payments, refund_allocations, purchase_events, deliveries IN SHARE MODE;
  DELETE FROM purchase_stats;
  DELETE FROM delivery_stats;
  INSERT INTO purchase_stats
    SELECT p.account_id, chipin_stats_slot(p.created_at), p.currency, 0, count(*), sum(p.amount_cents),
           count(*) FILTER (WHERE p.state = 'SUCCESSFUL'), count(*) FILTER (WHERE p.state = 'FAILED'), count(*) FILTER (WHERE p.state = 'REFUNDED'),
           coalesce(sum(m.collected), 0), coalesce(sum(m.refunded), 0),
           -- A closing event counts on a purchase that had a pot, as in the trigger.
           coalesce(sum(m.friends) FILTER (WHERE p.pot_deadline_at IS NOT NULL), 0),
           coalesce(sum(m.leader) FILTER (WHERE p.pot_deadline_at IS NOT NULL), 0),
           coalesce(sum(m.refused) FILTER (WHERE p.pot_deadline_at IS NOT NULL), 0)
      FROM purchases p
      LEFT JOIN (SELECT account_id, purchase_id, sum(collected) AS collected, sum(refunded) AS refunded,
                        sum(friends) AS friends, sum(leader) AS leader, sum(refused) AS refused
                   FROM (SELECT account_id, purchase_id, captured_cents AS collected, 0 AS refunded, 0 AS friends, 0 AS leader, 0 AS refused
                           FROM payments WHERE captured_cents <> 0
                         UNION ALL
                         SELECT account_id, purchase_id, 0, amount_cents, 0, 0, 0 FROM refund_allocations WHERE state = 'succeeded'
                         UNION ALL
                         SELECT account_id, purchase_id, 0, 0,
                                (to_state = 'SUCCESSFUL' AND data->>'rest_cents' IS NULL)::int,
                                (to_state = 'SUCCESSFUL' AND data->>'rest_cents' IS NOT NULL)::int,
                                (to_state = 'FAILED' AND data->>'rest_cents' IS NOT NULL)::int
                           FROM purchase_events WHERE type IN ('purchase.succeeded', 'purchase.failed') AND data->>'payment_id' IS NULL) x
                  GROUP BY account_id, purchase_id) m
        ON m.account_id = p.account_id AND m.purchase_id = p.id
     GROUP BY 1, 2, 3;
  INSERT INTO delivery_stats (account_id, slot, shard, delivered, failing, pending)
    SELECT account_id, chipin_stats_slot(created_at), 0,
           count(*) FILTER (WHERE status = 'succeeded'),
           count(*) FILTER (WHERE status = 'failed' OR (status = 'pending' AND failures > 0)),
           count(*) FILTER (WHERE status = 'pending' AND failures = 0)
      FROM deliveries GROUP BY 1, 2;
END
$$;

SELECT chipin_home_stats_rebuild();

-- The page's delivery counts now come from delivery_stats: the covering index migration 043 made
-- for counting them row by row has no reader left, and every delivery write paid for it.
DROP INDEX deliveries_account_status_idx;

-- The page's last failing delivery: newest first among the failing ones only, so the first row
-- created in the window ends the scan instead of a sort of the window's deliveries.
CREATE INDEX deliveries_failing_idx ON deliveries (account_id, updated_at DESC)
  WHERE status = 'failed' OR (status = 'pending' AND failures > 0);
