import type { Sql } from '../db/database.ts';
import { addDays } from '../domain/apr.ts';
import { zonedDay, zonedMidnight } from '../i18n/format.ts';
import { collectedAndRefunded, deliveryCounts, lastFailingDelivery, potClosings, purchasesByDay } from './home-stats-repository.ts';

/** Days the home page looks back over, today (in the account's time zone) included. */
export const HOME_DAYS = 30;

/** One day of the window (in the account's time zone), per currency: purchases created that day and their amounts. */
export interface DayVolume {
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
 * purchase at 00:30 in Paris counts on its Paris day), and what became of them (the queries and the indexes
 * they use: home-stats-repository.ts).
 */
export async function homeStats(sql: Sql, accountId: string, now: Date, timeZone: string): Promise<HomeStats> {
  const today = zonedDay(now, timeZone);
  const first = addDays(today, -(HOME_DAYS - 1));
  const window = { accountId, from: zonedMidnight(first, timeZone), to: zonedMidnight(addDays(today, 1), timeZone), timeZone };
  const [days, money, p, d, f] = await Promise.all([
    purchasesByDay(sql, window),
    collectedAndRefunded(sql, window),
    potClosings(sql, window),
    deliveryCounts(sql, window),
    lastFailingDelivery(sql, window),
  ]);
  const sum = (k: 'created' | 'paid' | 'failed' | 'refunded') => days.reduce((n, r) => n + Number(r[k]), 0);
  const currencies = [...new Set([...days, ...money].map((r) => r.currency))].sort();
  const cents = (currency: string, what: string) => Number(money.find((r) => r.currency === currency && r.what === what)?.cents ?? 0);
  return {
    from: first,
    to: today,
    created: sum('created'),
    paid: sum('paid'),
    failed: sum('failed'),
    refunded: sum('refunded'),
    money: currencies.map((c) => ({ currency: c, collectedCents: cents(c, 'collected'), refundedCents: cents(c, 'refunded') })),
    days: days.map((r) => ({ day: r.day, currency: r.currency, created: Number(r.created), amountCents: Number(r.amount_cents) })),
    pots: { byFriends: Number(p?.by_friends ?? 0), byLeader: Number(p?.by_leader ?? 0), restRefused: Number(p?.rest_refused ?? 0) },
    deliveries: {
      delivered: Number(d?.delivered ?? 0),
      failing: Number(d?.failing ?? 0),
      pending: Number(d?.pending ?? 0),
      lastFailure: f && { triggerName: f.trigger_name, kind: f.kind, statusCode: f.last_status_code, error: f.last_error, at: f.updated_at },
    },
  };
}
