import type { Sql } from '../../db/database.ts';
import type { DisputeState } from '../../domain/disputes.ts';
import { findDispute, listDisputes, type DisputeCursor, type DisputeListRow, type DisputeRow } from '../../payments/dispute-repository.ts';

/**
 * The account's disputes as the back office reads them (docs/money-operations.md#disputes): the
 * list by deadline that `GET /api/backoffice/disputes` and the Disputes page page through, and one
 * dispute by id for the page's evidence form. Staff's evidence itself is `dispute.ts`'s.
 */

/** The account's disputes in `states`, by deadline (the nearest first, those without one last), `limit` after `after`. */
export function disputeList(db: Sql, accountId: string, states: readonly DisputeState[], after: DisputeCursor | null, limit: number): Promise<DisputeListRow[]> {
  return listDisputes(db, accountId, states, after, limit);
}

/** One of the account's disputes; another account's is undefined, as an unknown one is. */
export function disputeOf(db: Sql, accountId: string, id: string): Promise<DisputeRow | undefined> {
  return findDispute(db, accountId, id);
}
