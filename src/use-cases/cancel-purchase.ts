import type { Actor } from '../audit/audit-log.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import { EVENT } from '../domain/events.ts';
import { isUuid } from '../domain/ids.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { scheduleJob } from '../jobs/scheduler.ts';
import { findPayment, pspRef, recordResult, resultRef, writeEvent, type PaymentRow } from '../payments/payment-repository.ts';
import { loadPayState, lockPayState } from '../payments/pay-state-repository.ts';
import { closePledges } from '../payments/pledge-repository.ts';
import { anyCaptured, cancelScheduledInstallments, heldPaymentIds } from '../payments/refund-repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import { PspIntegrationError, type TransactionResult } from '../psp/connector.ts';
import type { PaymentDeps } from './deps.ts';
import { claimPurchase, isInProgress, releaseClaim, waitForClaim, type InProgress, type MoneyClaim } from './money-claim.ts';

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

/** The durable follow-up of a hold (or money) a cancelled purchase must give back and whose PSP refused or could not be reached. */
export const RELEASE_JOB = 'payment.release';
/** How often a refused release is tried again (service clock). */
const RELEASE_RETRY_MS = 60 * 60_000;
/** The first follow-up runs soon after the refusal: most PSP faults are short. */
const RELEASE_FIRST_MS = 60_000;

/**
 * The merchant cancels a purchase on which nothing was captured
 * (docs/purchase-lifecycle.md#cancel). Under the purchase's claim
 * (docs/money-operations.md#one-money-operation-at-a-time), in one transaction under the row lock,
 * it moves to CANCELLED, the pot's open pledges are closed and the installments still to collect
 * dropped; then, outside it and still under the claim, every hold still authorised (a deferred
 * payment, a pot's guarantee) is voided at its PSP and the voids recorded (each one a back-mode
 * notification `voided`). A CANCELLED purchase keeps nothing: a void the PSP refuses or cannot
 * take becomes a durable follow-up ({@link releaseHold}), and money it finds captured is refunded.
 */
