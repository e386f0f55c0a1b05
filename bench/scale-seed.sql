-- Seeding helpers of `npm run bench:scale` (bench/scale.ts), created in the benchmark's own
-- database (chipin_scale_<ts>, or BENCH_DATABASE_URL) and nowhere else. Idempotent: the runner
-- loads this file at every run.
--
-- Model (documented in bench/scale.ts too): 1,000 merchant accounts, the first (idx 0) the one
-- `chipin merchant create` made, holding 30 % of the purchases; the others are copies of its rows
-- (account, offers, API key, dashboard user). Purchase number n (0, 1, 2 ...) belongs to client
-- n / 2 (each client buys twice), and the client's account is drawn from a hash of its number,
-- so a batch [lo, hi) with even bounds is self-contained and levels add rows to the same model.
-- Purchases are spread uniformly over the last `span_days` days (365 by default); every purchase
-- has its events (all dispatched), and by its state its payments, installments, pledges,
-- refunds and their allocations, ledger entries, jobs (done, or due in the future), a payment-time
-- risk decision (credit offers) and delivered webhooks (paymentProcessed, paymentFailed,
-- pledgerContributes: the default triggers) with one attempt each.
--
-- Foreign keys are not checked while seeding (session_replication_role = replica, for the batch's
-- transaction only): the rows are consistent by construction, and bench/scale/seed.ts can count
-- orphans (BENCH_SCALE_CHECK=1). Every index and CHECK constraint stays in place.

CREATE TABLE IF NOT EXISTS bench_scale_accounts (
  idx       integer PRIMARY KEY,
  id        uuid NOT NULL UNIQUE,
  shared    uuid NOT NULL,
  inst3     uuid NOT NULL,
  inst4     uuid NOT NULL,
  deferred  uuid NOT NULL
);

CREATE TABLE IF NOT EXISTS bench_scale_meta (
  id             boolean PRIMARY KEY DEFAULT true CHECK (id),
  big_email      text NOT NULL,
  accounts       integer NOT NULL,
  big_share_pct  integer NOT NULL,
  span_days      integer NOT NULL,
  -- Purchases seeded so far: numbers 0 .. seeded - 1.
  seeded         bigint NOT NULL DEFAULT 0,
  -- One entry per level seeded: {level, seconds, ...} (bench/scale/seed.ts writes it).
  seed_log       jsonb NOT NULL DEFAULT '[]',
  -- Secondary indexes dropped for a seed and not yet recreated (an interrupted seed): their
  -- pg_get_indexdef, recreated by the next run before anything else.
  dropped_indexes jsonb
);

