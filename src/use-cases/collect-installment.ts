import type { Sql } from '../db/database.ts';
import { EVENT } from '../domain/events.ts';
import { collectionJobKey, dueAt, installmentFailedComment, installmentPaidComment, retryDelayDays } from '../domain/installment-rules.ts';
import { scheduleJob } from '../jobs/scheduler.ts';
import type { TransactionResult } from '../psp/connector.ts';
import { findInstallment, installmentCounts, markInstallmentPaid, markInstallmentRefused, scheduledInstallments, type Installment } from '../payments/installment-repository.ts';
import { findPayment, pspRef, writeEvent, type PaymentRow } from '../payments/payment-repository.ts';
import { insertPayment, recordResult } from '../money/payment-record-repository.ts';
import { unresolvedInstallmentCharge } from '../payments/unresolved-payment-repository.ts';
import { loadPayState, lockPayState, setComment, type PurchasePayState } from '../payments/pay-state-repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import type { PaymentDeps } from './deps.ts';
import { schedulePreChargeNotice, sendCollectionNotice } from './shopper-notices.ts';
import { claimAlone, holding, isInProgress, waitForClaim, type InProgress } from '../money/claim.ts';
import { savedCard } from './stored-card.ts';

export const COLLECT_JOB = 'installment.collect';
/** The idempotency key of a collection's off-session charge (`<installment>:attempt:<n>`, {@link charge}), not the shopper's. */
const COLLECTION_KEY = /:attempt:\d+$/;

/** One collection job per installment still to collect, in the leader's transaction. */
export async function scheduleCollections(tx: Sql, accountId: string, purchaseId: string): Promise<void> {
  for (const i of await scheduledInstallments(tx, accountId, purchaseId)) {
    await scheduleJob(tx, { kind: COLLECT_JOB, key: collectionJobKey(i.id, 0), runAt: dueAt(i.dueDate), payload: { installmentId: i.id, attempts: 0 }, accountId });
    await schedulePreChargeNotice(tx, accountId, i);
  }
}

/**
 * `busy`: another charge of the plan is unresolved (the shopper paying now): the job runs again
 * once it is resolved. `in_progress`: another money operation holds the purchase (a refund, a
 * cancel, a renewal: docs/money-operations.md#one-money-operation-at-a-time): the job runs again
 * shortly, `trigger_capture` answers 409.
 */
export type CollectOutcome = 'paid' | 'already_paid' | 'retry_scheduled' | 'failed' | 'not_collectable' | 'busy' | 'in_progress';

/**
 * Collects one installment (the collection job, or `trigger_capture` for a deferred payment):
 * captures the deferred authorisation when there is one (falling back to an off-session charge
 * when the hold lapsed), else charges the saved card off-session. Each attempt has its own
 * idempotency key, so a retried job never charges twice. The last installment collected makes
 * the purchase SUCCESSFUL; a refusal past the dunning schedule FAILED.
 */
export async function collectInstallment(
  deps: PaymentDeps,
  accountId: string,
  installmentId: string,
  expectedAttempts?: number,
  opts: { waitMs?: number } = {},
): Promise<CollectOutcome> {
  const { db } = deps;
  const first = await findInstallment(db, accountId, installmentId);
  if (!first) return 'not_collectable';
  if (first.state === 'paid') return 'already_paid';
  // Under the purchase's claim, the installment, its hold and the purchase are read again: no
  // refund, cancel or renewal can change them until this attempt's answer is recorded.
  const claim = await claimAlone(deps, accountId, first.purchaseId, 'collection', opts.waitMs);
  if (isInProgress(claim)) return 'in_progress';
  return holding(deps, claim, () => collectClaimed(deps, accountId, installmentId, expectedAttempts, opts.waitMs));
}

