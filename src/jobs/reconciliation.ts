import type { Sql } from '../db/database.ts';
import { scheduleJob } from './scheduler.ts';

/**
 * The reconciliation job's schedule, apart from its handler (use-cases/reconciliation/reconcile-payments.ts): the
 * leader's checkout and the pledge payment schedule it, and the handler calls back into both, so
 * keeping the schedule here keeps the use cases free of an import cycle.
 */
export const RECONCILE_JOB = 'payments.reconcile';
/**
 * How often the job looks: a payment whose request was cut off is resolved within seconds of its
 * lease lapsing (docs/money-operations.md#payments-in-doubt). A run that finds nothing reads a
 * few unresolved rows through a partial index and writes only the job's own row.
 */
export const RECONCILE_EVERY_MS = 5_000;

/**
 * The one service-wide reconciliation job, scheduled in the transaction of every attempt that
 * reserves a payment (a no-op once it exists: the key is fixed, and the job reschedules itself
 * for ever after).
 */
export async function scheduleReconciliation(sql: Sql, now: Date): Promise<void> {
  await scheduleJob(sql, { kind: RECONCILE_JOB, key: RECONCILE_JOB, runAt: new Date(now.getTime() + RECONCILE_EVERY_MS), payload: {} });
}
