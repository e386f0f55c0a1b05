import { EVENT } from '../../domain/events.ts';
import { earlyRepayment, installmentPaidComment, repaidEarlyComment } from '../../domain/installment-rules.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import { cancelJob } from '../../jobs/scheduler.ts';
import { scheduleReconciliation } from '../../jobs/reconciliation.ts';
import { threeDSecureInput, type DeclineReason, type TransactionResult, type ChallengeReturn } from '../../psp/connector.ts';
import {
  installmentCounts,
  lockScheduledInstallments,
  lockShopperPaymentInstallments,
  markInstallmentPaidByShopper,
  scheduledInstallments,
  setShopperPayment,
  type Installment,
} from '../../payments/installment-repository.ts';
import {
  afterResult,
  countPaymentsKeyed,
  findPayment,
  findPurchasePayment,
  markDeclined,
  setPaymentPspMethod,
  writeEvent,
  type PaymentRow,
} from '../../payments/payment-repository.ts';
import { runMovement, settleAlone, type Book, type ReservePayment, type Step, type Take } from '../../money/movement.ts';
import { callPsp } from '../../money/psp-call.ts';
import type { Sql } from '../../db/database.ts';
import { unresolvedInstallmentCharge } from '../../payments/unresolved-payment-repository.ts';
import { loadPayState, setComment, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { bookFeesWaived } from '../../payments/transfer-booking-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import { COLLECT_JOB } from '../installments/collect-installment.ts';
import type { PaymentDeps } from '../deps.ts';
import { giveBack } from '../give-back/give-back.ts';
import { PRECHARGE_NOTICE_JOB, sendCollectionNotice } from '../notices/shopper-notices.ts';
import { isInProgress, type InProgress } from '../../money/claim.ts';
import { savedCard } from '../installments/stored-card.ts';

/**
 * The shopper pays from their space (docs/schedules.md#the-shopper-pays-now): a refused
 * installment now, or the rest of the plan early. A customer-initiated transaction on the saved
 * card (the shopper is present: 3-D Secure when the issuer asks), captured at once, on the PSP
 * account that holds the card. One charge per action, whatever the races:
 * - under the purchase's lock, the installments are reserved for the payment
 *   (`installments.shopper_payment_id`) only while no other charge of the plan is unresolved,
 *   and the collection job reserves its attempt under the same lock, so the shopper's payment and
 *   a collection never both charge;
 * - the payment row and its idempotency key (`<purchase>:shopper:<n>`, `<purchase>:repay:<n>`) are stored before the PSP
 *   call: a crash after the PSP's answer is resolved by replaying that key (the reconciliation
 *   job), never by a second charge;
 * - paid, the installments' pending collection and pre-charge notice jobs are withdrawn.
 */
export type ShopperPayOutcome =
  | { kind: 'paid'; amountCents: number; state: PurchaseState }
  | { kind: 'challenge'; url: string }
  | { kind: 'declined'; reason: DeclineReason; message: string }
  /** Nothing of that kind to pay: no refused installment by that id, nothing left to repay. */
  | { kind: 'nothing_to_pay' }
  | { kind: 'not_payable'; state: PurchaseState }
  /** Another charge of the plan is under way (a collection, the shopper's own other click). */
  | { kind: 'in_progress' }
  | { kind: 'not_found' };

type Target = { kind: 'installment'; installmentId: string } | { kind: 'rest' };

/** Pays one refused installment now (the amount due, fees included). */
export function payInstallmentNow(
  deps: PaymentDeps,
  purchase: { accountId: string; id: string },
  installmentId: string,
  returnUrl: (paymentId: string) => string,
): Promise<ShopperPayOutcome> {
  return payNow(deps, purchase, { kind: 'installment', installmentId }, returnUrl);
}

/** Repays every installment still to collect at once: the principal, the remaining fees waived. */
export function repayEarly(deps: PaymentDeps, purchase: { accountId: string; id: string }, returnUrl: (paymentId: string) => string): Promise<ShopperPayOutcome> {
  return payNow(deps, purchase, { kind: 'rest' }, returnUrl);
}

async function payNow(deps: PaymentDeps, purchase: { accountId: string; id: string }, target: Target, returnUrl: (paymentId: string) => string): Promise<ShopperPayOutcome> {
  const state = await loadPayState(deps.db, purchase.accountId, purchase.id);
  if (!state) return { kind: 'not_found' };
  if (state.state !== 'LEADER_PROCESSED') return { kind: 'not_payable', state: state.state };
  // A deferred payment is one line, whose fee is the price of the deferral: it is not "repaid
  // early" (once refused it is paid now, in full; before, `trigger_capture` is the merchant's).
  // A down payment's balance may be paid before its date, as the rest of installments.
  const offer = await deps.offers.byId(state.accountId, state.offerId);
  if (target.kind === 'rest' && offer?.type !== 'INSTALLMENTS' && offer?.type !== 'DOWN_PAYMENT') return { kind: 'nothing_to_pay' };
  const card = await savedCard(deps, state);
  const repayment = target.kind === 'rest';
  // A movement of the money engine (src/money/movement.ts). Another money operation on the
  // purchase: this request waits for it a little, then is in progress. Awaiting 3-D Secure, the
  // payment itself (unresolved) keeps refunds, cancels and collections waiting
  // (docs/money-operations.md#one-money-operation-at-a-time); the claim is given back.
  const out = await runMovement<PaymentRow, Done | { outcome: ShopperPayOutcome }, Step, boolean>(deps, {
    accountId: purchase.accountId,
    purchaseId: purchase.id,
    operation: 'shopper_payment',
    notFound: { outcome: { kind: 'not_found' } },
    reserve: (tx, locked, take, reservePayment) => reserve(tx, locked, take, reservePayment, deps.clock.now(), target, card.psp, card.paymentMethodId, returnUrl),
    lease: (payment) => payment,
    calls: async (payment, call) => {
      const input = {
        paymentMethodId: card.paymentMethodId,
        currency: state.currency,
        capture: 'automatic' as const,
        returnUrl: payment.psp_return_url!,
        ...threeDSecureInput(offer?.use3ds ?? 'auto'),
      };
      await call({ payment, call: { op: 'authorize', input } });
      return offer?.type === 'DOWN_PAYMENT';
    },
    settle: (tx, locked, answers, book, payment, downPayment) => settlePayment(deps, tx, locked, book, payment, answers[0]!.result, repayment, downPayment),
    after: (done, payment) => ('kind' in done ? followUp(deps, payment, done, repayment) : Promise.resolve()),
  });
  if (isInProgress(out)) return { kind: 'in_progress' };
  return 'outcome' in out ? out.outcome : answerOf(deps, out);
}

/**
 * Under the purchase's lock and claim: which installments the payment pays and how much, the
 * payment row with its key, and the installments reserved for it, before any PSP call.
 */
async function reserve(
  tx: Sql,
  locked: PurchasePayState,
  take: Take,
  reservePayment: ReservePayment,
  now: Date,
  target: Target,
  psp: { name: string; pspAccountId: string | null },
  paymentMethodId: string,
  returnUrl: (paymentId: string) => string,
): Promise<{ go: PaymentRow } | { refuse: { outcome: ShopperPayOutcome } } | InProgress> {
  const { accountId, id: purchaseId } = locked;
  if (locked.state !== 'LEADER_PROCESSED') return { refuse: { outcome: { kind: 'not_payable', state: locked.state } } };
  // Nothing else moves the purchase's money while the installments and amount are chosen and charged.
  const claim = await take();
  if (isInProgress(claim)) return claim;
  const refused = (outcome: ShopperPayOutcome) => ({ refuse: { outcome } });
  const scheduled = await lockScheduledInstallments(tx, accountId, purchaseId);
  // A deferred payment whose hold is still authorised is captured from it (`trigger_capture`,
  // or its due date), never charged a second time beside it.
  const payable: Installment[] = [];
  for (const i of scheduled) if (!(i.paymentId && (await findPayment(tx, accountId, i.paymentId))?.status === 'authorized')) payable.push(i);
  const lines = target.kind === 'rest' ? payable : payable.filter((i) => i.id === target.installmentId && i.attempts > 0);
  if (lines.length === 0) return refused({ kind: 'nothing_to_pay' });
  if (await unresolvedInstallmentCharge(tx, accountId, purchaseId)) return refused({ kind: 'in_progress' });
  const amountCents = target.kind === 'rest' ? earlyRepayment(lines).chargeCents : lines[0]!.amountCents + lines[0]!.feesCents;
  const prefix = `${purchaseId}:${target.kind === 'rest' ? 'repay' : 'shopper'}:`;
  const n = (await countPaymentsKeyed(tx, accountId, purchaseId, prefix)) + 1;
  const payment = await reservePayment({
    accountId,
    purchaseId,
    purpose: 'installment',
    psp: psp.name,
    pspAccountId: psp.pspAccountId,
    idempotencyKey: `${prefix}${n}`,
    amountCents,
    leased: true,
  });
  const back = returnUrl(payment.id);
  await setPaymentPspMethod(tx, payment, paymentMethodId, back);
  await setShopperPayment(
    tx,
    accountId,
    lines.map((i) => i.id),
    payment.id,
  );
  await scheduleReconciliation(tx, now);
  return { go: { ...payment, psp_method_id: paymentMethodId, psp_return_url: back } };
}

/**
 * After the 3-D Secure challenge: the PSP's outcome of the shopper's payment decides. The payment
 * is found by the purchase AND its id (docs/security.md#returns-and-ids): another purchase's
 * payment, or one that is no payment of the shopper's, is `not_found` and nothing is asked of the PSP.
 */
export async function resumeShopperPayment(
  deps: PaymentDeps,
  purchase: { id: string; accountId: string },
  paymentId: string,
  returned?: ChallengeReturn,
): Promise<ShopperPayOutcome> {
  const payment = await findPurchasePayment(deps.db, purchase.accountId, purchase.id, paymentId);
  if (!payment || !isShopperPayment(payment)) return { kind: 'not_found' };
  if (payment.status !== 'requires_action') return settled(deps, payment);
  const result = await callPsp(deps, payment, returned ? { op: 'retrieve', returned } : { op: 'retrieve' });
  return finish(deps, payment, result, isRepayment(payment));
}

/**
 * The reconciliation job's resolution of a shopper's payment nobody came back for: never sent,
 * abandoned; sent, replayed with its key (the PSP answers what it did); left in 3-D Secure, voided
 * so that it cannot be completed later. Its outcome is recorded as the first process would have.
 */
export async function resolveShopperPayment(deps: PaymentDeps, payment: PaymentRow): Promise<void> {
  if (payment.status === 'pending' && !payment.psp_method_id) {
    await markDeclined(deps.db, payment, 'abandoned', deps.clock.now());
    return;
  }
  let result: TransactionResult;
  if (payment.status === 'pending') {
    const state = (await loadPayState(deps.db, payment.account_id, payment.purchase_id))!;
    const offer = await deps.offers.byId(payment.account_id, state.offerId);
    const input = {
      paymentMethodId: payment.psp_method_id!,
      currency: state.currency,
      capture: 'automatic' as const,
      returnUrl: payment.psp_return_url!,
      ...threeDSecureInput(offer?.use3ds ?? 'auto'),
    };
    result = await callPsp(deps, payment, { op: 'authorize', input });
  } else {
    result = await callPsp(deps, payment, { op: 'retrieve' });
    if (result.status === 'requires_action') {
      const voided = await callPsp(deps, payment, { op: 'void', key: `${payment.idempotency_key}:abandon` }, result);
      // Refused: the shopper completed the challenge in between; its outcome decides.
      result = voided.status === 'voided' ? voided : await callPsp(deps, payment, { op: 'retrieve' }, voided);
    }
  }
  await finish(deps, payment, result, isRepayment(payment));
}

/** Whether a payment is one the shopper made from their space (its key: `<purchase>:shopper:<n>` pays one installment now, `<purchase>:repay:<n>` the rest early). */
export function isShopperPayment(payment: Pick<PaymentRow, 'purpose' | 'idempotency_key'>): boolean {
  return payment.purpose === 'installment' && /:(shopper|repay):\d+$/.test(payment.idempotency_key);
}

function isRepayment(payment: Pick<PaymentRow, 'idempotency_key'>): boolean {
  return /:repay:\d+$/.test(payment.idempotency_key);
}

/** What a payment already resolved answers when asked again (a return page reloaded). */
async function settled(deps: PaymentDeps, payment: PaymentRow): Promise<ShopperPayOutcome> {
  const state = (await loadPayState(deps.db, payment.account_id, payment.purchase_id))!.state;
  if (payment.status === 'captured') return { kind: 'paid', amountCents: payment.captured_cents, state };
  if (payment.status === 'pending') return { kind: 'in_progress' };
  return { kind: 'declined', reason: (payment.decline_reason as DeclineReason | null) ?? 'processing_error', message: 'The payment was refused.' };
}

/** What the settlement of a shopper's payment came to, before what follows it. */
type Done = { payment: PaymentRow; result: TransactionResult } & (
  | { kind: 'challenge'; url: string }
  | { kind: 'refused' }
  | { kind: 'give_back'; state: PurchaseState }
  | { kind: 'already'; state: PurchaseState }
  | { kind: 'paid'; lines: Installment[]; state: PurchaseState }
);

/**
 * The PSP's answer of a shopper's payment known after the request (3-D Secure, the
 * reconciliation job): settled as the request would have, then followed up.
 */
async function finish(deps: PaymentDeps, payment: PaymentRow, result: TransactionResult, repayment: boolean): Promise<ShopperPayOutcome> {
  // Read before the transaction: the offer cache queries outside it when it must load.
  const state = await loadPayState(deps.db, payment.account_id, payment.purchase_id);
  const downPayment = state !== undefined && (await deps.offers.byId(payment.account_id, state.offerId))?.type === 'DOWN_PAYMENT';
  const done = await settleAlone(deps, payment, (tx, locked, book) => settlePayment(deps, tx, locked, book, payment, result, repayment, downPayment));
  await followUp(deps, payment, done, repayment);
  return answerOf(deps, done);
}

/**
 * Records the PSP's answer, once. Captured: the reserved installments are paid (an early
 * repayment's fees waived), their jobs withdrawn, `installment.paid` written for each, and the
 * last one makes the purchase SUCCESSFUL, in one transaction under the purchase's lock.
 */
async function settlePayment(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  book: Book,
  payment: PaymentRow,
  result: TransactionResult,
  repayment: boolean,
  downPayment: boolean,
): Promise<Done> {
  const { clock } = deps;
  const { account_id: accountId, purchase_id: purchaseId } = payment;
  const now = clock.now();
  const recorded = await book(payment, result);
  const base = { payment, result };
  if (result.status === 'requires_action') return { ...base, kind: 'challenge', url: result.challengeUrl! };
  if (result.status !== 'captured') return { ...base, kind: 'refused' };
  const lines = (await lockShopperPaymentInstallments(tx, accountId, payment.id)).filter((i) => i.state === 'scheduled');
  if (lines.length === 0 || locked.state !== 'LEADER_PROCESSED')
    return recorded ? { ...base, kind: 'give_back', state: locked.state } : { ...base, kind: 'already', state: locked.state };
  for (const i of lines) {
    await markInstallmentPaidByShopper(tx, i, payment.id, repayment, now);
    const amount = repayment ? i.amountCents : i.amountCents + i.feesCents;
    await writeEvent(tx, accountId, purchaseId, EVENT.installmentPaid, locked.state, { installment_id: i.id, index: i.index, amount_cents: amount, by: 'shopper' }, now);
    await cancelJob(tx, `${COLLECT_JOB}:${i.id}:${i.attempts}`, now);
    await cancelJob(tx, `${PRECHARGE_NOTICE_JOB}:${i.id}`, now);
  }
  // Transfer mode: the fees an early repayment waives are the operator's (docs/money-operations.md#who-bears-what).
  if (repayment) await bookFeesWaived(tx, { accountId, purchaseId, paymentId: payment.id, feesCents: lines.reduce((sum, i) => sum + i.feesCents, 0), occurredAt: now });
  const counts = await installmentCounts(tx, accountId, purchaseId);
  if (counts.paid === counts.total) {
    const comment = repayment ? repaidEarlyComment(counts.total, downPayment) : installmentPaidComment(counts.paid, counts.total, downPayment);
    const moved = await applyMove(tx, clock, accountId, purchaseId, 'succeed', { comment });
    return { ...base, kind: 'paid', lines, state: moved.ok ? moved.to : locked.state };
  }
  await setComment(tx, accountId, purchaseId, installmentPaidComment(counts.paid, counts.total, downPayment));
  return { ...base, kind: 'paid', lines, state: locked.state };
}

/**
 * After the commit: money taken after its installments were settled otherwise (a refund cancelled
 * them meanwhile) is given back; a refused installment paid now gets its receipt (an early
 * repayment's is its result page).
 */
async function followUp(deps: PaymentDeps, payment: PaymentRow, done: Done, repayment: boolean): Promise<void> {
  if (done.kind === 'give_back') await giveBack(deps, afterResult(payment, done.result), done.result);
  if (done.kind === 'paid' && !repayment) for (const i of done.lines) await sendCollectionNotice(deps, i, i.attempts, 'paid');
}

/** What the shopper is answered once the payment is settled and followed up. */
async function answerOf(deps: PaymentDeps, done: Done): Promise<ShopperPayOutcome> {
  if (done.kind === 'challenge') return { kind: 'challenge', url: done.url };
  if (done.kind === 'refused') {
    const decline = done.result.decline ?? { reason: 'processing_error' as const, message: 'The payment could not be completed.' };
    return { kind: 'declined', reason: decline.reason, message: decline.message };
  }
  if (done.kind === 'give_back') return { kind: 'not_payable', state: done.state };
  if (done.kind === 'already') return settled(deps, afterResult(done.payment, done.result));
  return { kind: 'paid', amountCents: done.result.capturedCents, state: done.state };
}

/** What the leader can do from their space now: the refused installments to pay, the rest to repay, whether a card can be changed. */
export interface PayableNow {
  refused: { id: string; number: number; amountCents: number }[];
  /** The early repayment's amount (principal only), when the plan can be repaid early. */
  repayCents?: number;
  cardChange: boolean;
  /** A down payment: what is left is its balance, and the page says so (docs/schedules.md#down-payment). */
  downPayment?: true;
}

export async function payableNow(deps: PaymentDeps, purchase: { accountId: string; id: string }): Promise<PayableNow> {
  const state = await loadPayState(deps.db, purchase.accountId, purchase.id);
  if (!state || state.state !== 'LEADER_PROCESSED') return { refused: [], cardChange: false };
  const offer = await deps.offers.byId(state.accountId, state.offerId);
  const left = await scheduledInstallments(deps.db, purchase.accountId, purchase.id);
  const refused = left.filter((i) => i.attempts > 0).map((i) => ({ id: i.id, number: i.index + 1, amountCents: i.amountCents + i.feesCents }));
  const early = offer?.type === 'INSTALLMENTS' || offer?.type === 'DOWN_PAYMENT';
  const repay = early && left.length > 0 ? { repayCents: earlyRepayment(left).chargeCents } : {};
  return { refused, ...repay, cardChange: left.length > 0, ...(offer?.type === 'DOWN_PAYMENT' ? { downPayment: true as const } : {}) };
}