-- The other accounts, copied from the big one (made by `chipin merchant create`).
CREATE OR REPLACE PROCEDURE bench_scale_setup(p_big uuid, p_big_email text, p_accounts integer, p_big_share_pct integer, p_span_days integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_cols text;
BEGIN
  IF EXISTS (SELECT 1 FROM bench_scale_meta) THEN
    RETURN;
  END IF;
  CREATE TEMP TABLE bs_new_accounts ON COMMIT DROP AS
    SELECT i AS idx, gen_random_uuid() AS id FROM generate_series(1, p_accounts - 1) i;
  INSERT INTO accounts (id, name, created_at, time_zone, country)
    SELECT n.id, 'Scale Shop ' || n.idx, now() - interval '3 years', a.time_zone, a.country
      FROM bs_new_accounts n, accounts a WHERE a.id = p_big;

  -- Every column of the big account's offers but id and account_id, whatever later migrations add.
  SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) INTO v_cols
    FROM information_schema.columns
   WHERE table_schema = 'public' AND table_name = 'offers' AND column_name NOT IN ('id', 'account_id');
  CREATE TEMP TABLE bs_new_offers ON COMMIT DROP AS
    SELECT n.idx, n.id AS account_id, o.id AS source, gen_random_uuid() AS id
      FROM bs_new_accounts n, offers o WHERE o.account_id = p_big;
  EXECUTE format('INSERT INTO offers (id, account_id, %1$s) SELECT n.id, n.account_id, %2$s FROM bs_new_offers n JOIN offers o ON o.id = n.source',
                 v_cols, (SELECT string_agg('o.' || c, ', ') FROM unnest(string_to_array(v_cols, ', ')) c));

  -- An API key each (a random hash: no secret opens them) and a dashboard user each.
  INSERT INTO api_keys (id, account_id, secret_hash, created_at)
    SELECT 'key_' || gen_random_uuid(), n.id, decode(md5(random()::text) || md5(random()::text), 'hex'), now() - interval '3 years'
      FROM bs_new_accounts n;
  INSERT INTO dashboard_users (id, account_id, email, password_hash, created_at, role)
    SELECT gen_random_uuid(), n.id, 'owner-' || n.idx || '@scale-shops.example', u.password_hash, now() - interval '3 years', 'admin'
      FROM bs_new_accounts n, dashboard_users u WHERE u.account_id = p_big;

  INSERT INTO bench_scale_accounts (idx, id, shared, inst3, inst4, deferred)
    SELECT 0, p_big,
      (SELECT id FROM offers WHERE account_id = p_big AND type = 'SHARED' ORDER BY created_at, id LIMIT 1),
      (SELECT id FROM offers WHERE account_id = p_big AND type = 'INSTALLMENTS' AND installments = 3 ORDER BY created_at, id LIMIT 1),
      (SELECT id FROM offers WHERE account_id = p_big AND type = 'INSTALLMENTS' AND installments = 4 ORDER BY created_at, id LIMIT 1),
      (SELECT id FROM offers WHERE account_id = p_big AND type = 'DEFERRED' ORDER BY created_at, id LIMIT 1);
  INSERT INTO bench_scale_accounts (idx, id, shared, inst3, inst4, deferred)
    SELECT n.idx, n.id,
      (SELECT o.id FROM bs_new_offers o JOIN bench_scale_accounts b ON b.idx = 0 AND o.source = b.shared WHERE o.idx = n.idx),
      (SELECT o.id FROM bs_new_offers o JOIN bench_scale_accounts b ON b.idx = 0 AND o.source = b.inst3 WHERE o.idx = n.idx),
      (SELECT o.id FROM bs_new_offers o JOIN bench_scale_accounts b ON b.idx = 0 AND o.source = b.inst4 WHERE o.idx = n.idx),
      (SELECT o.id FROM bs_new_offers o JOIN bench_scale_accounts b ON b.idx = 0 AND o.source = b.deferred WHERE o.idx = n.idx)
      FROM bs_new_accounts n;

  INSERT INTO bench_scale_meta (big_email, accounts, big_share_pct, span_days) VALUES (p_big_email, p_accounts, p_big_share_pct, p_span_days);
END
$$;

