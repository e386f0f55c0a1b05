import type { JobScheduler } from '../jobs/scheduler.ts';
import { RELEASE_JOB, releaseHold } from './give-back/release-hold.ts';
import { COLLECT_JOB, collectInstallment } from './installments/collect-installment.ts';
import type { PaymentDeps } from './deps.ts';
import { CLAIM_RETRY_MS, JOB_CLAIM_WAIT_MS } from '../money/claim.ts';
import { EXPIRE_JOB, expirePurchase } from './checkout/expire-purchase.ts';
import { POT_DEADLINE_JOB, POT_REMINDER_JOB } from './pot/pot-jobs.ts';
import { RECONCILE_EVERY_MS, RECONCILE_JOB } from '../jobs/reconciliation.ts';
import { RECONCILE_AFTER_MS, reconcilePayments } from './reconciliation/reconcile-payments.ts';
import { executeRefund, REFUND_JOB } from './refunds/refund-purchase.ts';
import { reauthorizeHold, REAUTH_JOB } from './installments/reauthorize-hold.ts';
import { DAILY_RECON_EVERY_MS, DAILY_RECON_JOB, reconcileYesterday } from './reconciliation/reconcile-psp.ts';
import { remindPot } from './pot/remind-pot.ts';
import { scheduleJob } from '../jobs/scheduler.ts';
import { settlePotDeadline } from './pot/settle-pot-deadline.ts';
import { PRECHARGE_NOTICE_JOB, sendPreChargeNotice } from './notices/shopper-notices.ts';
import { PAYOUT_EVERY_MS, PAYOUT_JOB, runPayouts } from './payouts/payouts.ts';

/** The payment use cases' durable jobs: the pot's deadline and reminder, installment collection, reconciliation, transfer mode's payouts, legacy expiry jobs, refunds cut short, hold renewals. */
export function registerPaymentJobs(jobs: JobScheduler, deps: PaymentDeps): void {
  /** A job that found the purchase claimed by another money operation runs again shortly (docs/money-operations.md#one-money-operation-at-a-time). */
  const shortly = () => ({ retryAt: new Date(deps.clock.now().getTime() + CLAIM_RETRY_MS) });
  jobs.register(POT_DEADLINE_JOB, async (job) => {
    if (!job.accountId) return;
    const outcome = await settlePotDeadline(deps, job.accountId, String(job.payload.purchaseId), { waitMs: JOB_CLAIM_WAIT_MS });
    // A pledger's payment still in flight: run again once its reservation ends.
    if (outcome.kind === 'wait') return { retryAt: outcome.until };
  });
  jobs.register(POT_REMINDER_JOB, async (job) => {
    if (!job.accountId) return;
    await remindPot(deps, job.accountId, String(job.payload.purchaseId));
  });
  jobs.register(COLLECT_JOB, async (job) => {
    if (!job.accountId) return;
    const attempts = job.payload.attempts;
    const outcome = await collectInstallment(deps, job.accountId, String(job.payload.installmentId), typeof attempts === 'number' ? attempts : undefined, {
      waitMs: JOB_CLAIM_WAIT_MS,
    });
    // The shopper's own payment of the plan is under way: once it is resolved (at the latest by
    // the reconciliation), this attempt is made, or finds the installment paid.
    if (outcome === 'busy') return { retryAt: new Date(deps.clock.now().getTime() + RECONCILE_AFTER_MS) };
    // Another money operation holds the purchase: never abandoned, tried again once it is done
    // (docs/money-operations.md#one-money-operation-at-a-time).
    if (outcome === 'in_progress') return shortly();
  });
  // Service-wide and perpetual: it reschedules itself, so a sandbox clock move runs it too.
  jobs.register(RECONCILE_JOB, async () => {
    await reconcilePayments(deps);
    // The daily reconciliation with the PSPs starts with the first payment, as this job does (a no-op once it exists).
    await scheduleJob(deps.db, { kind: DAILY_RECON_JOB, key: DAILY_RECON_JOB, runAt: deps.clock.now(), payload: {} });
    // So do the daily payouts of transfer mode (docs/money-operations.md#payouts).
    await scheduleJob(deps.db, { kind: PAYOUT_JOB, key: PAYOUT_JOB, runAt: deps.clock.now(), payload: {} });
    return { retryAt: new Date(deps.clock.now().getTime() + RECONCILE_EVERY_MS) };
  });
  // Reconciliation with the PSPs, yesterday in each account's time zone (docs/money-operations.md#reconciliation).
  jobs.register(DAILY_RECON_JOB, async () => {
    await reconcileYesterday(deps);
    return { retryAt: new Date(deps.clock.now().getTime() + DAILY_RECON_EVERY_MS) };
  });
  // Transfer mode's payouts, each merchant's day once ended in its time zone (docs/money-operations.md#payouts).
  jobs.register(PAYOUT_JOB, async () => {
    await runPayouts(deps);
    return { retryAt: new Date(deps.clock.now().getTime() + PAYOUT_EVERY_MS) };
  });
  // Refunds cut short (docs/purchase-lifecycle.md#refunds). Expiry is a sweep (ExpirySweep, app.ts);
  // this job expires the purchases created with one instead: by a build before the sweep, and by
  // the previous build during a rolling upgrade (docs/deployment.md#rolling-upgrade).
  jobs.register(EXPIRE_JOB, async (job) => {
    if (!job.accountId) return;
    const outcome = await expirePurchase(deps, job.accountId, String(job.payload.purchaseId));
    if (outcome.kind === 'wait') return { retryAt: outcome.until };
  });
  jobs.register(REFUND_JOB, async (job) => {
    if (!job.accountId) return;
    const outcome = await executeRefund(deps, job.accountId, String(job.payload.refundId), { resumed: true, waitMs: JOB_CLAIM_WAIT_MS });
    if (outcome === 'in_progress') return shortly();
  });
  // A hold renewed before it lapses (docs/money-operations.md#re-authorisation).
  jobs.register(REAUTH_JOB, async (job) => {
    if (!job.accountId) return;
    const outcome = await reauthorizeHold(deps, job.accountId, String(job.payload.paymentId), { waitMs: JOB_CLAIM_WAIT_MS });
    if (outcome === 'in_progress') return shortly();
  });
  // Money a purchase must give back that its PSP refused to release, tried again until released
  // (docs/money-operations.md#one-money-operation-at-a-time).
  jobs.register(RELEASE_JOB, async (job) => {
    if (!job.accountId) return;
    return releaseHold(deps, job.accountId, String(job.payload.paymentId));
  });
  // A few days before each off-session charge (docs/messaging.md).
  jobs.register(PRECHARGE_NOTICE_JOB, async (job) => {
    if (!job.accountId) return;
    await sendPreChargeNotice(deps, job.accountId, String(job.payload.installmentId));
  });
}
