import type { Actor } from '../audit/audit-log.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import { isUuid } from '../domain/ids.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { findPayment, pspRef, recordResult } from '../payments/payment-repository.ts';
import { loadPayState } from '../payments/pay-state-repository.ts';
import { closePledges } from '../payments/pledge-repository.ts';
import { anyCaptured, cancelScheduledInstallments, heldPaymentIds } from '../payments/refund-repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import { PspIntegrationError } from '../psp/connector.ts';
import type { PaymentDeps } from './deps.ts';

export type CancelOutcome =
  | { kind: 'cancelled'; state: 'CANCELLED' }
  /** Malformed, unknown and other accounts' purchases alike. */
  | { kind: 'not_found' }
  /** Money was captured: the merchant refunds instead. */
  | { kind: 'captured'; state: PurchaseState }
  /** Already settled (cancelled, aborted, failed, refunded, successful). */
  | { kind: 'not_cancellable'; state: PurchaseState };

export const CANCELLED_COMMENT = 'Cancelled by the merchant.';

/**
 * The merchant cancels a purchase on which nothing was captured
 * (docs/purchase-lifecycle.md#cancel): in one transaction under the row lock it moves to
 * CANCELLED, the pot's open pledges are closed and the installments still to collect dropped;
 * then, outside it, every hold still authorised (a deferred payment, a pot's guarantee) is voided
 * at its PSP and the voids recorded (each one a back-mode notification `voided`).
 */
export async function cancelPurchase(deps: PaymentDeps, input: { accountId: string; purchaseId: string; actor: Actor }): Promise<CancelOutcome> {
  const { db, clock } = deps;
  const { accountId, purchaseId } = input;
  if (!isUuid(purchaseId)) return { kind: 'not_found' };
  const outcome = await db.transaction(async (tx): Promise<CancelOutcome> => {
    const locked = await loadPayState(tx, accountId, purchaseId, true);
    if (!locked) return { kind: 'not_found' };
    if (locked.state !== 'CREATED' && locked.state !== 'LEADER_PROCESSED') {
      return locked.state === 'SUCCESSFUL' ? { kind: 'captured', state: locked.state } : { kind: 'not_cancellable', state: locked.state };
    }
    if (await anyCaptured(tx, accountId, purchaseId)) return { kind: 'captured', state: locked.state };
    const now = clock.now();
    const moved = await applyMove(tx, clock, accountId, purchaseId, 'cancel', { comment: CANCELLED_COMMENT, data: { by: 'merchant' } });
    if (!moved.ok) return { kind: 'not_cancellable', state: locked.state };
    await closePledges(tx, accountId, purchaseId, ['draft', 'invited', 'paying'], 'cancelled', now);
    await cancelScheduledInstallments(tx, accountId, purchaseId);
    await recordAudit(tx, { accountId, actor: input.actor, action: 'cancel', subject: purchaseId });
    return { kind: 'cancelled', state: 'CANCELLED' };
  });
  if (outcome.kind === 'cancelled') await voidHolds(deps, accountId, purchaseId);
  return outcome;
}

/** Voids the purchase's holds still authorised; a PSP fault is logged (the hold lapses on its own). */
export async function voidHolds(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  const { db, clock, psps, logger } = deps;
  for (const id of await heldPaymentIds(db, accountId, purchaseId)) {
    const hold = (await findPayment(db, accountId, id))!;
    try {
      const result = await (await psps.forPayment(hold)).void({ idempotencyKey: `${hold.idempotency_key}:cancel`, transaction: pspRef(hold) });
      if (result.decline)
        logger.warn({ account_id: accountId, purchase_id: purchaseId, payment_id: id, reason: result.decline.reason }, 'the PSP refused to void a hold on cancel');
      else await db.transaction((tx) => recordResult(tx, hold, result, 'CANCELLED', clock.now()));
    } catch (err) {
      if (!(err instanceof PspIntegrationError)) throw err;
      logger.warn({ err, account_id: accountId, purchase_id: purchaseId, payment_id: id }, 'could not void a hold on cancel');
    }
  }
}
