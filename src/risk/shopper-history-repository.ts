import type { Sql } from '../db/database.ts';
import type { ShopperHistory } from '../domain/risk-score.ts';

/** How a shopper is recognised across purchases (docs/risk.md#shopper-identity); at least one is set. */
export interface ShopperIdentity {
  /** Normalised: trimmed, lower-case. */
  email?: string;
  /** E.164. */
  phone?: string;
  /** The merchant's own customer id: a client's `ref`. */
  customerId?: string;
}

/** Declines older than this do not count against a shopper. */
const DECLINE_WINDOW = '180 days';

/**
 * Every figure the score and the outstanding-credit and velocity rules read, in ONE statement
 * (docs/risk.md#the-history-query): the shopper's purchases on this account, found by e-mail or
 * customer id (through their clients: `clients_account_email_idx`, `clients_account_ref_key`) or
 * by phone (`purchases_account_phone_idx`), then their installments and declined payments by
 * purchase (`installments_purchase_idx`, `payments_purchase_idx`). `now` is the service clock.
 */
export async function shopperHistory(sql: Sql, accountId: string, who: ShopperIdentity, now: Date): Promise<ShopperHistory> {
  const { rows } = await sql.query<{
    completed: number;
    failed: number;
    first_seen: Date | null;
    largest_paid: string | number | null;
    plans_hour: number;
    plans_day: number;
    outstanding: string | number;
    declines: number;
  }>(
    `WITH mine AS MATERIALIZED (
       SELECT p.id, p.state, p.amount_cents, p.created_at, o.type <> 'SHARED' AS credit
         FROM purchases p JOIN offers o ON o.id = p.offer_id
        WHERE p.account_id = $1
          AND p.id IN (SELECT p2.id FROM clients c JOIN purchases p2 ON p2.account_id = c.account_id AND p2.client_id = c.id
                        WHERE c.account_id = $1 AND (lower(c.email) = $2::text OR c.ref = $4::text)
                       UNION
                       SELECT p3.id FROM purchases p3 WHERE p3.account_id = $1 AND p3.phone_number = $3::text)
     )
     SELECT count(*) FILTER (WHERE state IN ('SUCCESSFUL', 'REFUNDED'))::int AS completed,
            count(*) FILTER (WHERE state = 'FAILED')::int AS failed,
            min(created_at) AS first_seen,
            max(amount_cents) FILTER (WHERE state IN ('SUCCESSFUL', 'REFUNDED'))::bigint AS largest_paid,
            count(*) FILTER (WHERE credit AND created_at > $5::timestamptz - interval '1 hour' AND created_at <= $5::timestamptz)::int AS plans_hour,
            count(*) FILTER (WHERE credit AND created_at > $5::timestamptz - interval '1 day' AND created_at <= $5::timestamptz)::int AS plans_day,
            (SELECT coalesce(sum(i.amount_cents + i.fees_cents), 0)::bigint
               FROM mine m JOIN installments i ON i.account_id = $1 AND i.purchase_id = m.id
              WHERE m.state = 'LEADER_PROCESSED' AND i.state <> 'paid') AS outstanding,
            (SELECT count(*)::int
               FROM mine m JOIN payments pay ON pay.account_id = $1 AND pay.purchase_id = m.id
              WHERE pay.pledge_id IS NULL AND pay.status = 'declined' AND pay.created_at > $5::timestamptz - interval '${DECLINE_WINDOW}') AS declines
       FROM mine`,
    [accountId, who.email ?? null, who.phone ?? null, who.customerId ?? null, now],
  );
  const r = rows[0]!;
  return {
    completedPurchases: r.completed,
    failedPurchases: r.failed,
    recentDeclines: r.declines,
    // Chipin receives no dispute notifications yet: docs/risk.md#what-is-not-there-yet.
    chargebacks: 0,
    outstandingCents: Number(r.outstanding),
    largestPaidCents: r.largest_paid === null ? 0 : Number(r.largest_paid),
    firstSeenAt: r.first_seen === null ? undefined : new Date(r.first_seen),
    plansLastHour: r.plans_hour,
    plansLastDay: r.plans_day,
  };
}
