-- What has been refunded on a purchase, kept on its row: the sum of its succeeded refund
-- allocations. The back office's CSV export shows it on every line, and summing the allocations
-- for each of a million rows was most of PostgreSQL's work per row: an index probe per purchase,
-- most of them finding nothing (docs/performance.md#the-csv-export).
--
-- * Kept by the trigger below, in the transaction of the write that changes a succeeded
--   allocation, whatever code (or build, during a rolling upgrade) makes it, as the home page's
--   running sums are (044). Every code path that writes an allocation holds the purchase's row
--   lock already (lockPayState), so the trigger's update takes no lock that path did not hold.
-- * The column is added, counted and given its trigger under this migration's lock of the table:
--   no allocation can change between the count and the trigger. Purchase reads wait for it
--   (docs/deployment.md).
-- * No index holds the column, so its updates can stay on the purchase's heap page (HOT).

ALTER TABLE purchases ADD COLUMN refunded_cents bigint NOT NULL DEFAULT 0;

UPDATE purchases p SET refunded_cents = r.cents
  FROM (SELECT account_id, purchase_id, sum(amount_cents) AS cents FROM refund_allocations WHERE state = 'succeeded' GROUP BY 1, 2) r
 WHERE p.id = r.purchase_id AND p.account_id = r.account_id;

CREATE FUNCTION chipin_purchase_refunded_of_allocation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.state = 'succeeded' THEN
    UPDATE purchases SET refunded_cents = refunded_cents - OLD.amount_cents WHERE id = OLD.purchase_id AND account_id = OLD.account_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.state = 'succeeded' THEN
    UPDATE purchases SET refunded_cents = refunded_cents + NEW.amount_cents WHERE id = NEW.purchase_id AND account_id = NEW.account_id;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER refund_allocations_refunded_insert AFTER INSERT ON refund_allocations FOR EACH ROW WHEN (NEW.state = 'succeeded')
  EXECUTE FUNCTION chipin_purchase_refunded_of_allocation();
CREATE TRIGGER refund_allocations_refunded_update AFTER UPDATE ON refund_allocations FOR EACH ROW
  WHEN ((OLD.state = 'succeeded' OR NEW.state = 'succeeded')
        AND (OLD.state <> NEW.state OR OLD.amount_cents <> NEW.amount_cents OR OLD.purchase_id <> NEW.purchase_id OR OLD.account_id <> NEW.account_id))
  EXECUTE FUNCTION chipin_purchase_refunded_of_allocation();
CREATE TRIGGER refund_allocations_refunded_delete AFTER DELETE ON refund_allocations FOR EACH ROW WHEN (OLD.state = 'succeeded')
  EXECUTE FUNCTION chipin_purchase_refunded_of_allocation();
