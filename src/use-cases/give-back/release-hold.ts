import type { Sql } from '../../db/database.ts';
import { isEnded } from '../../domain/disputes.ts';
import { EVENT } from '../../domain/events.ts';
import { sourceRefundableCents } from '../../domain/refund-allocation.ts';
import { disputesOfPayment } from '../../payments/dispute-repository.ts';
import { scheduleJob } from '../../jobs/scheduler.ts';
import { settleAlone } from '../../money/movement.ts';
import { callPsp } from '../../money/psp-call.ts';
import { findPayment, writeEvent, type PaymentRow } from '../../payments/payment-repository.ts';
import { lockPayState } from '../../payments/pay-state-repository.ts';
import { PspIntegrationError, type TransactionResult } from '../../psp/connector.ts';
import type { PaymentDeps } from '../deps.ts';

/**
 * Money a purchase must give back and whose PSP refused, or could not be reached
 * (docs/money-operations.md#one-money-operation-at-a-time): a hold of a cancelled purchase, a
 * payment taken after its purpose was gone (give-back.ts). Never only a log line: a durable job
 * tries again until the PSP released it, and the merchant is told once.
 */
export const RELEASE_JOB = 'payment.release';
/** How often a refused release is tried again (service clock). */
const RELEASE_RETRY_MS = 60 * 60_000;
/** The first follow-up runs soon after the refusal: most PSP faults are short. */
const RELEASE_FIRST_MS = 60_000;

/**
 * One try at giving back what a payment holds: its hold voided, or what it captured refunded (a
 * void refused because the PSP captured it; the amount is what the PSP shows left, so a refund
 * that went through unanswered before is never made twice). `key` names the try: the first one's
 * derives from the payment's key alone, so whoever makes it asks the PSP for the same operation; a
 * follow-up's adds its run's instant, since an idempotent PSP answers a refused key's refusal again.
 */
export async function releaseOnce(deps: PaymentDeps, hold: PaymentRow, key: string): Promise<{ done: true } | { done: false; reason: string }> {
  const { db, logger } = deps;
  const where = { account_id: hold.account_id, purchase_id: hold.purchase_id, payment_id: hold.id };
  try {
    let result: TransactionResult = await callPsp(deps, hold, hold.status === 'authorized' ? { op: 'void', key } : { op: 'retrieve' });
    // Captured money the bank disputes or took back is not Chipin's to refund
    // (docs/money-operations.md#refunds-and-disputes): an open chargeback is waited for, and
    // what lost ones took is given back already.
    let bank: 'waits' | 'gave_back' | undefined;
    if (result.decline || result.status === 'captured') {
      // Refused: what does the PSP hold? Captured money is given back; a hold still there is not.
      result = result.status === 'captured' ? result : await callPsp(deps, hold, { op: 'retrieve' }, result);
      if (result.status === 'captured' && result.capturedCents - result.refundedCents > 0) {
        const chargebacks = await chargebacksOf(db, hold);
        const left = sourceRefundableCents({ ...chargebacks, paymentId: hold.id, payer: 'leader', capturedCents: result.capturedCents, refundedCents: result.refundedCents });
        if (chargebacks.chargebackOpen) bank = 'waits';
        else if (left === 0) bank = 'gave_back';
        else result = await callPsp(deps, hold, { op: 'refund', key: `${key}-refund`, amountCents: left }, result);
      }
    }
    const released =
      bank === 'gave_back' ||
      (bank === undefined && !result.decline && (result.status === 'voided' || result.status === 'refunded' || result.status === 'expired' || result.status === 'declined'));
    await settleAlone(deps, hold, async (tx, locked, book) => {
      const current = (await findPayment(tx, hold.account_id, hold.id))!;
      // A refusal itself is not the payment's new state: only what the PSP holds is recorded. A
      // cancelled purchase's hold released is the cancel's outcome, notified in back mode; a
      // pledger's money given back never is (docs/webhooks.md#back-mode-notification).
      const outcome = locked.state === 'CANCELLED' && current.purpose !== 'pledge';
      if (!result.decline) await book(current, result, { outcome });
    });
    if (released) return { done: true };
    if (bank === 'waits') return { done: false, reason: 'a chargeback is open on the payment: what it holds is given back once the bank has decided' };
    const reason = result.decline ? `${result.decline.reason}: ${result.decline.message}` : `the PSP shows the payment ${result.status}`;
    logger.warn({ ...where, reason }, 'the PSP refused to give back what a payment holds: followed up');
    return { done: false, reason };
  } catch (err) {
    if (!(err instanceof PspIntegrationError)) throw err;
    logger.warn({ err, ...where }, 'could not give back what a payment holds: followed up');
    return { done: false, reason: `${err.code}: ${err.message}` };
  }
}

/** The payment's chargebacks as Chipin recorded them: what the lost ones took, and whether one awaits the bank's decision. */
async function chargebacksOf(sql: Sql, payment: PaymentRow): Promise<{ chargedBackCents: number; chargebackOpen: boolean }> {
  const chargebacks = (await disputesOfPayment(sql, payment.account_id, payment.id)).filter((d) => d.kind === 'chargeback');
  return {
    chargedBackCents: chargebacks.filter((d) => d.state === 'lost').reduce((total, d) => total + d.amount_cents, 0),
    chargebackOpen: chargebacks.some((d) => !isEnded(d.state)),
  };
}

/** Whether a payment still holds money at its PSP, as Chipin recorded it: an authorisation, or captured money not refunded. */
export function holdsMoney(p: Pick<PaymentRow, 'status' | 'captured_cents' | 'refunded_cents' | 'psp_transaction_id'>): boolean {
  return p.psp_transaction_id !== null && (p.status === 'authorized' || p.status === 'requires_action' || (p.captured_cents > p.refunded_cents && p.status !== 'refunded'));
}

/** A release not done yet: the durable job takes it up, and the merchant learns it once (event `payment.release_failed`, webhook `releaseFailed`). */
export async function followUp(deps: PaymentDeps, hold: PaymentRow, reason: string): Promise<void> {
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
  if (!hold || !holdsMoney(hold)) return undefined;
  const now = deps.clock.now();
  const released = await releaseOnce(deps, hold, `${hold.idempotency_key}:release:${now.getTime()}`);
  return released.done ? undefined : { retryAt: new Date(now.getTime() + RELEASE_RETRY_MS) };
}