async function collectClaimed(deps: PaymentDeps, accountId: string, installmentId: string, expectedAttempts?: number, waitMs?: number): Promise<CollectOutcome> {
  const { db } = deps;
  const inst = await findInstallment(db, accountId, installmentId);
  if (!inst) return 'not_collectable';
  if (inst.state === 'paid') return 'already_paid';
  // A dunning job is for one attempt: once that attempt was made (by another job of the same
  // batch, by trigger_capture), it has nothing left to do.
  if (expectedAttempts !== undefined && inst.attempts !== expectedAttempts) return 'not_collectable';
  const purchase = await loadPayState(db, accountId, inst.purchaseId);
  if (!purchase || purchase.state !== 'LEADER_PROCESSED' || inst.state !== 'scheduled') {
    // The installment was read before the purchase: a concurrent collector (trigger_capture
    // racing another call or the due-date job) may have paid it and moved the purchase on in
    // between. Read again, so that collector's success is answered as such, not as a refusal.
    const again = await findInstallment(db, accountId, installmentId);
    return again?.state === 'paid' ? 'already_paid' : 'not_collectable';
  }
  const attempt = inst.attempts + 1;
  const charged = await charge(deps, purchase, inst, attempt, waitMs);
  if ('skipped' in charged) return charged.skipped;
  // Read before the recording's transaction: the offer cache queries outside it when it must load.
  const downPayment = (await deps.offers.byId(accountId, purchase.offerId))?.type === 'DOWN_PAYMENT';
  const outcome = await recordAttempt(deps, inst, attempt, charged, downPayment);
  await sendCollectionNotice(deps, inst, attempt, outcome);
  return outcome;
}

/**
 * The PSP side of one attempt, outside any transaction; `skipped` when there is nothing to charge
 * any more (another collector of this attempt got there first, or the installment changed).
 * `waitMs`: how long it waits for another collection's charge of the plan, as for a claim.
 */
async function charge(
  deps: PaymentDeps,
  purchase: PurchasePayState,
  inst: Installment,
  attempt: number,
  waitMs?: number,
): Promise<{ payment: PaymentRow; result: TransactionResult } | { skipped: CollectOutcome }> {
  const { db, clock } = deps;
  const { accountId } = purchase;
  const amount = inst.amountCents + inst.feesCents;
  const key = `${inst.id}:attempt:${attempt}`;
  const hold = inst.paymentId ? await findPayment(db, accountId, inst.paymentId) : undefined;
  if (hold?.status === 'authorized' && hold.psp_transaction_id) {
    const captured = await (await deps.psps.forPayment(hold)).capture({ idempotencyKey: `${key}:capture`, transaction: pspRef(hold), amountCents: amount });
    if (captured.status === 'captured') return { payment: hold, result: captured };
    await db.transaction((tx) => recordResult(tx, hold, captured, purchase.state, clock.now()));
  } else if (hold && hold.status !== 'expired' && hold.status !== 'voided') {
    // The hold is not lapsed: it was captured (by a concurrent trigger_capture or the due-date
    // job), refunded, or its outcome is still unknown. Charging the card again would take the
    // money twice; only a hold that lapsed (or refused its capture, above) falls back to a charge.
    return { skipped: hold.status === 'captured' || hold.status === 'refunded' ? 'already_paid' : 'not_collectable' };
  }
  const { psp, paymentMethodId, storedCredential } = await savedCard(deps, purchase);
  // The off-session fallback and a plain installment: only while this attempt is still the
  // installment's next one (a concurrent collector, a refund that cancelled it, settle it), and
  // no other charge of the plan is unresolved (the shopper paying from their space): checked and
  // reserved under the purchase's lock, as the shopper's payment is (shopper-pay.ts). Collections
  // share the claim, not the card: another installment's collection awaiting its answer (due with
  // this one: a sandbox clock move, a catch-up after downtime) is waited for as a claim is, then
  // this one goes on, so the plan's charges run one after the other; still unanswered after the
  // wait, the job runs again shortly (docs/money-operations.md#one-money-operation-at-a-time).
  const reservation = () =>
    db.transaction(async (tx): Promise<{ payment: PaymentRow } | { skipped: CollectOutcome } | InProgress> => {
      await lockPayState(tx, accountId, inst.purchaseId);
      const now = await findInstallment(tx, accountId, inst.id, true);
      if (!now || now.state !== 'scheduled' || now.attempts !== inst.attempts) return { skipped: now?.state === 'paid' ? 'already_paid' : 'not_collectable' };
      // Changed under the claim by a writer that took none: never charged at the old amount, nor
      // abandoned; the job runs again and charges what is due then.
      if (now.amountCents !== inst.amountCents || now.feesCents !== inst.feesCents) return { skipped: 'in_progress' };
      const unresolved = await unresolvedInstallmentCharge(tx, accountId, inst.purchaseId, key);
      if (unresolved) return COLLECTION_KEY.test(unresolved.idempotency_key) ? { kind: 'operation_in_progress', operation: 'installment_charge' } : { skipped: 'busy' };
      const payment = await insertPayment(
        tx,
        { accountId, purchaseId: inst.purchaseId, purpose: 'installment', psp: psp.name, pspAccountId: psp.pspAccountId, idempotencyKey: key, amountCents: amount },
        clock.now(),
      );
      return { payment };
    });
  const reserved = await waitForClaim(deps, reservation, waitMs);
  if (isInProgress(reserved)) return { skipped: 'in_progress' };
  if ('skipped' in reserved) return reserved;
  const { payment } = reserved;
  const result = await psp.chargeOffSession({ idempotencyKey: key, paymentMethodId, amountCents: amount, currency: purchase.currency, storedCredential });
  return { payment, result };
}

