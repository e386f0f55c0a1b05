import type { Sql } from '../db/database.ts';

/** Days the home page looks back over, today (UTC) included. */
export const HOME_DAYS = 30;

/** One UTC day of the window, per currency: purchases created that day and their amounts. */
export interface DayVolume {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  currency: string;
  created: number;
  amountCents: number;
}

export interface HomeStats {
  /** First day of the window (`YYYY-MM-DD`, UTC) and the last (today). */
  from: string;
  to: string;
  /** Purchases created in the window, and how many of them are now SUCCESSFUL, FAILED, REFUNDED. */
  created: number;
  paid: number;
  failed: number;
  refunded: number;
  /** What was captured on those purchases and what refunds gave back, per currency (minor units). */
  money: { currency: string; collectedCents: number; refundedCents: number }[];
  days: DayVolume[];
  /** Pots of those purchases closed: covered by the friends, the rest taken from the leader at the deadline, or that rest refused. */
  pots: { byFriends: number; byLeader: number; restRefused: number };
  /** Webhooks and back-mode notifications created in the window. */
  deliveries: { delivered: number; failing: number; pending: number; lastFailure?: { triggerName: string | null; kind: string; statusCode: number | null; error: string | null; at: Date } };
}

const DAY_MS = 86_400_000;

/**
 * The home page's figures for one account: purchases created in the last {@link HOME_DAYS} UTC
 * days (today by the service clock), and what became of them. Every query starts from the
 * account's purchases in the window (`purchases_account_created_idx`, a range of one account's
 * rows) and reaches payments, refunds and events through their per-purchase indexes; deliveries
 * through `deliveries_account_idx`. Sums are taken in SQL, in integer minor units.
 */
export async function homeStats(sql: Sql, accountId: string, now: Date): Promise<HomeStats> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = new Date(today - (HOME_DAYS - 1) * DAY_MS);
  const end = new Date(today + DAY_MS);
  const window = [accountId, start, end];
  const inWindow = 'p.account_id = $1 AND p.created_at >= $2 AND p.created_at < $3';
  const [days, money, pots, deliveries, lastFailure] = await Promise.all([
    sql.query<{ day: string; currency: string; created: number; paid: number; failed: number; refunded: number; amount_cents: number }>(
      `SELECT to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, p.currency,
              count(*)::int AS created,
              count(*) FILTER (WHERE p.state = 'SUCCESSFUL')::int AS paid,
              count(*) FILTER (WHERE p.state = 'FAILED')::int AS failed,
              count(*) FILTER (WHERE p.state = 'REFUNDED')::int AS refunded,
              sum(p.amount_cents)::bigint AS amount_cents
         FROM purchases p WHERE ${inWindow}
        GROUP BY 1, 2 ORDER BY 1, 2`,
      window,
    ),
    sql.query<{ currency: string; what: 'collected' | 'refunded'; cents: number }>(
      `SELECT p.currency, 'collected' AS what, sum(pm.captured_cents)::bigint AS cents
         FROM purchases p JOIN payments pm ON pm.account_id = p.account_id AND pm.purchase_id = p.id
        WHERE ${inWindow} GROUP BY p.currency
       UNION ALL
       SELECT p.currency, 'refunded', sum(ra.amount_cents)::bigint
         FROM purchases p JOIN refund_allocations ra ON ra.account_id = p.account_id AND ra.purchase_id = p.id AND ra.state = 'succeeded'
        WHERE ${inWindow} GROUP BY p.currency`,
      window,
    ),
    // How a pot closed is told by its closing event (src/use-cases/close-pot.ts, settle-pot-deadline.ts):
    // the deadline's move carries `rest_cents` (what the leader was charged, or refused); the pot
    // covered by its pledges moves without it; a leader who invited nobody carries `payment_id`
    // (no pot was ever open).
    sql.query<{ by_friends: number; by_leader: number; rest_refused: number }>(
      `SELECT count(*) FILTER (WHERE e.to_state = 'SUCCESSFUL' AND e.data->>'rest_cents' IS NULL)::int AS by_friends,
              count(*) FILTER (WHERE e.to_state = 'SUCCESSFUL' AND e.data->>'rest_cents' IS NOT NULL)::int AS by_leader,
              count(*) FILTER (WHERE e.to_state = 'FAILED' AND e.data->>'rest_cents' IS NOT NULL)::int AS rest_refused
         FROM purchases p JOIN purchase_events e ON e.account_id = p.account_id AND e.purchase_id = p.id
        WHERE ${inWindow} AND p.pot_deadline_at IS NOT NULL
          AND e.type IN ('purchase.succeeded', 'purchase.failed') AND e.data->>'payment_id' IS NULL`,
      window,
    ),
    sql.query<{ delivered: number; failing: number; pending: number }>(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS delivered,
              count(*) FILTER (WHERE status = 'failed' OR (status = 'pending' AND failures > 0))::int AS failing,
              count(*) FILTER (WHERE status = 'pending' AND failures = 0)::int AS pending
         FROM deliveries WHERE account_id = $1 AND created_at >= $2 AND created_at < $3`,
      window,
    ),
    sql.query<{ trigger_name: string | null; kind: string; last_status_code: number | null; last_error: string | null; updated_at: Date }>(
      `SELECT trigger_name, kind, last_status_code, last_error, updated_at
         FROM deliveries WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
          AND (status = 'failed' OR (status = 'pending' AND failures > 0))
        ORDER BY updated_at DESC LIMIT 1`,
      window,
    ),
  ]);
  const sum = (k: 'created' | 'paid' | 'failed' | 'refunded') => days.rows.reduce((n, r) => n + Number(r[k]), 0);
  const currencies = [...new Set([...days.rows, ...money.rows].map((r) => r.currency))].sort();
  const cents = (currency: string, what: string) => Number(money.rows.find((r) => r.currency === currency && r.what === what)?.cents ?? 0);
  const d = deliveries.rows[0];
  const p = pots.rows[0];
  const f = lastFailure.rows[0];
  return {
    from: start.toISOString().slice(0, 10),
    to: new Date(today).toISOString().slice(0, 10),
    created: sum('created'),
    paid: sum('paid'),
    failed: sum('failed'),
    refunded: sum('refunded'),
    money: currencies.map((c) => ({ currency: c, collectedCents: cents(c, 'collected'), refundedCents: cents(c, 'refunded') })),
    days: days.rows.map((r) => ({ day: r.day, currency: r.currency, created: Number(r.created), amountCents: Number(r.amount_cents) })),
    pots: { byFriends: Number(p?.by_friends ?? 0), byLeader: Number(p?.by_leader ?? 0), restRefused: Number(p?.rest_refused ?? 0) },
    deliveries: {
      delivered: Number(d?.delivered ?? 0),
      failing: Number(d?.failing ?? 0),
      pending: Number(d?.pending ?? 0),
      lastFailure: f && { triggerName: f.trigger_name, kind: f.kind, statusCode: f.last_status_code, error: f.last_error, at: f.updated_at },
    },
  };
}
