import type { Sql } from '../../db/database.ts';
import { listMismatches, listRuns, type MismatchRow, type MismatchState, type RunRow } from '../../payments/reconciliation-repository.ts';

/**
 * The account's reconciliation runs and mismatches as the back office reads them
 * (docs/money-operations.md#reconciliation): newest first, for `GET /api/backoffice/reconciliation_runs`,
 * `…/reconciliation_mismatches` and the Reconciliation page. Running a period and marking a
 * mismatch are `reconcile-psp.ts`'s.
 */

export type { MismatchRow, MismatchState, RunRow };

/** The account's runs, newest first, after `before` (started_at, id) when given. */
export function reconciliationRuns(db: Sql, accountId: string, limit: number, before: { startedAt: Date; id: string } | null): Promise<RunRow[]> {
  return listRuns(db, accountId, limit, before);
}

/** The account's mismatches (of one state when given), newest first, after `before` (created_at, id). */
export function reconciliationMismatches(
  db: Sql,
  accountId: string,
  state: MismatchState | null,
  limit: number,
  before: { createdAt: Date; id: string } | null,
): Promise<MismatchRow[]> {
  return listMismatches(db, accountId, state, limit, before);
}
