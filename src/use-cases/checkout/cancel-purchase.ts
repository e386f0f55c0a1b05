import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import { isUuid } from '../../domain/ids.ts';
import { cancelBar, type PurchaseState } from '../../domain/purchase-states.ts';
import { findPayment } from '../../payments/payment-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { closePledges } from '../../payments/pledge-repository.ts';
import { anyCaptured, cancelScheduledInstallments, heldPaymentIds } from '../../payments/refund-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import type { PaymentDeps } from '../deps.ts';
import { claimPurchase, holding, isInProgress, releaseClaim, waitForClaim, type InProgress, type MoneyClaim } from '../../money/claim.ts';
import { followUp, releaseOnce } from '../give-back/release-hold.ts';

export type CancelOutcome =
  | { kind: 'cancelled'; state: 'CANCELLED' }
  /** Malformed, unknown and other accounts' purchases alike. */
  | { kind: 'not_found' }
  /** Money was captured: the merchant refunds instead. */
  | { kind: 'captured'; state: PurchaseState }
  /** Already settled (cancelled, aborted, failed, refunded, successful). */
  | { kind: 'not_cancellable'; state: PurchaseState }
  /** Another money operation holds the purchase (a collection, a capture, a refund): retry. */
  | InProgress;

export const CANCELLED_COMMENT = 'Cancelled by the merchant.';

/**
 * The merchant cancels a purchase on which nothing was captured
 * (docs/purchase-lifecycle.md#cancel). Under the purchase's claim
 * (docs/money-operations.md#one-money-operation-at-a-time), in one transaction under the row lock,
 * it moves to CANCELLED, the pot's open pledges are closed and the installments still to collect
 * dropped; then, outside it and still under the claim, every hold still authorised (a deferred
 * payment, a pot's guarantee) is voided at its PSP and the voids recorded (each one a back-mode
 * notification `voided`). A CANCELLED purchase keeps nothing: a void the PSP refuses or cannot
 * take becomes a durable follow-up (release-hold.ts), and money it finds captured is refunded.
 */
export async function cancelPurchase(deps: PaymentDeps, input: { accountId: string; purchaseId: string; actor: Actor }): Promise<CancelOutcome> {
  const { db, clock } = deps;
  const { accountId, purchaseId } = input;
  if (!isUuid(purchaseId)) return { kind: 'not_found' };
  const outcome = await waitForClaim(deps, () =>
    db.transaction(async (tx): Promise<CancelOutcome | { kind: 'cancelled'; state: 'CANCELLED'; claim: MoneyClaim }> => {
      const locked = await loadPayState(tx, accountId, purchaseId, true);
      if (!locked) return { kind: 'not_found' };
      // The state alone first: no claim is taken on a purchase its state already bars.
      const byState = cancelBar(locked.state, false);
      if (byState) return { kind: byState, state: locked.state };
      // A charge awaiting its outcome (an installment, the shopper paying now) could still capture:
      // the cancel waits for it, then finds the money captured (refund instead) or nothing.
      const claim = await claimPurchase(tx, accountId, purchaseId, 'cancel', { unresolvedBlocks: true });
      if (isInProgress(claim)) return claim;
      const refused = async (o: CancelOutcome): Promise<CancelOutcome> => {
        await releaseClaim(tx, claim);
        return o;
      };
      const bar = cancelBar(locked.state, await anyCaptured(tx, accountId, purchaseId));
      if (bar) return refused({ kind: bar, state: locked.state });
      const now = clock.now();
      const moved = await applyMove(tx, clock, accountId, purchaseId, 'cancel', { comment: CANCELLED_COMMENT, data: { by: 'merchant' } });
      if (!moved.ok) return refused({ kind: 'not_cancellable', state: locked.state });
      await closePledges(tx, accountId, purchaseId, ['draft', 'invited', 'paying'], 'cancelled', now);
      await cancelScheduledInstallments(tx, accountId, purchaseId);
      await recordAudit(tx, { accountId, actor: input.actor, action: 'cancel', subject: purchaseId });
      return { kind: 'cancelled', state: 'CANCELLED', claim };
    }),
  );
  if (outcome.kind !== 'cancelled' || !('claim' in outcome)) return outcome;
  await holding(deps, outcome.claim, () => voidHolds(deps, accountId, purchaseId));
  return { kind: 'cancelled', state: 'CANCELLED' };
}

/** Voids the purchase's holds still authorised; what the PSP refuses or cannot take now is followed up by a durable job. */
async function voidHolds(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  for (const id of await heldPaymentIds(deps.db, accountId, purchaseId)) {
    const hold = (await findPayment(deps.db, accountId, id))!;
    const released = await releaseOnce(deps, hold, `${hold.idempotency_key}:cancel`);
    if (!released.done) await followUp(deps, hold, released.reason);
  }
}