-- Purchases number p_lo .. p_hi - 1 (even bounds) and everything that hangs off them, in one transaction.
CREATE OR REPLACE PROCEDURE bench_scale_seed_batch(p_lo bigint, p_hi bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_now       timestamptz := now();
  v_span      integer;
  v_big_pct   integer;
  v_accounts  integer;
BEGIN
  IF p_lo % 2 <> 0 OR p_hi % 2 <> 0 OR p_hi <= p_lo THEN
    RAISE EXCEPTION 'bench_scale_seed_batch: bounds must be even and increasing, got % .. %', p_lo, p_hi;
  END IF;
  SELECT span_days, big_share_pct, accounts INTO v_span, v_big_pct, v_accounts FROM bench_scale_meta;
  IF (SELECT seeded FROM bench_scale_meta) <> p_lo THEN
    RAISE EXCEPTION 'bench_scale_seed_batch: % purchases are seeded, the batch starts at %', (SELECT seeded FROM bench_scale_meta), p_lo;
  END IF;
  PERFORM set_config('session_replication_role', 'replica', true);
  PERFORM set_config('synchronous_commit', 'off', true);

  -- Clients: two purchases each; 30 % of them (by a hash of their number) at the big account.
  CREATE TEMP TABLE bs_c ON COMMIT DROP AS
    SELECT c, gen_random_uuid() AS id,
      CASE WHEN (hashint8extended(c, 11) & 2147483647) % 100 < v_big_pct THEN 0
           ELSE 1 + ((hashint8extended(c, 12) & 2147483647) % (v_accounts - 1))::integer END AS acc
      FROM generate_series(p_lo / 2, p_hi / 2 - 1) c;

  -- The purchases' draws.
  CREATE TEMP TABLE bs_r ON COMMIT DROP AS
    SELECT n, c.c, c.acc, a.id AS account_id, c.id AS client_id, gen_random_uuid() AS id,
      v_now - random() * v_span * interval '1 day' AS created_at,
      (5000 + floor(random() * 1451) * 100)::bigint AS amount,
      random() AS r_offer, random() AS r_state, random() AS r_x, random() AS r_pot, random() AS r_refund, random() AS r_phone,
      a.shared, a.inst3, a.inst4, a.deferred
      FROM generate_series(p_lo, p_hi - 1) n
      JOIN bs_c c ON c.c = n / 2
      JOIN bench_scale_accounts a ON a.idx = c.acc;

  -- Offer (50 % SHARED, 25 % 3x, 10 % 4x, 15 % DEFERRED 30 days) and state. CREATED only in the
  -- last 12 hours (an unpaid purchase expires after 24); a credit plan is LEADER_PROCESSED until
  -- its last installment (60, 90 days) or its deferred charge (30 days), SUCCESSFUL after; a
  -- SHARED purchase is never left LEADER_PROCESSED (no pot is open).
  CREATE TEMP TABLE bs_k ON COMMIT DROP AS
    SELECT r.*,
      CASE WHEN r_offer < 0.50 THEN 0 WHEN r_offer < 0.75 THEN 3 WHEN r_offer < 0.85 THEN 4 ELSE 1 END AS n_inst,
      CASE WHEN r_offer < 0.50 THEN 0 WHEN r_offer < 0.75 THEN 60 WHEN r_offer < 0.85 THEN 90 ELSE 30 END AS plan_days,
      CASE WHEN created_at > v_now - interval '12 hours' AND r_x < 0.4 THEN 'CREATED'
           WHEN r_state < 0.60 THEN 'SUCCESSFUL'
           WHEN r_state < 0.70 THEN 'LEADER_PROCESSED'
           WHEN r_state < 0.76 THEN 'REFUNDED'
           WHEN r_state < 0.84 THEN 'FAILED'
           WHEN r_state < 0.98 THEN 'CANCELLED'
           ELSE 'ABORTED' END AS s0
      FROM bs_r r;

  CREATE TEMP TABLE bs_p ON COMMIT DROP AS
    WITH s AS (
      SELECT k.*,
        CASE WHEN n_inst = 0 AND s0 = 'LEADER_PROCESSED' THEN 'SUCCESSFUL'
             WHEN n_inst > 0 AND s0 IN ('SUCCESSFUL', 'REFUNDED') AND created_at > v_now - (plan_days + 1) * interval '1 day' THEN 'LEADER_PROCESSED'
             WHEN n_inst > 0 AND s0 = 'LEADER_PROCESSED' AND created_at <= v_now - (plan_days + 1) * interval '1 day' THEN 'SUCCESSFUL'
             ELSE s0 END AS state,
        CASE n_inst WHEN 0 THEN shared WHEN 3 THEN inst3 WHEN 4 THEN inst4 ELSE deferred END AS offer_id,
        least(v_now, created_at + interval '1 second' + random() * interval '20 minutes') AS t1
        FROM bs_k k
    ), t AS (
      SELECT s.*,
        n_inst = 0 AND r_pot < 0.2 AND state IN ('SUCCESSFUL', 'REFUNDED') AS pot,
        state = 'SUCCESSFUL' AND r_refund < 0.03 AS partial_refund
        FROM s
    ), u AS (
      SELECT t.*,
        -- Completion: the pot covered within its 48 hours, the plan's last charge, else the leader's payment.
        least(v_now, CASE WHEN pot THEN t1 + random() * interval '47 hours'
                          WHEN n_inst > 0 THEN created_at + plan_days * interval '1 day' + random() * interval '6 hours'
                          ELSE t1 END) AS t2,
        CASE WHEN pot THEN (amount / 3) ELSE amount END AS leader_cents,
        -- Installments paid so far: all of a finished plan, else one a month since the first.
        CASE WHEN n_inst IN (3, 4) AND state IN ('SUCCESSFUL', 'REFUNDED') THEN n_inst
             WHEN n_inst IN (3, 4) AND state = 'LEADER_PROCESSED' THEN least(n_inst - 1, 1 + floor(extract(epoch FROM v_now - created_at) / 86400 / 30)::integer)
             WHEN n_inst = 1 AND state IN ('SUCCESSFUL', 'REFUNDED') THEN 1
             ELSE 0 END AS paid_inst,
        CASE n_inst WHEN 3 THEN 150 WHEN 4 THEN 220 ELSE 0 END AS fee_bps
        FROM t
    )
    SELECT u.*,
      least(v_now, t2 + random() * interval '10 days') AS t3,
      gen_random_uuid() AS pay0,
      gen_random_uuid() AS refund_id
      FROM u;

  INSERT INTO clients (id, account_id, ref, email, first_name, last_name, created_at, updated_at)
    SELECT client_id, account_id, NULL, 'c' || c || '@shoppers.example', 'Client', 'Number ' || c, min(created_at), max(created_at)
      FROM bs_p GROUP BY client_id, account_id, c
     ORDER BY min(created_at);

  INSERT INTO purchases (id, account_id, offer_id, client_id, state, comment, ref, title, subtitle, description, picture_url,
      amount_cents, currency, language, phone_number, callback_url, cancel_url, notification_url, metadata, products,
      created_at, updated_at, attempts, leader_share_cents, pot_deadline_at, guarantee_payment_id, payment_method_id, error_notification_url)
    SELECT id, account_id, offer_id, client_id, state,
      CASE state WHEN 'CREATED' THEN 'Waiting for the leader to pay.' WHEN 'ABORTED' THEN 'Aborted by the merchant.'
                 WHEN 'LEADER_PROCESSED' THEN 'The leader''s payment is authorised.' WHEN 'SUCCESSFUL' THEN 'The full amount is collected.'
                 WHEN 'FAILED' THEN 'The payment could not be completed.' WHEN 'CANCELLED' THEN 'Expired unpaid.' ELSE 'Fully refunded.' END,
      'ORD-' || n, 'Order ' || n, NULL, NULL, NULL,
      amount, 'EUR', CASE WHEN n % 3 = 0 THEN 'en_GB' ELSE 'fr_FR' END,
      CASE WHEN r_phone < 0.3 THEN '+3361' || lpad((c % 100000000)::text, 8, '0') END,
      'https://shop-' || acc || '.example/chipin/return', 'https://shop-' || acc || '.example/chipin/cancel', NULL,
      jsonb_build_object('order_id', 'ORD-' || n), '[]'::jsonb,
      created_at,
      CASE state WHEN 'CREATED' THEN created_at WHEN 'CANCELLED' THEN created_at + interval '24 hours'
                 WHEN 'REFUNDED' THEN t3 WHEN 'SUCCESSFUL' THEN t2 ELSE t1 END,
      CASE WHEN state IN ('CREATED', 'CANCELLED', 'ABORTED') THEN 0 ELSE 1 END,
      CASE WHEN state IN ('LEADER_PROCESSED', 'SUCCESSFUL', 'REFUNDED') THEN leader_cents END,
      CASE WHEN pot THEN t1 + interval '48 hours' END,
      NULL, NULL, NULL
      FROM bs_p ORDER BY created_at;

  -- Pledges of the pots: two friends each share the rest.
  CREATE TEMP TABLE bs_pl ON COMMIT DROP AS
    SELECT p.id AS purchase_id, p.account_id, p.n, k AS position, gen_random_uuid() AS id, gen_random_uuid() AS payment_id,
      CASE WHEN k = 1 THEN (p.amount - p.leader_cents) / 2 ELSE p.amount - p.leader_cents - (p.amount - p.leader_cents) / 2 END AS amount,
      p.t1 + (p.t2 - p.t1) * k / 2 AS paid_at, p.t1 AS created_at, p.state
      FROM bs_p p CROSS JOIN generate_series(1, 2) k
     WHERE p.pot;

  -- Payments: the leader's (or its refusal), the later installments, the pledges.
  CREATE TEMP TABLE bs_pay ON COMMIT DROP AS
    SELECT p.pay0 AS id, p.account_id, p.id AS purchase_id, NULL::uuid AS pledge_id,
      CASE p.n_inst WHEN 0 THEN 'leader_share' WHEN 1 THEN 'deferred' ELSE 'first_installment' END AS purpose,
      CASE WHEN p.n_inst IN (3, 4) THEN p.amount / p.n_inst + p.amount % p.n_inst + (p.amount * p.fee_bps / 10000) / p.n_inst
           ELSE p.leader_cents END AS amount,
      p.state, p.created_at AS purchase_created_at, p.t1 AS at,
      CASE WHEN p.n_inst = 1 AND p.state IN ('SUCCESSFUL', 'REFUNDED') THEN p.t2 ELSE p.t1 END AS captured_at,
      1 AS inst_index, 'leader' AS payer, p.t3, p.partial_refund, p.c
      FROM bs_p p WHERE p.state IN ('LEADER_PROCESSED', 'SUCCESSFUL', 'REFUNDED', 'FAILED')
    UNION ALL
    SELECT gen_random_uuid(), p.account_id, p.id, NULL, 'installment',
      p.amount / p.n_inst + (p.amount * p.fee_bps / 10000) / p.n_inst,
      p.state, p.created_at, least(v_now, p.created_at + (i - 1) * 30 * interval '1 day' + random() * interval '6 hours'), NULL,
      i, 'leader', p.t3, false, p.c
      FROM bs_p p CROSS JOIN LATERAL generate_series(2, p.paid_inst) i
     WHERE p.n_inst IN (3, 4)
    UNION ALL
    SELECT pl.payment_id, pl.account_id, pl.purchase_id, pl.id, 'pledge', pl.amount, pl.state, pl.created_at, pl.paid_at, NULL,
      NULL, 'pledger', p.t3, false, p.c
      FROM bs_pl pl JOIN bs_p p ON p.id = pl.purchase_id;

  ALTER TABLE bs_pay ADD COLUMN status text, ADD COLUMN captured bigint, ADD COLUMN refunded bigint;
  UPDATE bs_pay SET
    status = CASE WHEN state = 'FAILED' THEN 'declined'
                  WHEN purpose = 'deferred' AND state = 'LEADER_PROCESSED' THEN 'authorized'
                  WHEN state = 'REFUNDED' THEN 'refunded'
                  ELSE 'captured' END,
    captured = CASE WHEN state = 'FAILED' OR (purpose = 'deferred' AND state = 'LEADER_PROCESSED') THEN 0 ELSE amount END,
    refunded = CASE WHEN state = 'REFUNDED' THEN amount WHEN partial_refund AND inst_index = 1 THEN greatest(1, amount / 10) ELSE 0 END;

  INSERT INTO pledges (id, account_id, purchase_id, client_id, name, email, phone_number, amount_cents, position, state,
      paying_until, payment_id, paid_at, reminded_at, closed_reason, created_at, updated_at)
    SELECT id, account_id, purchase_id, NULL, 'Friend ' || position, 'friend' || position || '-' || n || '@shoppers.example', NULL,
      amount, position, 'paid', NULL, payment_id, paid_at, NULL, NULL, created_at, paid_at
      FROM bs_pl ORDER BY created_at;

  INSERT INTO payments (id, account_id, purchase_id, pledge_id, purpose, psp, idempotency_key, psp_transaction_id, amount_cents,
      captured_cents, refunded_cents, status, decline_reason, challenge_url, created_at, updated_at, psp_method_id, psp_return_url,
      psp_account_id, network_transaction_id, psp_state)
    SELECT id, account_id, purchase_id, pledge_id, purpose, 'sandbox', 'seed:' || id, 'sbx_' || replace(id::text, '-', ''), amount,
      captured, refunded, status, CASE WHEN status = 'declined' THEN 'do_not_honor' END, NULL,
      at, CASE WHEN refunded > 0 THEN t3 ELSE coalesce(captured_at, at) END,
      'pm_seed_' || c, NULL, NULL, NULL, NULL
      FROM bs_pay ORDER BY at;

  -- Installments of the credit plans (a declined first payment made none).
  CREATE TEMP TABLE bs_inst ON COMMIT DROP AS
    SELECT gen_random_uuid() AS id, p.account_id, p.id AS purchase_id, i AS index,
      (p.created_at + (CASE WHEN p.n_inst = 1 THEN 30 ELSE (i - 1) * 30 END) * interval '1 day')::date AS due_date,
      p.amount / p.n_inst + CASE WHEN i = 1 THEN p.amount % p.n_inst ELSE 0 END AS amount,
      (p.amount * p.fee_bps / 10000) / p.n_inst AS fees,
      CASE WHEN i <= p.paid_inst THEN 'paid' ELSE 'scheduled' END AS state,
      pay.id AS payment_id, pay.captured_at, pay.at, p.n_inst
      FROM bs_p p CROSS JOIN LATERAL generate_series(1, p.n_inst) i
      LEFT JOIN bs_pay pay ON pay.purchase_id = p.id AND pay.inst_index = i AND pay.payer = 'leader'
     WHERE p.n_inst > 0 AND p.state IN ('LEADER_PROCESSED', 'SUCCESSFUL', 'REFUNDED');

  INSERT INTO installments (id, account_id, purchase_id, index, due_date, amount_cents, fees_cents, state, attempts, payment_id, paid_at, shopper_payment_id)
    SELECT id, account_id, purchase_id, index, due_date, amount, fees, state,
      CASE WHEN state = 'paid' THEN 1 ELSE 0 END, payment_id,
      CASE WHEN state = 'paid' THEN coalesce(captured_at, at) END, NULL
      FROM bs_inst ORDER BY due_date;

  -- Refunds: the full ones (REFUNDED) and 3 % of the paid purchases refunded by a tenth.
  INSERT INTO refunds (id, account_id, purchase_id, amount_cents, reason, state, failure_reason, created_at, updated_at)
    SELECT p.refund_id, p.account_id, p.id, sum(pay.refunded), 'Customer request', 'succeeded', NULL, p.t3, p.t3
      FROM bs_p p JOIN bs_pay pay ON pay.purchase_id = p.id AND pay.refunded > 0
     GROUP BY p.refund_id, p.account_id, p.id, p.t3
     ORDER BY p.t3;
  INSERT INTO refund_allocations (id, account_id, refund_id, purchase_id, position, kind, payment_id, installment_id, payer, pledge_id,
      amount_cents, state, idempotency_key, failure_reason, created_at, updated_at)
    SELECT gen_random_uuid(), pay.account_id, p.refund_id, p.id,
      row_number() OVER (PARTITION BY p.id ORDER BY pay.at, pay.id), 'refund', pay.id, NULL, pay.payer, pay.pledge_id,
      pay.refunded, 'succeeded', 'refund:' || pay.id, NULL, p.t3, p.t3
      FROM bs_p p JOIN bs_pay pay ON pay.purchase_id = p.id AND pay.refunded > 0;
  -- What the refunds gave back, kept on the purchase (a trigger does it in the service: migration 049).
  UPDATE purchases p SET refunded_cents = r.cents
    FROM (SELECT purchase_id, sum(refunded) AS cents FROM bs_pay WHERE refunded > 0 GROUP BY purchase_id) r
   WHERE p.id = r.purchase_id;

  -- The ledger: a capture per captured payment, a refund per refunded one.
  INSERT INTO ledger_entries (account_id, purchase_id, payment_id, psp, psp_account_id, kind, amount_cents, currency, dispute_id, occurred_at)
    SELECT account_id, purchase_id, id, 'sandbox', NULL, kind, cents, 'EUR', NULL, occurred_at
      FROM (SELECT account_id, purchase_id, id, 'capture' AS kind, captured AS cents, coalesce(captured_at, at) AS occurred_at FROM bs_pay WHERE captured > 0
            UNION ALL
            SELECT account_id, purchase_id, id, 'refund', refunded, t3 FROM bs_pay WHERE refunded > 0) l
     ORDER BY occurred_at;

  -- Events (all dispatched), and a delivered webhook with its one attempt for each default trigger's event.
  CREATE TEMP TABLE bs_ev ON COMMIT DROP AS
    SELECT p.account_id, p.id AS purchase_id, e.type, e.from_state, e.to_state, e.data, e.at
      FROM bs_p p CROSS JOIN LATERAL (VALUES
        (true, 'purchase.created', NULL, 'CREATED', '{}'::jsonb, p.created_at),
        (p.state = 'FAILED', 'payment.failed', 'CREATED', 'CREATED', jsonb_build_object('reason', 'do_not_honor', 'payment_id', p.pay0, 'attempt', 1), p.t1),
        (p.state = 'FAILED', 'purchase.failed', 'CREATED', 'FAILED', '{}'::jsonb, p.t1 + interval '1 second'),
        (p.state = 'CANCELLED', 'purchase.cancelled', 'CREATED', 'CANCELLED', '{}'::jsonb, p.created_at + interval '24 hours'),
        (p.state = 'ABORTED', 'purchase.aborted', 'CREATED', 'ABORTED', '{}'::jsonb, p.t1),
        (p.state IN ('LEADER_PROCESSED', 'SUCCESSFUL', 'REFUNDED'), 'purchase.leader_processed', 'CREATED', 'LEADER_PROCESSED', '{}'::jsonb, p.t1),
        (p.state IN ('SUCCESSFUL', 'REFUNDED'), 'purchase.succeeded', 'LEADER_PROCESSED', 'SUCCESSFUL',
          CASE WHEN p.pot THEN '{}'::jsonb ELSE jsonb_build_object('payment_id', p.pay0) END, p.t2),
        (p.state = 'REFUNDED' OR p.partial_refund, 'refund.made', 'SUCCESSFUL', 'SUCCESSFUL',
          jsonb_build_object('refund_id', p.refund_id, 'state', 'succeeded'), p.t3),
        (p.state = 'REFUNDED', 'purchase.refunded', 'SUCCESSFUL', 'REFUNDED', '{}'::jsonb, p.t3 + interval '1 second')
      ) AS e (present, type, from_state, to_state, data, at)
     WHERE e.present
    UNION ALL
    SELECT i.account_id, i.purchase_id, 'installment.paid', 'LEADER_PROCESSED', 'LEADER_PROCESSED',
      jsonb_build_object('installment_id', i.id, 'index', i.index, 'amount_cents', i.amount), coalesce(i.captured_at, i.at)
      FROM bs_inst i
     WHERE i.state = 'paid' AND i.index >= 2
    UNION ALL
    SELECT pl.account_id, pl.purchase_id, 'pledge.paid', 'LEADER_PROCESSED', 'LEADER_PROCESSED',
      jsonb_build_object('pledge_id', pl.id, 'amount_cents', pl.amount), pl.paid_at
      FROM bs_pl pl;

  WITH e AS (
    INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
      SELECT account_id, purchase_id, type, from_state, to_state, data, at, at FROM bs_ev ORDER BY at
      RETURNING id, account_id, purchase_id, type, created_at
  ), d AS (
    INSERT INTO deliveries (id, account_id, purchase_id, event_id, kind, trigger_name, url, payload, status, attempts, failures,
        next_attempt_at, locked_until, lease_id, last_status_code, last_error, created_at, updated_at, completed_at)
      SELECT gen_random_uuid(), e.account_id, e.purchase_id, e.id, 'webhook',
        CASE e.type WHEN 'purchase.leader_processed' THEN 'paymentProcessed' WHEN 'payment.failed' THEN 'paymentFailed' ELSE 'pledgerContributes' END,
        'https://shop-' || a.idx || '.example/chipin/webhooks',
        format('{"id":"evt_%s","type":"%s","created":"%s","purchase":{"id":"pur_%s","currency":"EUR"}}',
               e.id, e.type, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.purchase_id),
        'succeeded', 1, 0, NULL, NULL, NULL, 200, NULL, e.created_at, e.created_at + interval '300 milliseconds', e.created_at + interval '300 milliseconds'
        FROM e JOIN bench_scale_accounts a ON a.id = e.account_id
       WHERE e.type IN ('purchase.leader_processed', 'payment.failed', 'pledge.paid')
        ORDER BY e.created_at
      RETURNING id, account_id, url, created_at
  )
  INSERT INTO delivery_attempts (account_id, delivery_id, attempt, url, started_at, duration_ms, status_code, response_excerpt, error, outcome, next_attempt_at)
    SELECT account_id, id, 1, url, created_at + interval '50 milliseconds', 80 + (random() * 300)::integer, 200, 'OK', NULL, 'succeeded', NULL
      FROM d ORDER BY created_at;

  -- Jobs: every purchase's expiry (done, or due in 12 to 24 hours for those still CREATED), the
  -- installments' collection (done when paid, else due on their date, never within a day of the
  -- seed), the pots' deadlines (done).
  INSERT INTO jobs (account_id, kind, dedupe_key, run_at, payload, attempts, locked_until, lease_id, last_error, done_at, failed_at, created_at)
    SELECT account_id, kind, dedupe_key, run_at, payload, attempts, NULL, NULL, NULL, done_at, NULL, created_at
      FROM (SELECT account_id, 'purchase.expire' AS kind, 'purchase.expire:' || id AS dedupe_key, created_at + interval '24 hours' AS run_at,
                   jsonb_build_object('purchaseId', id) AS payload,
                   CASE WHEN state = 'CREATED' THEN 0 ELSE 1 END AS attempts,
                   CASE WHEN state = 'CREATED' THEN NULL ELSE created_at + interval '24 hours' END AS done_at, created_at
              FROM bs_p
            UNION ALL
            SELECT i.account_id, 'installment.collect', 'installment.collect:' || i.id,
                   CASE WHEN i.state = 'paid' THEN coalesce(i.captured_at, i.at) ELSE greatest(i.due_date::timestamptz, v_now + interval '1 day') END,
                   jsonb_build_object('installmentId', i.id),
                   CASE WHEN i.state = 'paid' THEN 1 ELSE 0 END,
                   CASE WHEN i.state = 'paid' THEN coalesce(i.captured_at, i.at) END, p.created_at
              FROM bs_inst i JOIN bs_p p ON p.id = i.purchase_id
             WHERE i.index >= 2 OR i.n_inst = 1
            UNION ALL
            SELECT account_id, 'pot.deadline', 'pot.deadline:' || id, t1 + interval '48 hours', jsonb_build_object('purchaseId', id), 1, t1 + interval '48 hours', t1
              FROM bs_p WHERE pot) j
     ORDER BY created_at;

  -- The payment-time risk decision of each credit plan (within the 400 days' retention).
  INSERT INTO risk_decisions (id, account_id, purchase_id, offer_id, payment_id, pledge_id, purpose, outcome, amount_cents, credit_cents,
      reasons, score, inputs, hook, card_fingerprint, latency_ms, created_at)
    SELECT gen_random_uuid(), account_id, id, offer_id, pay0, NULL, 'leader',
      CASE WHEN state = 'FAILED' AND r_x < 0.3 THEN 'refused' ELSE 'accepted' END,
      amount, CASE WHEN state = 'FAILED' THEN 0 WHEN n_inst = 1 THEN amount ELSE amount - amount / n_inst END,
      '[]'::jsonb, '{"points": 10}'::jsonb, '{"completed": 0, "failed": 0}'::jsonb, NULL, 'fp_seed_' || c, 2, t1
      FROM bs_p
     WHERE n_inst > 0 AND state IN ('LEADER_PROCESSED', 'SUCCESSFUL', 'REFUNDED', 'FAILED') AND t1 > v_now - interval '400 days'
     ORDER BY t1;

  UPDATE bench_scale_meta SET seeded = p_hi;
END
$$;

-- The delivery claim's backlog: p_count deliveries pending and due (webhooks, as the 30/70 split
-- of the purchases), each on a purchase of its own (added with it, ref SCALE-PENDING-...) whose
-- event is dispatched. Their URL is the discard port of the loopback: never sent anywhere (no
-- Chipin process runs while they exist). Removed by bench_scale_pending_remove.
CREATE OR REPLACE PROCEDURE bench_scale_pending_add(p_count integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := now();
  v_big_pct integer;
  v_accounts integer;
BEGIN
  SELECT big_share_pct, accounts INTO v_big_pct, v_accounts FROM bench_scale_meta;
  PERFORM set_config('session_replication_role', 'replica', true);
  CREATE TEMP TABLE bs_q ON COMMIT DROP AS
    SELECT i, gen_random_uuid() AS id, gen_random_uuid() AS client_id, a.id AS account_id, a.shared AS offer_id,
      v_now - interval '10 minutes' - random() * interval '50 minutes' AS created_at
      FROM generate_series(1, p_count) i
      JOIN bench_scale_accounts a ON a.idx = CASE WHEN (hashint8extended(i, 21) & 2147483647) % 100 < v_big_pct THEN 0
                                                  ELSE 1 + ((hashint8extended(i, 22) & 2147483647) % (v_accounts - 1))::integer END;
  INSERT INTO clients (id, account_id, ref, email, created_at, updated_at)
    SELECT client_id, account_id, 'scale-pending-' || i, 'pending-' || i || '@scale-bench.example', created_at, created_at FROM bs_q;
  INSERT INTO purchases (id, account_id, offer_id, client_id, state, comment, ref, title, amount_cents, currency, language, created_at, updated_at, attempts, leader_share_cents)
    SELECT id, account_id, offer_id, client_id, 'LEADER_PROCESSED', 'The leader''s payment is authorised.', 'SCALE-PENDING-' || i, 'Pending ' || i,
      10000, 'EUR', 'en_GB', created_at, created_at, 1, 10000
      FROM bs_q ORDER BY created_at;
  WITH e AS (
    INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
      SELECT account_id, id, 'purchase.leader_processed', 'CREATED', 'LEADER_PROCESSED', '{}'::jsonb, created_at, created_at
        FROM bs_q ORDER BY created_at
      RETURNING id, account_id, purchase_id, created_at
  )
  INSERT INTO deliveries (id, account_id, purchase_id, event_id, kind, trigger_name, url, payload, status, attempts, failures,
      next_attempt_at, created_at, updated_at)
    SELECT gen_random_uuid(), account_id, purchase_id, id, 'webhook', 'paymentProcessed', 'http://127.0.0.1:9/scale-bench',
      format('{"id":"evt_%s","type":"purchase.leader_processed","purchase":{"id":"pur_%s"}}', id, purchase_id),
      'pending', 0, 0, created_at + interval '1 second', created_at, created_at
      FROM e ORDER BY created_at;
END
$$;

CREATE OR REPLACE PROCEDURE bench_scale_pending_remove()
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('session_replication_role', 'replica', true);
  CREATE TEMP TABLE bs_q ON COMMIT DROP AS
    SELECT p.id, p.account_id, p.client_id FROM bench_scale_accounts a
      JOIN purchases p ON p.account_id = a.id
       -- The range reads purchases_account_ref_idx; LIKE keeps exactly the benchmark's rows.
       AND p.ref >= 'SCALE-PENDING-' AND p.ref < 'SCALE-PENDING.' AND p.ref LIKE 'SCALE-PENDING-%';
  DELETE FROM deliveries d USING bs_q q WHERE d.account_id = q.account_id AND d.purchase_id = q.id;
  DELETE FROM purchase_events e USING bs_q q WHERE e.account_id = q.account_id AND e.purchase_id = q.id;
  DELETE FROM purchases p USING bs_q q WHERE p.id = q.id;
  DELETE FROM clients c USING bs_q q WHERE c.id = q.client_id;
END
$$;
