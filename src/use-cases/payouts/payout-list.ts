import type { Sql } from '../../db/database.ts';
import { findPayout, listPayouts, payoutCommissionCents, payoutLines, type PayoutLineRow, type PayoutRow } from '../../payouts/payout-repository.ts';

/**
 * The account's payouts as the back office reads them (docs/back-office.md#payouts): the list,
 * newest first, and one payout with its lines in posting order, for the JSON API, its CSV and the
 * Payouts pages alike. Another account's payout is not found, as an unknown one is.
 */

export type { PayoutLineRow };

/** The account's payouts, newest first, `limit` after the cursor (`created_at`, `id` of the last one shown). */
export function payoutList(db: Sql, accountId: string, limit: number, before?: { createdAt: Date; id: string } | null): Promise<PayoutRow[]> {
  return listPayouts(db, accountId, limit, before);
}

/** A payout with the commission of its lines: its gross is `amount_cents` + `commission_cents`. */
export type PayoutDetail = PayoutRow & { commission_cents: number };

/** One of the account's payouts, with its lines' commission summed. */
export async function payoutOf(db: Sql, accountId: string, id: string): Promise<PayoutDetail | undefined> {
  const payout = await findPayout(db, accountId, id);
  return payout && { ...payout, commission_cents: await payoutCommissionCents(db, accountId, payout.id) };
}

/** A page of a payout's lines, in posting order, after `afterPostingId`. */
export function payoutLinesOf(db: Sql, accountId: string, payoutId: string, afterPostingId: number | null, limit: number): Promise<PayoutLineRow[]> {
  return payoutLines(db, accountId, payoutId, afterPostingId, limit);
}
