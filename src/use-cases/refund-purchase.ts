import type { Actor } from '../audit/audit-log.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import type { Sql } from '../db/database.ts';
import { EVENT } from '../domain/events.ts';
import { isUuid, newUuid } from '../domain/ids.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { everythingCents, planRefund } from '../domain/refund-allocation.ts';
import { cancelJob, scheduleJob } from '../jobs/scheduler.ts';
import { PspIntegrationError, type TransactionResult } from '../psp/connector.ts';
import { amountStepRefusal } from '../psp/definition.ts';
import { findPayment, pspRef, recordResult, writeEvent, type PaymentRow } from '../payments/payment-repository.ts';
import { loadPayState, lockPayState, type PurchasePayState } from '../payments/pay-state-repository.ts';
import { closePledges } from '../payments/pledge-repository.ts';
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
} from '../payments/refund-repository.ts';
import { bookInstallmentLowered } from '../payments/transfer-booking-repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import { releaseGuarantee } from './close-pot.ts';
import type { PaymentDeps } from './deps.ts';
import { claimAlone, claimPurchase, holding, isInProgress, releaseAfterFailure, releaseClaim, waitForClaim, type InProgress, type MoneyClaim } from './money-claim.ts';
import { sendRefundNotices } from './shopper-notices.ts';

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
 * A merchant refund (docs/purchase-lifecycle.md#refunds). In one transaction under the
 * purchase's row lock, the amount is checked against what is left to refund (allocations of
 * earlier refunds, pending ones included, are already deducted: concurrent refunds never exceed
 * what was captured) and split by `planRefund`; installments not collected yet are lowered at
 * once. Then, outside any transaction, each payment's share is refunded at its PSP (a deferred
 * hold lowered to nothing is voided) with its own idempotency key, and the answers are recorded
 * ({@link executeRefund}).
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
  const token = newUuid();
  const reserved = await waitForClaim(deps, () => reserveRefund(deps, input, token)).catch(async (err: unknown) => {
    await releaseAfterFailure(deps, accountId, purchaseId, token);
    throw err;
  });
  if ('kind' in reserved) return reserved;
  await holding(deps, reserved.claim, async () => {
    if (reserved.resumed)
      deps.logger.info({ account_id: accountId, refund_id: reserved.refundId }, 'refund request retried after its answer was lost: the refund it made is resumed, not made again');
    // Resumed, the PSP is asked first what it holds: not every PSP keeps our idempotency key.
    await executeClaimed(deps, accountId, reserved.refundId, reserved.resumed);
  });
  return { kind: 'created', refund: (await findRefund(db, accountId, reserved.refundId))! };
}

/**
 * The refund's transaction: under the purchase's lock and claim, what is refundable is read and
 * the refund stored with its allocations (or the earlier attempt's refund found). The claim stays
 * taken for the PSP calls; a refusal gives it back in the same transaction.
 */
async function reserveRefund(deps: PaymentDeps, input: RefundRequest, token: string): Promise<RefundOutcome | { refundId: string; resumed: boolean; claim: MoneyClaim }> {
  const { db, clock } = deps;
  const { accountId, purchaseId } = input;
  const field = input.amountField ?? 'amount';
  return db.transaction(async (tx): Promise<RefundOutcome | { refundId: string; resumed: boolean; claim: MoneyClaim }> => {
    const locked = await loadPayState(tx, accountId, purchaseId, true);
    if (!locked) return { kind: 'not_found' };
    // Looked up under the purchase's lock, before the amount is checked: the earlier attempt's
    // refund already counts against what is refundable, and the answer is that refund.
    const earlier = input.requestKey === undefined ? undefined : await findRefundIdByRequestKey(tx, accountId, purchaseId, input.requestKey);
    if (earlier !== undefined) {
      const resumedClaim = await claimPurchase(tx, accountId, purchaseId, 'refund', { token });
      return isInProgress(resumedClaim) ? resumedClaim : { refundId: earlier, resumed: true, claim: resumedClaim };
    }
    // Nothing else may move the purchase's money until this refund's answers are recorded; a
    // charge awaiting its outcome or a refund not finished would make what is refundable wrong.
    const claim = await claimPurchase(tx, accountId, purchaseId, 'refund', { unresolvedBlocks: true, token });
    if (isInProgress(claim)) return claim;
    const refusal = (message: string): Promise<RefundOutcome> => releaseClaim(tx, claim).then(() => ({ kind: 'invalid', field, message }));
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
      return releaseClaim(tx, claim).then(() => ({ kind: 'charge_disputed', message }));
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
    const now = clock.now();
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
    return { refundId, resumed: false, claim };
  });
}

type Answer = { allocation: RefundAllocationRow; payment: PaymentRow; result: TransactionResult };

/**
 * Calls the PSP for the refund's pending allocations (outside any transaction), then records the
 * answers in one transaction. A refusal marks its allocation and the refund `failed` with the
 * reason and changes nothing else; an integration fault leaves the allocation pending for the
 * resume job. Safe to run twice at once: an allocation is settled only once.
 *
 * Resumed (the job, after a crash or a fault), a refund first asks the PSP what it holds: not every
 * PSP keeps our idempotency key (Ogone and Lyra have none; their connectors reconcile from the
 * amounts stored with the payment, which a row written by a build that did not store them lacks), and a
 * refund sent twice gives money back twice. When the
 * PSP shows more refunded than our record by at least the allocation's amount, and no other
 * refund of that payment is pending (which could account for it), the earlier call went through:
 * it is recorded from that answer and not sent again.
 */
