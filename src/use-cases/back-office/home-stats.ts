import type { Sql } from '../../db/database.ts';
import { addDays } from '../../domain/dates.ts';
import { zonedDay, zonedMidnight } from '../../i18n/format.ts';
import { deliveryCounts, lastFailingDelivery, purchasesByDay } from '../../reports/home-stats-repository.ts';

/** Days the home page looks back over, today (in the account's time zone) included. */
export const HOME_DAYS = 30;

/** One day of the window (in the account's time zone), per currency: purchases created that day and their amounts. */
interface DayVolume {
  /** `YYYY-MM-DD`, in the account's time zone. */
  day: string;
  currency: string;
  created: number;
  amountCents: number;
}

export interface HomeStats {
  /** First day of the window (`YYYY-MM-DD`, in the account's time zone) and the last (today). */
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
  deliveries: {
    delivered: number;
    failing: number;
    pending: number;
    lastFailure?: { triggerName: string | null; kind: string; statusCode: number | null; error: string | null; at: Date };
  };
}

/**
 * The home page's figures for one account: purchases created in the last {@link HOME_DAYS} days
 * of the account's time zone (today by the service clock; the days begin at its midnights, so a
 * purchase at 00:30 in Paris counts on its Paris day), and what became of them (from the running sums
 * the database keeps: home-stats-repository.ts).
 */
export async function homeStats(sql: Sql, accountId: string, now: Date, timeZone: string): Promise<HomeStats> {
  const today = zonedDay(now, timeZone);
  const first = addDays(today, -(HOME_DAYS - 1));
  const window = { accountId, from: zonedMidnight(first, timeZone), to: zonedMidnight(addDays(today, 1), timeZone), timeZone };
  const [rows, d, f] = await Promise.all([purchasesByDay(sql, window), deliveryCounts(sql, window), lastFailingDelivery(sql, window)]);
  const sum = (k: 'created' | 'paid' | 'failed' | 'refunded' | 'pots_by_friends' | 'pots_by_leader' | 'pots_rest_refused') => rows.reduce((n, r) => n + Number(r[k]), 0);
  const currencies = [...new Set(rows.map((r) => r.currency))].sort();
  const cents = (currency: string, k: 'collected_cents' | 'refunded_cents') => rows.filter((r) => r.currency === currency).reduce((n, r) => n + Number(r[k]), 0);
  return {
    from: first,
    to: today,
    created: sum('created'),
    paid: sum('paid'),
    failed: sum('failed'),
    refunded: sum('refunded'),
    money: currencies.map((c) => ({ currency: c, collectedCents: cents(c, 'collected_cents'), refundedCents: cents(c, 'refunded_cents') })),
    // A day shows once a purchase was created on it (a slot's row outlives a purchase deleted since).
    days: rows.filter((r) => Number(r.created) > 0).map((r) => ({ day: r.day, currency: r.currency, created: Number(r.created), amountCents: Number(r.amount_cents) })),
    pots: { byFriends: sum('pots_by_friends'), byLeader: sum('pots_by_leader'), restRefused: sum('pots_rest_refused') },
    deliveries: {
      delivered: Number(d?.delivered ?? 0),
      failing: Number(d?.failing ?? 0),
      pending: Number(d?.pending ?? 0),
      lastFailure: f && { triggerName: f.trigger_name, kind: f.kind, statusCode: f.last_status_code, error: f.last_error, at: f.updated_at },
    },
  };
}
