import { isPspFault } from '../psp/connector.ts';
import { endPaymentLease, PAYMENT_LEASE_RENEW_MS, renewPaymentLease, type PaymentRow } from '../payments/payment-repository.ts';
import type { MoneyDeps } from './deps.ts';

/**
 * Runs a shopper's request on the payment it reserved (inserted `leased`) under the payment's
 * lease (docs/money-operations.md#payments-in-doubt): renewed while `run` goes on, so the
 * reconciliation job never resolves a payment a live request is still running (a slow PSP, a
 * 3-D Secure answer on its way). When `run` fails, the lease ends at once: after a PSP fault it
 * is cleared (nothing was recorded as charged, and the shopper's next attempt replays the same
 * key); after any other failure (the database lost while recording the PSP's
 * answer) it lapses, and the job resolves the payment within seconds. A process killed outright
 * stops renewing: the lease lapses by itself within 10 s. The renewal is the request's heartbeat,
 * which is why it is a timer and not a durable job (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job).
 */
export async function underPaymentLease<T>(deps: Pick<MoneyDeps, 'db' | 'logger'>, payment: PaymentRow, run: () => Promise<T>): Promise<T> {
  let renewal: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    // A renewal that fails (the database away) is left to the next one, or to the lease's end.
    renewal = renewPaymentLease(deps.db, payment).catch((err: unknown) => deps.logger.warn({ err, paymentId: payment.id }, 'could not renew a payment lease'));
  }, PAYMENT_LEASE_RENEW_MS);
  timer.unref();
  try {
    return await run();
  } catch (err) {
    clearInterval(timer);
    // A renewal under way must not extend the lease after it ended.
    await renewal;
    // The database away (the usual cause): the lease lapses by itself within 10 s.
    await endPaymentLease(deps.db, payment, isPspFault(err) ? 'cleared' : 'lapsed').catch(() => undefined);
    throw err;
  } finally {
    clearInterval(timer);
  }
}