export async function executeRefund(deps: PaymentDeps, accountId: string, refundId: string, opts: { resumed?: boolean; waitMs?: number } = {}): Promise<'done' | 'in_progress'> {
  const { db } = deps;
  // The resume job: the refund's PSP calls are made under the purchase's claim, as the request's were.
  const refund = await findRefund(db, accountId, refundId);
  if (!refund) return 'done';
  const claim = await claimAlone(deps, accountId, refund.purchaseId, 'refund', opts.waitMs);
  if (isInProgress(claim)) return 'in_progress';
  await holding(deps, claim, () => executeClaimed(deps, accountId, refundId, opts.resumed ?? false));
  return 'done';
}

async function executeClaimed(deps: PaymentDeps, accountId: string, refundId: string, resumed: boolean): Promise<void> {
  const { db, psps, logger } = deps;
  const refund = await findRefund(db, accountId, refundId);
  if (!refund) return;
  const answers: Answer[] = [];
  for (const allocation of refund.allocations.filter((a) => a.state === 'pending')) {
    const payment = (await findPayment(db, accountId, allocation.paymentId!))!;
    const psp = await psps.forPayment(payment);
    try {
      if (resumed && allocation.kind === 'refund' && !(await otherPendingRefund(db, accountId, payment.id, allocation.id))) {
        const seen = await psp.retrieve(pspRef(payment));
        if (seen.refundedCents - payment.refunded_cents >= allocation.amountCents) {
          logger.info({ account_id: accountId, refund_id: refundId, payment_id: payment.id }, 'resumed refund already applied at the PSP: recorded, not sent again');
          answers.push({ allocation, payment, result: seen });
          continue;
        }
      }
      const result =
        allocation.kind === 'refund'
          ? await psp.refund({ idempotencyKey: allocation.idempotencyKey!, transaction: pspRef(payment), amountCents: allocation.amountCents })
          : await psp.void({ idempotencyKey: allocation.idempotencyKey!, transaction: pspRef(payment) });
      answers.push({ allocation, payment, result });
    } catch (err) {
      if (!(err instanceof PspIntegrationError)) throw err;
      logger.warn({ err, account_id: accountId, refund_id: refundId, payment_id: payment.id }, 'refund call failed at the PSP: left pending for the resume job');
    }
  }
  const settled = await recordAnswers(deps, refund, answers);
  if (!settled) return;
  if (settled.purchaseState === 'REFUNDED') await releaseGuarantee(deps, accountId, refund.purchaseId);
  await cancelJob(db, `${REFUND_JOB}:${refundId}`, deps.clock.now());
  await sendRefundNotices(deps, accountId, refund.purchaseId, refund.id, settled.refundedTo);
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

/** Records the PSP's answers, settles the refund, and moves the purchase when nothing is left to refund. */
async function recordAnswers(deps: PaymentDeps, refund: Refund, answers: Answer[]): Promise<{ purchaseState: PurchaseState; refundedTo: RefundedTo } | undefined> {
  const { db, clock } = deps;
  const { accountId, purchaseId } = refund;
  return db.transaction(async (tx) => {
    const now = clock.now();
    const locked = await lockPayState(tx, accountId, purchaseId);
    for (const { allocation, payment, result } of answers) {
      const refused = result.decline !== undefined;
      const reason = refused ? `${result.decline!.reason}: ${result.decline!.message}` : null;
      if (!(await settleAllocation(tx, accountId, allocation.id, refused ? 'failed' : 'succeeded', reason, now))) continue;
      // The payment's new PSP state, and its `payment.transaction` event: the back-mode
      // notification `refunded` (or `voided`) of this payment.
      if (refused) continue;
      // A deferred hold voided: only now is its installment lowered to nothing (cancelled).
      if (allocation.kind === 'installment' && allocation.installmentId) {
        await lowerInstallment(tx, accountId, allocation.installmentId, allocation.amountCents);
        await bookInstallmentLowered(tx, { accountId, purchaseId, refundId: refund.id, installmentId: allocation.installmentId, cents: allocation.amountCents, occurredAt: now });
      }
      // Read again under the purchase's lock: a concurrent refund of the same payment may have
      // recorded since, and the conditional recordResult only writes over the state it was
      // read in. The PSP's totals only grow, so the larger of the two views is the current one.
      const current = (await findPayment(tx, accountId, payment.id)) ?? payment;
      const latest = { ...result, capturedCents: Math.max(result.capturedCents, current.captured_cents), refundedCents: Math.max(result.refundedCents, current.refunded_cents) };
      // A refund allocation's money is the merchant's refund: in transfer mode the merchant bears it.
      await recordResult(tx, current, latest, locked.state, now, { outcome: true, merchantRefund: allocation.kind === 'refund' });
    }
    const current = (await findRefund(tx, accountId, refund.id))!;
    if (current.state !== 'pending') return undefined;
    const failed = current.allocations.find((a) => a.state === 'failed');
    const state: RefundState = failed ? 'failed' : current.allocations.some((a) => a.state === 'pending') ? 'pending' : 'succeeded';
    if (state === 'pending') return undefined;
    await setRefundState(tx, accountId, refund.id, state, failed?.failureReason ?? null, now);
    const given = current.allocations.filter((a) => a.state === 'succeeded');
    const refundedTo = cardsRefunded(given);
    if (given.length === 0) return { purchaseState: locked.state, refundedTo };
    await writeEvent(
      tx,
      accountId,
      purchaseId,
      EVENT.refundMade,
      locked.state,
      { refund_id: refund.id, state, amount_cents: given.reduce((s, a) => s + a.amountCents, 0), refunded_cents: await refundedSoFar(tx, accountId, purchaseId) },
      now,
    );
    return { purchaseState: await moveAfterRefund(deps, tx, locked, now), refundedTo };
  });
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
