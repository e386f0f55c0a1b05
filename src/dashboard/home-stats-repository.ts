import type { Sql } from '../db/database.ts';

/**
 * The back-office home page's figures (dashboard/home-stats.ts), one account over a window of
 * days. Every query starts from the account's purchases in the window (`purchases_account_created_idx`,
 * a range of one account's rows) and reaches payments, refunds and events through their
 * per-purchase indexes; deliveries through `deliveries_account_idx`. Sums are taken in SQL, in
 * integer minor units.
 */
export interface StatsWindow {
  accountId: string;
  /** Purchases (deliveries) created at or after `from` and before `to`. */
  from: Date;
  to: Date;
  /** The account's IANA time zone: days are its calendar days. */
  timeZone: string;
}

const IN_WINDOW = 'p.account_id = $1 AND p.created_at >= $2 AND p.created_at < $3';

function params(w: StatsWindow): unknown[] {
  return [w.accountId, w.from, w.to];
}

/** Per day of the account's time zone and currency: purchases created, how many are now SUCCESSFUL, FAILED, REFUNDED, and their amount. */
export async function purchasesByDay(
  sql: Sql,
  w: StatsWindow,
): Promise<{ day: string; currency: string; created: number; paid: number; failed: number; refunded: number; amount_cents: number }[]> {
  const { rows } = await sql.query<{ day: string; currency: string; created: number; paid: number; failed: number; refunded: number; amount_cents: number }>(
    `SELECT to_char(p.created_at AT TIME ZONE $4, 'YYYY-MM-DD') AS day, p.currency,
            count(*)::int AS created,
            count(*) FILTER (WHERE p.state = 'SUCCESSFUL')::int AS paid,
            count(*) FILTER (WHERE p.state = 'FAILED')::int AS failed,
            count(*) FILTER (WHERE p.state = 'REFUNDED')::int AS refunded,
            sum(p.amount_cents)::bigint AS amount_cents
       FROM purchases p WHERE ${IN_WINDOW}
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [...params(w), w.timeZone],
  );
  return rows;
}

/** What was captured on the window's purchases, and what refunds gave back, per currency. */
export async function collectedAndRefunded(sql: Sql, w: StatsWindow): Promise<{ currency: string; what: 'collected' | 'refunded'; cents: number }[]> {
  const { rows } = await sql.query<{ currency: string; what: 'collected' | 'refunded'; cents: number }>(
    `SELECT p.currency, 'collected' AS what, sum(pm.captured_cents)::bigint AS cents
       FROM purchases p JOIN payments pm ON pm.account_id = p.account_id AND pm.purchase_id = p.id
      WHERE ${IN_WINDOW} GROUP BY p.currency
     UNION ALL
     SELECT p.currency, 'refunded', sum(ra.amount_cents)::bigint
       FROM purchases p JOIN refund_allocations ra ON ra.account_id = p.account_id AND ra.purchase_id = p.id AND ra.state = 'succeeded'
      WHERE ${IN_WINDOW} GROUP BY p.currency`,
    params(w),
  );
  return rows;
}

/** How the window's pots closed. */
export async function potClosings(sql: Sql, w: StatsWindow): Promise<{ by_friends: number; by_leader: number; rest_refused: number } | undefined> {
  // How a pot closed is told by its closing event (src/use-cases/close-pot.ts, settle-pot-deadline.ts):
  // the deadline's move carries `rest_cents` (what the leader was charged, or refused); the pot
  // covered by its pledges moves without it; a leader who invited nobody carries `payment_id`
  // (no pot was ever open).
  const { rows } = await sql.query<{ by_friends: number; by_leader: number; rest_refused: number }>(
    `SELECT count(*) FILTER (WHERE e.to_state = 'SUCCESSFUL' AND e.data->>'rest_cents' IS NULL)::int AS by_friends,
            count(*) FILTER (WHERE e.to_state = 'SUCCESSFUL' AND e.data->>'rest_cents' IS NOT NULL)::int AS by_leader,
            count(*) FILTER (WHERE e.to_state = 'FAILED' AND e.data->>'rest_cents' IS NOT NULL)::int AS rest_refused
       FROM purchases p JOIN purchase_events e ON e.account_id = p.account_id AND e.purchase_id = p.id
      WHERE ${IN_WINDOW} AND p.pot_deadline_at IS NOT NULL
        AND e.type IN ('purchase.succeeded', 'purchase.failed') AND e.data->>'payment_id' IS NULL`,
    params(w),
  );
  return rows[0];
}

/** Webhooks and notifications created in the window: delivered, failing, pending. */
export async function deliveryCounts(sql: Sql, w: StatsWindow): Promise<{ delivered: number; failing: number; pending: number } | undefined> {
  const { rows } = await sql.query<{ delivered: number; failing: number; pending: number }>(
    `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS delivered,
            count(*) FILTER (WHERE status = 'failed' OR (status = 'pending' AND failures > 0))::int AS failing,
            count(*) FILTER (WHERE status = 'pending' AND failures = 0)::int AS pending
       FROM deliveries WHERE account_id = $1 AND created_at >= $2 AND created_at < $3`,
    params(w),
  );
  return rows[0];
}

/** The window's delivery that failed (or keeps failing) last. */
export async function lastFailingDelivery(
  sql: Sql,
  w: StatsWindow,
): Promise<{ trigger_name: string | null; kind: string; last_status_code: number | null; last_error: string | null; updated_at: Date } | undefined> {
  const { rows } = await sql.query<{ trigger_name: string | null; kind: string; last_status_code: number | null; last_error: string | null; updated_at: Date }>(
    `SELECT trigger_name, kind, last_status_code, last_error, updated_at
       FROM deliveries WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
        AND (status = 'failed' OR (status = 'pending' AND failures > 0))
      ORDER BY updated_at DESC LIMIT 1`,
    params(w),
  );
  return rows[0];
}
