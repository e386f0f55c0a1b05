import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { Sql } from '../../db/database.ts';
import { EVENT } from '../../domain/events.ts';
import { isUuid, newUuid } from '../../domain/ids.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import { everythingCents, planRefund } from '../../domain/refund-allocation.ts';
import { cancelJob, scheduleJob } from '../../jobs/scheduler.ts';
import { isInProgress, type InProgress } from '../../money/claim.ts';
import { runMovement, type Answer, type Book, type Movement, type Take } from '../../money/movement.ts';
import type { PspStep } from '../../money/psp-call.ts';
import { PspIntegrationError } from '../../psp/connector.ts';
import { amountStepRefusal } from '../../psp/definition.ts';
import { findPayment, writeEvent, type PaymentRow } from '../../payments/payment-repository.ts';
import { loadPayState, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { closePledges } from '../../payments/pledge-repository.ts';
import {
  cancelScheduledInstallments,
  findRefund,
  findRefundIdByRequestKey,
  insertRefund,
  listRefunds,
  lowerInstallment,
  otherPendingRefund,
  pendingAllocationsAndInstallments,
  refundedSoFar,
  refundSources,
  setRefundState,
  settleAllocation,
  uncollectedInstallments,
  type Refund,
  type RefundAllocationRow,
  type RefundState,
} from '../../payments/refund-repository.ts';
import { bookInstallmentLowered } from '../../payments/transfer-booking-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import { releaseGuarantee } from '../pot/close-pot.ts';
import type { PaymentDeps } from '../deps.ts';
import { sendRefundNotices } from '../notices/shopper-notices.ts';

export const REFUND_JOB = 'refund.resume';
/** A refund whose PSP calls were cut short (crash, PSP unreachable) is taken up again after this. */
const RESUME_AFTER_MS = 10 * 60_000;

export type RefundOutcome =
  | { kind: 'created'; refund: Refund }
  /** Malformed, unknown and other accounts' purchases alike. */
  | { kind: 'not_found' }
  /** The amount is not refundable (≤ 0, fractional, more than what is left, nothing captured); the message names the request's field. */
  | { kind: 'invalid'; field: string; message: string }
  /** The amount needs a payment a chargeback is open on (docs/money-operations.md#refunds-and-disputes). */
  | { kind: 'charge_disputed'; message: string }
  /** Another money operation holds the purchase, or money of it is in flight: retry (docs/money-operations.md#one-money-operation-at-a-time). */
  | InProgress;

/** A merchant's refund request, whichever route it came by. */
export interface RefundRequest {
  accountId: string;
  purchaseId: string;
  /** Absent: everything still refundable. */
  amountCents?: number;
  reason?: string;
  actor: Actor;
  requestKey?: string | undefined;
  /** The request's name for the amount, which refusals name: `amount` (Merchant API v1, back office) unless told. */
  amountField?: string;
}

/** States in which money may have been collected: the others have nothing to refund. */
export const REFUNDABLE: readonly PurchaseState[] = ['LEADER_PROCESSED', 'SUCCESSFUL'];

/**
 * A merchant refund (docs/purchase-lifecycle.md#refunds), as a movement of the money engine
 * (src/money/movement.ts). Reserved in one transaction under the purchase's row lock and claim:
 * the amount is checked against what is left to refund (allocations of earlier refunds, pending
 * ones included, are already deducted: concurrent refunds never exceed what was captured) and
 * split by `planRefund`; installments not collected yet are lowered at once. Then, outside any
 * transaction, each payment's share is refunded at its PSP (a deferred hold lowered to nothing is
 * voided) with its own idempotency key, and the answers are settled ({@link settleAnswers}).
 *
 * `requestKey` (a request sent with an Idempotency-Key: src/http/idempotency.ts) is stored on the
 * refund. When a refund with that key is already there, an earlier attempt of this very request
 * committed it and lost its answer (docs/api-conventions.md#idempotency-key): nothing new is
 * reserved; that refund is resumed — its PSP calls with their own keys, after asking the PSP what
 * it already holds — and answered.
 */
export async function refundPurchase(deps: PaymentDeps, input: RefundRequest): Promise<RefundOutcome> {
  const { db } = deps;
  const { accountId, purchaseId } = input;
  const field = input.amountField ?? 'amount';
  if (!isUuid(purchaseId)) return { kind: 'not_found' };
  if (input.amountCents !== undefined && (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0)) {
    return { kind: 'invalid', field, message: `field ${field} must be a positive integer (minor units of the currency)` };
  }
  // The same request retried after its first attempt committed and lost its answer: a refund
  // already settled is answered as it is, without waiting for the purchase's claim, which that
  // attempt may have failed to give back (docs/api-conventions.md#idempotency-key).
  const earlier = input.requestKey === undefined ? undefined : await findRefundIdByRequestKey(db, accountId, purchaseId, input.requestKey);
  const settled = earlier === undefined ? undefined : await findRefund(db, accountId, earlier);
  if (settled && settled.state !== 'pending') return { kind: 'created', refund: settled };
  const where = { accountId, purchaseId, notFound: { kind: 'not_found' } as RefundOutcome };
  const out = await runMovement(
    deps,
    refundMovement(deps, where, (tx, locked, take) => reserveRefund(deps, input, tx, locked, take)),
  );
  if (!isSettled(out)) return out;
  return { kind: 'created', refund: (await findRefund(db, accountId, out.refundId))! };
}

/** The refund's reservation as the engine carries it to its PSP calls: which refund, and whether an earlier attempt made it. */
type Reserved = { refundId: string; resumed: boolean };
/** A refund's answers settled: `done` once no allocation is pending (else one is left for the resume job). */
type Settled = { kind: 'settled'; refundId: string; done?: { purchaseState: PurchaseState; refundedTo: RefundedTo } | undefined };
type AllocationStep = { allocation: RefundAllocationRow; payment: PaymentRow; call: PspStep };

const isSettled = (out: unknown): out is Settled => (out as { kind?: unknown }).kind === 'settled';

/**
 * A refund as a money movement: `reserve` decides (a new refund, or the resumption of one), then
 * the pending allocations are refunded (or their holds voided) at the PSP with their own keys, and
 * the answers settled ({@link settleAnswers}); once nothing is pending, the guarantee is released
 * if the purchase is REFUNDED, the resume job cancelled and the payers told.
 */
function refundMovement<Out>(
  deps: PaymentDeps,
  where: { accountId: string; purchaseId: string; notFound: Out; waitMs?: number },
  reserve: Movement<Reserved, Out | Settled, AllocationStep>['reserve'],
): Movement<Reserved, Out | Settled, AllocationStep> {
  const { accountId, purchaseId } = where;
  return {
    ...where,
    operation: 'refund',
    reserve,
    calls: async ({ refundId, resumed }, call) => {
      const refund = await findRefund(deps.db, accountId, refundId);
      for (const allocation of refund?.allocations.filter((a) => a.state === 'pending') ?? []) {
        const payment = (await findPayment(deps.db, accountId, allocation.paymentId!))!;
        // Resumed, the PSP is asked first what it holds (not every PSP keeps our idempotency key),
        // unless another pending refund of the payment could account for what it shows.
        const askFirst = resumed && allocation.kind === 'refund' && !(await otherPendingRefund(deps.db, accountId, payment.id, allocation.id));
        const key = allocation.idempotencyKey!;
        try {
          await call({ allocation, payment, call: allocation.kind === 'refund' ? { op: 'refund', key, amountCents: allocation.amountCents, askFirst } : { op: 'void', key } });
        } catch (err) {
          // The PSP unreachable: the allocation stays pending for the resume job (the same key).
          if (!(err instanceof PspIntegrationError)) throw err;
          deps.logger.warn({ err, account_id: accountId, refund_id: refundId, payment_id: payment.id }, 'refund call failed at the PSP: left pending for the resume job');
        }
      }
    },
    settle: async (tx, locked, answers, book, { refundId }) => ({ kind: 'settled', refundId, done: await settleAnswers(deps, tx, locked, refundId, answers, book) }),
    after: async (out) => {
      if (!isSettled(out) || !out.done) return;
      if (out.done.purchaseState === 'REFUNDED') await releaseGuarantee(deps, accountId, purchaseId);
      await cancelJob(deps.db, `${REFUND_JOB}:${out.refundId}`, deps.clock.now());
      await sendRefundNotices(deps, accountId, purchaseId, out.refundId, out.done.refundedTo);
    },
  };
}

/**
 * The refund's reservation, under the purchase's lock: what is refundable is read and the refund
 * stored with its allocations (or the earlier attempt's refund found), the claim taken for the PSP
 * calls.
 */
async function reserveRefund(
  deps: PaymentDeps,
  input: RefundRequest,
  tx: Sql,
  locked: PurchasePayState,
  take: Take,
): Promise<{ refuse: RefundOutcome } | { go: Reserved } | InProgress> {
  const { accountId, purchaseId } = input;
  const field = input.amountField ?? 'amount';
  // Looked up under the purchase's lock, before the amount is checked: the earlier attempt's
  // refund already counts against what is refundable, and the answer is that refund.
  const earlier = input.requestKey === undefined ? undefined : await findRefundIdByRequestKey(tx, accountId, purchaseId, input.requestKey);
  if (earlier !== undefined) {
    const resumedClaim = await take();
    if (isInProgress(resumedClaim)) return resumedClaim;
    deps.logger.info({ account_id: accountId, refund_id: earlier }, 'refund request retried after its answer was lost: the refund it made is resumed, not made again');
    return { go: { refundId: earlier, resumed: true } };
  }
  // Nothing else may move the purchase's money until this refund's answers are recorded; a
  // charge awaiting its outcome or a refund not finished would make what is refundable wrong.
  const claim = await take({ unresolvedBlocks: true });
  if (isInProgress(claim)) return claim;
  const refusal = (message: string): { refuse: RefundOutcome } => ({ refuse: { kind: 'invalid', field, message } });
  const sources = await refundSources(tx, accountId, purchaseId);
  const uncollected = await uncollectedInstallments(tx, accountId, purchaseId);
  // Everything left, the payments an open chargeback holds included: without an amount, such a
  // refund is refused (`charge_disputed`), never made in part (docs/money-operations.md#refunds-and-disputes).
  const everything = REFUNDABLE.includes(locked.state) ? everythingCents(sources, uncollected) : 0;
  if (everything === 0) return refusal(`field ${field}: nothing is left to refund on this purchase (nothing captured, or already refunded)`);
  const amount = input.amountCents ?? everything;
  const plan = planRefund(amount, sources, uncollected);
  if (!plan.ok && plan.reason === 'charge_disputed') {
    const message = `a chargeback is open on a payment this refund needs: it cannot be refunded until the bank decides; at most ${plan.refundableCents} can be refunded now`;
    return { refuse: { kind: 'charge_disputed', message } };
  }
  if (!plan.ok) return refusal(`field ${field} must be at most ${plan.refundableCents}, what is left to refund`);
  // A share a payment's PSP cannot refund as it is (Midtrans: sen in IDR) is refused here, before
  // anything is reserved, never rounded (docs/psp-connectors.md#currencies).
  for (const a of plan.allocations) {
    if (a.kind !== 'refund') continue;
    const psp = sources.find((source) => source.paymentId === a.paymentId)?.psp;
    const definition = psp === undefined ? undefined : deps.psps.definition(psp);
    const refused = definition && amountStepRefusal(definition, locked.currency, a.amountCents);
    if (refused) return refusal(`field ${field} would refund ${a.amountCents} on one payment, which ${refused}: refund another amount`);
  }

  const refundId = newUuid();
  const now = deps.clock.now();
  const allocations = plan.allocations.map((a) => {
    if (a.kind === 'refund') return { ...a, state: 'pending' as const, idempotencyKey: `${refundId}:${a.paymentId}` };
    // Lowered now, under the lock. A deferred hold lowered to nothing is voided after the commit,
    // and its installment lowered only once the PSP voided it: a void refused leaves the
    // installment as it was, still to collect (docs/money-operations.md#one-money-operation-at-a-time).
    const voids = a.remainingCents === 0 && a.paymentId !== undefined;
    return { ...a, state: voids ? ('pending' as const) : ('succeeded' as const), idempotencyKey: voids ? `${refundId}:${a.paymentId}:void` : null };
  });
  for (const a of allocations) {
    if (a.kind !== 'installment' || a.state !== 'succeeded') continue;
    await lowerInstallment(tx, accountId, a.installmentId, a.amountCents);
    // Transfer mode: what the shopper no longer pays is what the purchase gives up (docs/money-operations.md#who-bears-what).
    await bookInstallmentLowered(tx, { accountId, purchaseId, refundId, installmentId: a.installmentId, cents: a.amountCents, occurredAt: now });
  }
  await insertRefund(tx, { id: refundId, accountId, purchaseId, amountCents: amount, reason: input.reason, state: 'pending', requestKey: input.requestKey }, allocations, now);
  await recordAudit(tx, { accountId, actor: input.actor, action: 'refund', subject: purchaseId, details: { refund_id: refundId, amount_cents: amount } });
  // Taken up again if this process dies before the PSP answered (the keys make it safe).
  await scheduleJob(tx, { kind: REFUND_JOB, key: `${REFUND_JOB}:${refundId}`, runAt: new Date(now.getTime() + RESUME_AFTER_MS), payload: { refundId }, accountId });
  return { go: { refundId, resumed: false } };
}

/**
 * The resume job (after a crash, or an allocation left pending by a PSP fault), and a refund taken
 * up again: its pending allocations are sent under the purchase's claim, as the request's were,
 * with the same keys; `resumed`, the PSP is asked first what it already holds. Safe to run twice
 * at once: an allocation is settled only once.
 */
export async function executeRefund(deps: PaymentDeps, accountId: string, refundId: string, opts: { resumed?: boolean; waitMs?: number } = {}): Promise<'done' | 'in_progress'> {
  const refund = await findRefund(deps.db, accountId, refundId);
  if (!refund) return 'done';
  const where = { accountId, purchaseId: refund.purchaseId, notFound: 'done' as const, ...(opts.waitMs !== undefined ? { waitMs: opts.waitMs } : {}) };
  const out = await runMovement(
    deps,
    refundMovement(deps, where, async (_tx, _locked, take) => {
      const claim = await take();
      return isInProgress(claim) ? claim : { go: { refundId, resumed: opts.resumed ?? false } };
    }),
  );
  return isInProgress(out) ? 'in_progress' : 'done';
}

/**
 * What a refund gave each payer: put back on the leader's card and on each pledger's, and taken
 * off what the leader still owes (installments not collected yet, a deferred payment).
 */
type RefundedTo = { leaderCents: number; pledges: Map<string, number>; leaderLoweredCents: number };

/** Only `refund` allocations put money back on a card; an installment lowered (or a deferred hold voided) lowers what is owed. */
function cardsRefunded(given: readonly RefundAllocationRow[]): RefundedTo {
  const to: RefundedTo = { leaderCents: 0, pledges: new Map(), leaderLoweredCents: 0 };
  for (const a of given) {
    if (a.kind !== 'refund') to.leaderLoweredCents += a.amountCents;
    else if (a.pledgeId) to.pledges.set(a.pledgeId, (to.pledges.get(a.pledgeId) ?? 0) + a.amountCents);
    else to.leaderCents += a.amountCents;
  }
  return to;
}

/**
 * The refund's PSP answers, under the purchase's lock: a refusal marks its allocation and the
 * refund `failed` with the reason and changes nothing else; an answer settles its allocation and is
 * booked on its payment; once no allocation is pending, the refund is settled and the purchase
 * moved when nothing is left to refund. Undefined while an allocation is pending (or settled before).
 */
async function settleAnswers(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  refundId: string,
  answers: Answer<AllocationStep>[],
  book: Book,
): Promise<{ purchaseState: PurchaseState; refundedTo: RefundedTo } | undefined> {
  const { accountId, id: purchaseId } = locked;
  const now = deps.clock.now();
  for (const { step, payment, result } of answers) {
    const { allocation } = step;
    const refused = result.decline !== undefined;
    const reason = refused ? `${result.decline!.reason}: ${result.decline!.message}` : null;
    if (!(await settleAllocation(tx, accountId, allocation.id, refused ? 'failed' : 'succeeded', reason, now))) continue;
    if (refused) continue;
    // A deferred hold voided: only now is its installment lowered to nothing (cancelled).
    if (allocation.kind === 'installment' && allocation.installmentId) {
      await lowerInstallment(tx, accountId, allocation.installmentId, allocation.amountCents);
      await bookInstallmentLowered(tx, { accountId, purchaseId, refundId, installmentId: allocation.installmentId, cents: allocation.amountCents, occurredAt: now });
    }
    // The payment's new PSP state, and its `payment.transaction` event: the back-mode notification
    // `refunded` (or `voided`) of this payment. Read again under the lock (`current`): a concurrent
    // refund of the same payment may have recorded since. A refund allocation's money is the
    // merchant's refund: in transfer mode the merchant bears it.
    await book(payment, result, { current: true, outcome: true, merchantRefund: allocation.kind === 'refund' });
  }
  const current = await findRefund(tx, accountId, refundId);
  if (current?.state !== 'pending') return undefined;
  const failed = current.allocations.find((a) => a.state === 'failed');
  const state: RefundState = failed ? 'failed' : current.allocations.some((a) => a.state === 'pending') ? 'pending' : 'succeeded';
  if (state === 'pending') return undefined;
  await setRefundState(tx, accountId, refundId, state, failed?.failureReason ?? null, now);
  const given = current.allocations.filter((a) => a.state === 'succeeded');
  const refundedTo = cardsRefunded(given);
  if (given.length === 0) return { purchaseState: locked.state, refundedTo };
  await writeEvent(
    tx,
    accountId,
    purchaseId,
    EVENT.refundMade,
    locked.state,
    { refund_id: refundId, state, amount_cents: given.reduce((s, a) => s + a.amountCents, 0), refunded_cents: await refundedSoFar(tx, accountId, purchaseId) },
    now,
  );
  return { purchaseState: await moveAfterRefund(deps, tx, locked, now), refundedTo };
}

/**
 * Nothing left to refund (and no other refund under way): REFUNDED, the pot's open pledges
 * closed and the installments left dropped. An installment plan whose remaining installments
 * were all cancelled is complete: SUCCESSFUL.
 */
async function moveAfterRefund(deps: PaymentDeps, tx: Sql, locked: PurchasePayState, now: Date): Promise<PurchaseState> {
  const { accountId, id: purchaseId } = locked;
  if (!REFUNDABLE.includes(locked.state)) return locked.state;
  const uncollected = await uncollectedInstallments(tx, accountId, purchaseId);
  // A payment an open chargeback holds is not refunded yet: the purchase is not REFUNDED while one is.
  const left = everythingCents(await refundSources(tx, accountId, purchaseId), uncollected);
  const { pending, installments } = await pendingAllocationsAndInstallments(tx, accountId, purchaseId);
  if (left === 0 && pending === 0) {
    await closePledges(tx, accountId, purchaseId, ['draft', 'invited', 'paying'], 'refunded', now);
    await cancelScheduledInstallments(tx, accountId, purchaseId);
    const moved = await applyMove(tx, deps.clock, accountId, purchaseId, 'refund');
    return moved.ok ? moved.to : locked.state;
  }
  if (locked.state === 'LEADER_PROCESSED' && installments > 0 && uncollected.length === 0) {
    const moved = await applyMove(tx, deps.clock, accountId, purchaseId, 'succeed', { comment: 'The remaining installments were cancelled by a refund.' });
    return moved.ok ? moved.to : locked.state;
  }
  return locked.state;
}

/** A purchase's refunds, oldest first; undefined when the purchase is not the account's. */
export async function purchaseRefunds(deps: Pick<PaymentDeps, 'db'>, accountId: string, purchaseId: string): Promise<Refund[] | undefined> {
  if (!isUuid(purchaseId)) return undefined;
  if (!(await loadPayState(deps.db, accountId, purchaseId))) return undefined;
  return listRefunds(deps.db, accountId, purchaseId);
}
