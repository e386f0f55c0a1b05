import type { Sql } from '../db/database.ts';

/**
 * The back-office home page's figures (use-cases/back-office/home-stats.ts), one account over a window of
 * days. The counts and sums come from the running sums the database keeps per 15-minute slot
 * (`purchase_stats`, `delivery_stats`: migration 044, docs/performance.md#the-home-pages-running-sums),
 * so a window reads at most 30 days x 96 slots x 8 shards of one account, however many purchases
 * it holds. Sums are taken in SQL, in integer minor units.
 */
export interface StatsWindow {
  accountId: string;
  /** Purchases (deliveries) created at or after `from` and before `to`: both on a 15-minute boundary (a midnight of any time zone in use). */
  from: Date;
  to: Date;
  /** The account's IANA time zone: days are its calendar days. */
  timeZone: string;
}

const IN_WINDOW = 'account_id = $1 AND slot >= $2 AND slot < $3';

function params(w: StatsWindow): unknown[] {
  return [w.accountId, w.from, w.to];
}

export interface DayRow {
  day: string;
  currency: string;
  /** Purchases created that day, how many are now SUCCESSFUL, FAILED, REFUNDED, and their amount. */
  created: number;
  paid: number;
  failed: number;
  refunded: number;
  amount_cents: number;
  /** Captured on them, and what refunds gave back. */
  collected_cents: number;
  refunded_cents: number;
  /** Their pots closed: covered by the friends, the rest charged to the leader at the deadline, that rest refused. */
  pots_by_friends: number;
  pots_by_leader: number;
  pots_rest_refused: number;
}

/** Per day of the account's time zone and currency, the window's purchases and what became of them. */
export async function purchasesByDay(sql: Sql, w: StatsWindow): Promise<DayRow[]> {
  const { rows } = await sql.query<DayRow>(
    `SELECT to_char(slot AT TIME ZONE $4, 'YYYY-MM-DD') AS day, currency,
            sum(created)::int AS created, sum(paid)::int AS paid, sum(failed)::int AS failed, sum(refunded)::int AS refunded,
            sum(amount_cents)::bigint AS amount_cents, sum(collected_cents)::bigint AS collected_cents, sum(refunded_cents)::bigint AS refunded_cents,
            sum(pots_by_friends)::int AS pots_by_friends, sum(pots_by_leader)::int AS pots_by_leader, sum(pots_rest_refused)::int AS pots_rest_refused
       FROM purchase_stats WHERE ${IN_WINDOW}
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [...params(w), w.timeZone],
  );
  return rows;
}

/** Webhooks and notifications created in the window: delivered, failing, pending. */
export async function deliveryCounts(sql: Sql, w: StatsWindow): Promise<{ delivered: number; failing: number; pending: number } | undefined> {
  const { rows } = await sql.query<{ delivered: number; failing: number; pending: number }>(
    `SELECT coalesce(sum(delivered), 0)::int AS delivered, coalesce(sum(failing), 0)::int AS failing, coalesce(sum(pending), 0)::int AS pending
       FROM delivery_stats WHERE ${IN_WINDOW}`,
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
