import type { Sql } from '../db/database.ts';
import { findPayout, listPayouts, payoutLines, type PayoutLineRow, type PayoutRow } from '../payouts/payout-repository.ts';

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

/** One of the account's payouts. */
export function payoutOf(db: Sql, accountId: string, id: string): Promise<PayoutRow | undefined> {
  return findPayout(db, accountId, id);
}

/** A page of a payout's lines, in posting order, after `afterPostingId`. */
export function payoutLinesOf(db: Sql, accountId: string, payoutId: string, afterPostingId: number | null, limit: number): Promise<PayoutLineRow[]> {
  return payoutLines(db, accountId, payoutId, afterPostingId, limit);
}
