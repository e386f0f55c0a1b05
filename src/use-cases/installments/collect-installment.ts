import type { Sql } from '../../db/database.ts';
import { EVENT } from '../../domain/events.ts';
import { collectionJobKey, dueAt, installmentFailedComment, installmentPaidComment, retryDelayDays } from '../../domain/installment-rules.ts';
import { scheduleJob } from '../../jobs/scheduler.ts';
import { findInstallment, installmentCounts, markInstallmentPaid, markInstallmentRefused, scheduledInstallments, type Installment } from '../../payments/installment-repository.ts';
import { findPayment, writeEvent, type PaymentRow } from '../../payments/payment-repository.ts';
import { runMovement, type Again, type Answer, type Book, type Call, type Step, type Take } from '../../money/movement.ts';
import { unresolvedInstallmentCharge } from '../../payments/unresolved-payment-repository.ts';
import { loadPayState, setComment, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import type { PaymentDeps } from '../deps.ts';
import { schedulePreChargeNotice, sendCollectionNotice } from '../notices/shopper-notices.ts';
import { isInProgress, type InProgress } from '../../money/claim.ts';
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
 * Collects one installment (the collection job, or `trigger_capture` for a deferred payment), as a
 * movement of the money engine (src/money/movement.ts): captures the deferred authorisation when
 * there is one (falling back to an off-session charge when the hold lapsed or refused), else
 * charges the saved card off-session. Each attempt has its own idempotency key, so a retried job
 * never charges twice. The last installment collected makes the purchase SUCCESSFUL; a refusal
 * past the dunning schedule FAILED.
 */
export async function collectInstallment(
  deps: PaymentDeps,
  accountId: string,
  installmentId: string,
  expectedAttempts?: number,
  opts: { waitMs?: number } = {},
): Promise<CollectOutcome> {
  const first = await findInstallment(deps.db, accountId, installmentId);
  if (!first) return 'not_collectable';
  if (first.state === 'paid') return 'already_paid';
  const out = await runMovement<Attempt, Collected, Step, Charged>(deps, {
    accountId,
    purchaseId: first.purchaseId,
    operation: 'collection',
    notFound: { outcome: 'not_collectable' },
    ...(opts.waitMs !== undefined ? { waitMs: opts.waitMs } : {}),
    reserve: (tx, locked, take) => reserveAttempt(tx, locked, take, installmentId, expectedAttempts),
    calls: (attempt, call, again) => charge(deps, attempt, call, again),
    settle: (tx, locked, answers, book, attempt, charged) => recordAttempt(deps, tx, locked, answers, book, attempt, charged),
    after: async ({ outcome, charged }, { inst, attempt }) => {
      if (charged) await sendCollectionNotice(deps, inst, attempt, outcome);
    },
  });
  return isInProgress(out) ? 'in_progress' : out.outcome;
}

/** One attempt at an installment, as its reservation found it: the attempt's number, and the deferred hold to capture if there is one. */
type Attempt = { inst: Installment; attempt: number; hold: PaymentRow | undefined };
/** What the PSP side did: `skipped` when there was nothing to charge any more; `downPayment`: the plan is a down payment's, whose comments name its balance. */
type Charged = { skipped: CollectOutcome } | { downPayment: boolean };
type Collected = { outcome: CollectOutcome; charged?: true };

/**
 * Under the purchase's claim, the installment, its hold and the purchase are read again: no refund,
 * cancel or renewal can change them until this attempt's answer is recorded. A dunning job is for
 * one attempt: once that attempt was made (by another job of the same batch, by trigger_capture),
 * it has nothing left to do.
 */
async function reserveAttempt(
  tx: Sql,
  purchase: PurchasePayState,
  take: Take,
  installmentId: string,
  expectedAttempts: number | undefined,
): Promise<{ go: Attempt } | { refuse: Collected } | InProgress> {
  const claim = await take();
  if (isInProgress(claim)) return claim;
  const refuse = (outcome: CollectOutcome) => ({ refuse: { outcome } });
  const inst = await findInstallment(tx, purchase.accountId, installmentId, true);
  if (!inst) return refuse('not_collectable');
  if (inst.state === 'paid') return refuse('already_paid');
  if (expectedAttempts !== undefined && inst.attempts !== expectedAttempts) return refuse('not_collectable');
  if (purchase.state !== 'LEADER_PROCESSED' || inst.state !== 'scheduled') return refuse('not_collectable');
  const hold = inst.paymentId ? await findPayment(tx, purchase.accountId, inst.paymentId) : undefined;
  if (hold?.status === 'authorized' && hold.psp_transaction_id) return { go: { inst, attempt: inst.attempts + 1, hold } };
  // The hold is not lapsed: it was captured (by a concurrent trigger_capture or the due-date job),
  // refunded, or its outcome is still unknown. Charging the card again would take the money twice;
  // only a hold that lapsed (or refused its capture, below) falls back to a charge.
  if (hold && hold.status !== 'expired' && hold.status !== 'voided') return refuse(hold.status === 'captured' || hold.status === 'refunded' ? 'already_paid' : 'not_collectable');
  return { go: { inst, attempt: inst.attempts + 1, hold: undefined } };
}

/**
 * The PSP side of one attempt, outside any transaction: the hold captured, or the saved card
 * charged off session on a payment row reserved for it.
 */
async function charge(deps: PaymentDeps, { inst, attempt, hold }: Attempt, call: Call<Step>, again: Again): Promise<Charged> {
  const { db } = deps;
  const { accountId } = inst;
  const amount = inst.amountCents + inst.feesCents;
  const key = `${inst.id}:attempt:${attempt}`;
  const purchase = (await loadPayState(db, accountId, inst.purchaseId))!;
  // Read outside the recording's transaction: the offer cache queries outside it when it must load.
  const downPayment = (await deps.offers.byId(accountId, purchase.offerId))?.type === 'DOWN_PAYMENT';
  if (hold) {
    const captured = await call({ payment: hold, call: { op: 'capture', key: `${key}:capture`, amountCents: amount } });
    if (captured.status === 'captured') return { downPayment };
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
  const reserved = await again(async (tx, _locked, reservePayment): Promise<{ payment: PaymentRow } | { skipped: CollectOutcome } | InProgress> => {
    const now = await findInstallment(tx, accountId, inst.id, true);
    if (!now || now.state !== 'scheduled' || now.attempts !== inst.attempts) return { skipped: now?.state === 'paid' ? 'already_paid' : 'not_collectable' };
    // Changed under the claim by a writer that took none: never charged at the old amount, nor
    // abandoned; the job runs again and charges what is due then.
    if (now.amountCents !== inst.amountCents || now.feesCents !== inst.feesCents) return { skipped: 'in_progress' };
    const unresolved = await unresolvedInstallmentCharge(tx, accountId, inst.purchaseId, key);
    if (unresolved) return COLLECTION_KEY.test(unresolved.idempotency_key) ? { kind: 'operation_in_progress', operation: 'installment_charge' } : { skipped: 'busy' };
    const payment = await reservePayment({
      accountId,
      purchaseId: inst.purchaseId,
      purpose: 'installment',
      psp: psp.name,
      pspAccountId: psp.pspAccountId,
      idempotencyKey: key,
      amountCents: amount,
    });
    return { payment };
  });
  if (isInProgress(reserved)) return { skipped: 'in_progress' };
  if ('skipped' in reserved) return reserved;
  await call({ payment: reserved.payment, call: { op: 'chargeOffSession', paymentMethodId, currency: purchase.currency, storedCredential } });
  return { downPayment };
}

/**
 * Records the attempt, then pays the installment, schedules the next dunning try, or fails the
 * purchase, under the purchase's lock. A capture of the hold that was refused before the fallback
 * charge is booked first; skipped, only what was asked is booked.
 */
async function recordAttempt(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  answers: Answer<Step>[],
  book: Book,
  { inst, attempt }: Attempt,
  charged: Charged,
): Promise<Collected> {
  const { clock } = deps;
  const { accountId, id: purchaseId } = locked;
  const amount = inst.amountCents + inst.feesCents;
  const now = clock.now();
  // Before the attempt's own answer (the last), a refused capture of the hold.
  for (const { payment, result } of 'skipped' in charged ? answers : answers.slice(0, -1)) await book(payment, result);
  if ('skipped' in charged) return { outcome: charged.skipped };
  const { payment, result } = answers.at(-1)!;
  const current = (await findInstallment(tx, accountId, inst.id, true))!;
  // Recorded once, by the recorder for whom the attempt is still current: a concurrent
  // collection of the same attempt (trigger_capture racing the due-date job) got the same
  // replayed PSP answer, already recorded.
  if (current.attempts !== inst.attempts) return { outcome: current.state === 'paid' ? 'already_paid' : 'not_collectable', charged: true };
  await book(payment, result);
  if (current.state !== 'scheduled') return { outcome: current.state === 'paid' ? 'already_paid' : 'not_collectable', charged: true };
  const counts = await installmentCounts(tx, accountId, purchaseId);
  const event = { installment_id: inst.id, index: inst.index, amount_cents: amount, attempt };
  const downPayment = charged.downPayment;
  if (result.status === 'captured') {
    await markInstallmentPaid(tx, inst, attempt, payment.id, now);
    await writeEvent(tx, accountId, purchaseId, EVENT.installmentPaid, locked.state, event, now);
    const paid = counts.paid + 1;
    const comment = installmentPaidComment(paid, counts.total, downPayment);
    if (paid === counts.total) await applyMove(tx, clock, accountId, purchaseId, 'succeed', { comment });
    else await setComment(tx, accountId, purchaseId, comment);
    return { outcome: 'paid', charged: true };
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
    return { outcome: 'retry_scheduled', charged: true };
  }
  await applyMove(tx, clock, accountId, purchaseId, 'fail', {
    comment: installmentFailedComment(inst.index, counts.total, attempt, reason, downPayment),
    data: { installment_id: inst.id, reason },
  });
  return { outcome: 'failed', charged: true };
}