export async function cancelPurchase(deps: PaymentDeps, input: { accountId: string; purchaseId: string; actor: Actor }): Promise<CancelOutcome> {
  const { db, clock } = deps;
  const { accountId, purchaseId } = input;
  if (!isUuid(purchaseId)) return { kind: 'not_found' };
  const outcome = await waitForClaim(deps, () =>
    db.transaction(async (tx): Promise<CancelOutcome | { kind: 'cancelled'; state: 'CANCELLED'; claim: MoneyClaim }> => {
      const locked = await loadPayState(tx, accountId, purchaseId, true);
      if (!locked) return { kind: 'not_found' };
      if (locked.state !== 'CREATED' && locked.state !== 'LEADER_PROCESSED') {
        return locked.state === 'SUCCESSFUL' ? { kind: 'captured', state: locked.state } : { kind: 'not_cancellable', state: locked.state };
      }
      // A charge awaiting its outcome (an installment, the shopper paying now) could still capture:
      // the cancel waits for it, then finds the money captured (refund instead) or nothing.
      const claim = await claimPurchase(tx, accountId, purchaseId, 'cancel', { unresolvedBlocks: true });
      if (isInProgress(claim)) return claim;
      const refused = async (o: CancelOutcome): Promise<CancelOutcome> => {
        await releaseClaim(tx, claim);
        return o;
      };
      if (await anyCaptured(tx, accountId, purchaseId)) return refused({ kind: 'captured', state: locked.state });
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
  try {
    await voidHolds(deps, accountId, purchaseId);
  } finally {
    await releaseClaim(db, outcome.claim);
  }
  return { kind: 'cancelled', state: 'CANCELLED' };
}

/** Voids the purchase's holds still authorised; what the PSP refuses or cannot take now is followed up by a durable job. */
export async function voidHolds(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  for (const id of await heldPaymentIds(deps.db, accountId, purchaseId)) {
    const hold = (await findPayment(deps.db, accountId, id))!;
    const released = await releaseOnce(deps, hold);
    if (!released.done) await followUp(deps, hold, released.reason);
  }
}

/**
 * One try at giving back what a payment of a cancelled purchase holds: its hold voided, or what
 * it captured refunded (a void refused because the PSP captured it). The keys derive from the
 * payment's, so every try, whoever makes it, asks the PSP for the same operation.
 */
async function releaseOnce(deps: PaymentDeps, hold: PaymentRow): Promise<{ done: true } | { done: false; reason: string }> {
  const { db, clock, logger } = deps;
  try {
    const psp = await deps.psps.forPayment(hold);
    let result: TransactionResult =
      hold.status === 'authorized' ? await psp.void({ idempotencyKey: `${hold.idempotency_key}:cancel`, transaction: pspRef(hold) }) : await psp.retrieve(pspRef(hold));
    if (result.decline || result.status === 'captured') {
      // Refused: what does the PSP hold? Captured money is given back; a hold still there is not.
      const seen = result.status === 'captured' ? result : await psp.retrieve(resultRef(hold, result));
      if (seen.status === 'captured' && seen.capturedCents - seen.refundedCents > 0) {
        result = await psp.refund({
          idempotencyKey: `${hold.idempotency_key}:cancel-refund`,
          transaction: resultRef(hold, seen),
          amountCents: seen.capturedCents - seen.refundedCents,
        });
      } else result = seen;
    }
    const released = !result.decline && (result.status === 'voided' || result.status === 'refunded' || result.status === 'expired' || result.status === 'declined');
    await db.transaction(async (tx) => {
      const locked = await lockPayState(tx, hold.account_id, hold.purchase_id);
      const current = (await findPayment(tx, hold.account_id, hold.id))!;
      // A refusal itself is not the payment's new state: only what the PSP holds is recorded.
      if (!result.decline) await recordResult(tx, current, result, locked.state, clock.now());
    });
    if (released) return { done: true };
    const reason = result.decline ? `${result.decline.reason}: ${result.decline.message}` : `the PSP shows the payment ${result.status}`;
    logger.warn(
      { account_id: hold.account_id, purchase_id: hold.purchase_id, payment_id: hold.id, reason },
      'the PSP refused to release a hold of a cancelled purchase: followed up',
    );
    return { done: false, reason };
  } catch (err) {
    if (!(err instanceof PspIntegrationError)) throw err;
    logger.warn({ err, account_id: hold.account_id, purchase_id: hold.purchase_id, payment_id: hold.id }, 'could not release a hold of a cancelled purchase: followed up');
    return { done: false, reason: `${err.code}: ${err.message}` };
  }
}

/** A release not done yet: the durable job takes it up, and the merchant learns it once (event `payment.release_failed`, webhook `releaseFailed`). */
async function followUp(deps: PaymentDeps, hold: PaymentRow, reason: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const locked = await lockPayState(tx, hold.account_id, hold.purchase_id);
    const added = await scheduleJob(tx, {
      kind: RELEASE_JOB,
      key: `${RELEASE_JOB}:${hold.id}`,
      runAt: new Date(now.getTime() + RELEASE_FIRST_MS),
      payload: { paymentId: hold.id },
      accountId: hold.account_id,
    });
    if (added) await writeEvent(tx, hold.account_id, hold.purchase_id, EVENT.releaseFailed, locked.state, { payment_id: hold.id, amount_cents: hold.amount_cents, reason }, now);
  });
}

/** The follow-up job of one payment: tried again hourly until the PSP released it. Answers when to run again, if it must. */
export async function releaseHold(deps: PaymentDeps, accountId: string, paymentId: string): Promise<{ retryAt: Date } | undefined> {
  const hold = await findPayment(deps.db, accountId, paymentId);
  if (!hold || !hold.psp_transaction_id) return undefined;
  if (hold.status !== 'authorized' && !(hold.status === 'captured' && hold.captured_cents > hold.refunded_cents)) return undefined;
  const released = await releaseOnce(deps, hold);
  return released.done ? undefined : { retryAt: new Date(deps.clock.now().getTime() + RELEASE_RETRY_MS) };
}
