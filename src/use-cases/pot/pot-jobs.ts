import type { Sql } from '../../db/database.ts';
import { reminderAt } from '../../domain/pot.ts';
import { scheduleJob } from '../../jobs/scheduler.ts';

export const POT_DEADLINE_JOB = 'pot.deadline';
export const POT_REMINDER_JOB = 'pot.reminder';

/** The pot's deadline and the reminder before it, as durable jobs in the leader's transaction. */
export async function schedulePotJobs(tx: Sql, accountId: string, purchaseId: string, openedAt: Date, deadline: Date): Promise<void> {
  await scheduleJob(tx, { kind: POT_DEADLINE_JOB, key: `${POT_DEADLINE_JOB}:${purchaseId}`, runAt: deadline, payload: { purchaseId }, accountId });
  await scheduleJob(tx, { kind: POT_REMINDER_JOB, key: `${POT_REMINDER_JOB}:${purchaseId}`, runAt: reminderAt(openedAt, deadline), payload: { purchaseId }, accountId });
}
