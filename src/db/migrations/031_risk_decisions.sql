-- Risk decisions at payment time (docs/risk.md#decisions-as-records): one row per decision, written
-- in the transaction that records the attempt it decided. No card number: the BIN, the last four
-- digits and Chipin's keyed fingerprint of the card only (inside `inputs` and `card_fingerprint`).
CREATE TABLE risk_decisions (
  id                uuid PRIMARY KEY,
  account_id        uuid NOT NULL REFERENCES accounts (id),
  purchase_id       uuid NOT NULL REFERENCES purchases (id),
  offer_id          uuid NOT NULL REFERENCES offers (id),
  -- The attempt decided: the leader's checkout payment (accepted: the authorisation follows), or
  -- none for a pledge refused before its payment row exists.
  payment_id        uuid REFERENCES payments (id),
  pledge_id         uuid,
  purpose           text NOT NULL CHECK (purpose IN ('leader', 'pledge')),
  outcome           text NOT NULL CHECK (outcome IN ('accepted', 'refused')),
  amount_cents      bigint NOT NULL,
  -- What an accepted credit plan lends (docs/risk.md#the-rules, max_outstanding_cents): counted in
  -- the shopper's outstanding credit while its attempt is unresolved.
  credit_cents      bigint NOT NULL DEFAULT 0,
  reasons           jsonb NOT NULL,
  score             jsonb NOT NULL,
  inputs            jsonb NOT NULL,
  hook              jsonb,
  card_fingerprint  text,
  latency_ms        integer NOT NULL,
  created_at        timestamptz NOT NULL
);
-- The purchase's timeline and the history's per-purchase reads.
CREATE INDEX risk_decisions_purchase_idx ON risk_decisions (account_id, purchase_id);
-- A card's purchases, for the history (velocity, outstanding) and the card lists.
CREATE INDEX risk_decisions_card_idx ON risk_decisions (account_id, card_fingerprint) WHERE card_fingerprint IS NOT NULL;
-- The export by period and the retention purge.
CREATE INDEX risk_decisions_account_created_idx ON risk_decisions (account_id, created_at);

-- Every figure the score and the outstanding-credit and velocity rules read, in one call
-- (docs/risk.md#the-history-query). With lock keys (the payment-time decision), it first takes a
-- transaction-level advisory lock per shopper key (e-mail, phone, customer id, card), in order,
-- then reads with a fresh snapshot (each statement of a VOLATILE PL/pgSQL function takes one), so
-- that two decisions about the same shopper run one after the other and each sees the other's
-- reservation. PL/pgSQL also keeps the statement's plan for the connection, which PGlite would
-- otherwise plan again on every call. `p_purchase` (the purchase being decided) is left out.
CREATE FUNCTION chipin_shopper_history(
  p_account uuid, p_locks bigint[], p_email text, p_phone text, p_ref text, p_card text, p_purchase uuid, p_now timestamptz
) RETURNS TABLE (
  h_completed int, h_failed int, h_first_seen timestamptz, h_largest_paid bigint,
  h_plans_hour int, h_plans_day int, h_outstanding bigint, h_reserved bigint, h_declines int
) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(k) FROM (SELECT DISTINCT unnest(p_locks) AS k ORDER BY 1) AS keys;
  RETURN QUERY
  WITH mine AS MATERIALIZED (
    SELECT p.id, p.state, p.amount_cents, p.created_at, o.type <> 'SHARED' AS credit
      FROM purchases p JOIN offers o ON o.id = p.offer_id
     WHERE p.account_id = p_account
       AND p.id IS DISTINCT FROM p_purchase
       AND p.id IN (SELECT p2.id FROM clients c JOIN purchases p2 ON p2.account_id = c.account_id AND p2.client_id = c.id
                     WHERE c.account_id = p_account AND (lower(c.email) = p_email OR c.ref = p_ref)
                    UNION
                    SELECT p3.id FROM purchases p3 WHERE p3.account_id = p_account AND p3.phone_number = p_phone
                    UNION
                    SELECT d.purchase_id FROM risk_decisions d WHERE d.account_id = p_account AND d.card_fingerprint = p_card)
  ), started AS (
    -- A credit plan is started when its payment-time decision accepts it (once per purchase).
    SELECT min(d.created_at) AS at
      FROM mine m JOIN risk_decisions d ON d.account_id = p_account AND d.purchase_id = m.id
     WHERE m.credit AND d.purpose = 'leader' AND d.outcome = 'accepted'
     GROUP BY d.purchase_id
  )
  SELECT (SELECT count(*) FILTER (WHERE state IN ('SUCCESSFUL', 'REFUNDED')) FROM mine)::int,
         (SELECT count(*) FILTER (WHERE state = 'FAILED') FROM mine)::int,
         (SELECT min(created_at) FROM mine),
         (SELECT max(amount_cents) FILTER (WHERE state IN ('SUCCESSFUL', 'REFUNDED')) FROM mine)::bigint,
         -- No upper bound: `p_now` is read before the lock is waited for, so a decision that took
         -- it first may be stamped after `p_now`; it was started all the same (docs/risk.md#under-concurrency).
         (SELECT count(*) FROM started WHERE at > p_now - interval '1 hour')::int,
         (SELECT count(*) FROM started WHERE at > p_now - interval '1 day')::int,
         (SELECT coalesce(sum(i.amount_cents + i.fees_cents), 0)
            FROM mine m JOIN installments i ON i.account_id = p_account AND i.purchase_id = m.id
           WHERE m.state = 'LEADER_PROCESSED' AND i.state <> 'paid')::bigint,
         -- Accepted plans whose checkout is still unresolved: lent as soon as the PSP answers.
         (SELECT coalesce(sum(d.credit_cents), 0)
            FROM mine m JOIN risk_decisions d ON d.account_id = p_account AND d.purchase_id = m.id
                        JOIN payments pay ON pay.account_id = p_account AND pay.id = d.payment_id
           WHERE m.state = 'CREATED' AND d.outcome = 'accepted' AND d.credit_cents > 0
             AND pay.status IN ('pending', 'requires_action', 'authorized', 'captured'))::bigint,
         (SELECT count(*)
            FROM mine m JOIN payments pay ON pay.account_id = p_account AND pay.purchase_id = m.id
           WHERE pay.pledge_id IS NULL AND pay.status = 'declined' AND pay.decline_reason IS DISTINCT FROM 'risk_refused'
             AND pay.decline_reason IS DISTINCT FROM 'abandoned' AND pay.created_at > p_now - interval '180 days')::int;
END;
$$;