/**
 * Records the attempt, then pays the installment, schedules the next dunning try, or fails the
 * purchase. `downPayment`: the plan is a down payment's, whose comments name its balance.
 */
async function recordAttempt(
  deps: PaymentDeps,
  inst: Installment,
  attempt: number,
  charged: { payment: PaymentRow; result: TransactionResult },
  downPayment: boolean,
): Promise<CollectOutcome> {
  const { db, clock } = deps;
  const { accountId, purchaseId } = inst;
  const { payment, result } = charged;
  const amount = inst.amountCents + inst.feesCents;
  return db.transaction(async (tx): Promise<CollectOutcome> => {
    const now = clock.now();
    const locked = await lockPayState(tx, accountId, purchaseId);
    const current = (await findInstallment(tx, accountId, inst.id, true))!;
    // Recorded once, by the recorder for whom the attempt is still current: a concurrent
    // collection of the same attempt (trigger_capture racing the due-date job) got the same
    // replayed PSP answer, already recorded.
    if (current.attempts !== inst.attempts) return current.state === 'paid' ? 'already_paid' : 'not_collectable';
    await recordResult(tx, payment, result, locked.state, now);
    if (current.state !== 'scheduled') return current.state === 'paid' ? 'already_paid' : 'not_collectable';
    const counts = await installmentCounts(tx, accountId, purchaseId);
    const event = { installment_id: inst.id, index: inst.index, amount_cents: amount, attempt };
    if (result.status === 'captured') {
      await markInstallmentPaid(tx, inst, attempt, payment.id, now);
      await writeEvent(tx, accountId, purchaseId, EVENT.installmentPaid, locked.state, event, now);
      const paid = counts.paid + 1;
      const comment = installmentPaidComment(paid, counts.total, downPayment);
      if (paid === counts.total) await applyMove(tx, clock, accountId, purchaseId, 'succeed', { comment });
      else await setComment(tx, accountId, purchaseId, comment);
      return 'paid';
    }
    const reason = result.decline?.reason ?? 'processing_error';
    await writeEvent(tx, accountId, purchaseId, EVENT.installmentFailed, locked.state, { ...event, reason }, now);
    const retryIn = retryDelayDays(attempt);
    await markInstallmentRefused(tx, inst, attempt, retryIn === undefined);
    if (retryIn !== undefined) {
      await scheduleJob(tx, {
        kind: COLLECT_JOB,
        key: collectionJobKey(inst.id, attempt),
        runAt: dueAt(inst.dueDate, retryIn),
        payload: { installmentId: inst.id, attempts: attempt },
        accountId,
      });
      return 'retry_scheduled';
    }
    await applyMove(tx, clock, accountId, purchaseId, 'fail', {
      comment: installmentFailedComment(inst.index, counts.total, attempt, reason, downPayment),
      data: { installment_id: inst.id, reason },
    });
    return 'failed';
  });
}
