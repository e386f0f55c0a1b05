import { isLeaderPurpose } from '../../domain/leader-plan.ts';
import { staleUnresolvedPayments } from '../../payments/unresolved-payment-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { resolveLeaderAttempt } from '../checkout/resolve-leader-attempt.ts';
import { resolvePledgePayment } from '../pot/pay-pledge.ts';
import { resolveCardCheck } from '../installments/change-card.ts';
import { isReauthorization } from '../installments/reauthorize-hold.ts';
import { isShopperPayment, resolveShopperPayment } from '../shopper-space/shopper-pay.ts';

/**
 * Unresolved for this long (service clock), a payment without a lease is presumed abandoned by its
 * process: longer than a pledge's reservation (3-D Secure included). A pending payment whose
 * lease lapsed is resolved at the job's next run instead (docs/money-operations.md#payments-in-doubt).
 */
export const RECONCILE_AFTER_MS = 20 * 60_000;
const BATCH = 50;

/**
 * Resolves the payments nobody came back for: a request cut off between the PSP's answer and its
 * recording (in doubt once its lease lapsed, within seconds), a shopper who left a 3-D Secure
 * challenge (after 20 minutes). Each is resolved by the same function a
 * retry would use (its own idempotency key replayed, or the PSP asked), so its outcome is
 * recorded, notified and acted on exactly as if the first process had lived.
 *
 * The shopper's own payments from their space (pay now, repay early, a card change) are resolved
 * here too: an unresolved one holds back the plan's collection.
 *
 * Not here: collection charges and the pot's rest, whose keys derive from stored state and
 * whose jobs run again until recorded (at least once); the leader's `…:share` charge, resolved
 * with its guarantee; a re-authorisation (`…:reauth:<n>`), resolved by its job. Answers how many payments it resolved.
 */
export async function reconcilePayments(deps: PaymentDeps): Promise<number> {
  const stale = await staleUnresolvedPayments(deps.db, new Date(deps.clock.now().getTime() - RECONCILE_AFTER_MS), BATCH);
  let resolved = 0;
  for (const payment of stale) {
    try {
      if (payment.purpose === 'pledge') {
        await resolvePledgePayment(deps, payment);
        resolved++;
      } else if (isShopperPayment(payment)) {
        await resolveShopperPayment(deps, payment);
        resolved++;
      } else if (payment.purpose === 'card_check') {
        await resolveCardCheck(deps, payment);
        resolved++;
      } else if (isLeaderPurpose(payment.purpose) && !payment.idempotency_key.endsWith(':share') && !isReauthorization(payment)) {
        await resolveLeaderAttempt(deps, payment, RECONCILE_AFTER_MS);
        resolved++;
      }
    } catch (err) {
      // One payment the PSP cannot answer for now must not stop the others; it is tried again next run.
      deps.logger.warn({ err, paymentId: payment.id }, 'could not resolve an unresolved payment');
    }
  }
  return resolved;
}
