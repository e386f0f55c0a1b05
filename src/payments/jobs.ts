import type { JobScheduler } from '../jobs/scheduler.ts';
import type { PaymentDeps } from './deps.ts';
import { COLLECT_JOB, collectInstallment } from './installments.ts';
import { POT_DEADLINE_JOB, POT_REMINDER_JOB, remindPledgers, settleDeadline } from './pot-settlement.ts';

/** The payment flows' durable jobs: the pot's deadline and reminder, installment collection. */
export function registerPaymentJobs(jobs: JobScheduler, deps: PaymentDeps): void {
  jobs.register(POT_DEADLINE_JOB, async (job) => {
    if (!job.accountId) return;
    return settleDeadline(deps, job.accountId, String(job.payload.purchaseId));
  });
  jobs.register(POT_REMINDER_JOB, async (job) => {
    if (!job.accountId) return;
    await remindPledgers(deps, job.accountId, String(job.payload.purchaseId));
  });
  jobs.register(COLLECT_JOB, async (job) => {
    if (!job.accountId) return;
    await collectInstallment(deps, job.accountId, String(job.payload.installmentId));
  });
}
