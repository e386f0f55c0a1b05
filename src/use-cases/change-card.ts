import type { PurchaseState } from '../domain/purchase-states.ts';
import { scheduleReconciliation } from '../jobs/reconciliation.ts';
import { underPaymentLease } from '../money/payment-lease.ts';
import { threeDSecureInput, type CardInput, type DeclineReason, type ThreeDSecureChoice, type TransactionResult, type ChallengeReturn } from '../psp/connector.ts';
import { scheduledInstallments } from '../payments/installment-repository.ts';
import { insertPaymentMethod, paymentMethodByToken, savedCard as cardOfPurchase, savedPspMethodId } from '../payments/payment-method-repository.ts';
import {
  afterResult,
  countPaymentsKeyed,
  findPayment,
  findPurchasePayment,
  markDeclined,
  pspRef,
  resultRef,
  setPaymentPspMethod,
  type PaymentRow,
} from '../payments/payment-repository.ts';
import { insertPayment, recordResult } from '../money/payment-record-repository.ts';
import { unresolvedLeaderAttempt } from '../payments/unresolved-payment-repository.ts';
import { loadPayState, lockPayState, setPaymentMethod } from '../payments/pay-state-repository.ts';
import type { PaymentDeps } from './deps.ts';
import { claimPurchase, holding, isInProgress, releaseClaim, type MoneyClaim } from '../money/claim.ts';
import { savedCard } from './stored-card.ts';

/**
 * The shopper changes the card the rest of their plan is charged to (docs/schedules.md#changing-the-card).
 * PSD2: a new card may only be charged merchant-initiated after a customer-initiated transaction
 * that stored it. Every connector can authorise with `storeForLater` and void (a zero-amount
 * verification is not in the connector contract), so the new card is authorised for the next
 * installment's amount — 3-D Secure when the issuer asks — and the hold voided at once. Only once
 * the PSP authorised it does the purchase point at the new card; later collections then charge it,
 * referencing this authorisation (`stored-card.ts`), and the old card is no longer used. It runs
 * on the PSP account that holds the current card, the merchant's own in back mode.
 */
export type ChangeCardOutcome =
  | { kind: 'changed'; brand: string; last4: string }
  | { kind: 'challenge'; url: string }
  | { kind: 'declined'; reason: DeclineReason; message: string }
  /** No installment left to charge: there is no card to change. */
  | { kind: 'nothing_to_pay' }
  | { kind: 'not_payable'; state: PurchaseState }
  | { kind: 'in_progress' }
  | { kind: 'not_found' };

export async function changeCard(
  deps: PaymentDeps,
  purchase: { accountId: string; id: string },
  card: CardInput,
  returnUrl: (paymentId: string) => string,
): Promise<ChangeCardOutcome> {
  const { db, clock } = deps;
  const state = await loadPayState(db, purchase.accountId, purchase.id);
  if (!state) return { kind: 'not_found' };
  if (state.state !== 'LEADER_PROCESSED') return { kind: 'not_payable', state: state.state };
  const { psp } = await savedCard(deps, state);
  const reserved = await db.transaction(async (tx): Promise<{ payment: PaymentRow; claim: MoneyClaim } | { outcome: ChangeCardOutcome }> => {
    const locked = await lockPayState(tx, purchase.accountId, purchase.id);
    if (locked.state !== 'LEADER_PROCESSED') return { outcome: { kind: 'not_payable', state: locked.state } };
    // Under the purchase's claim (docs/money-operations.md#one-money-operation-at-a-time): no
    // collection, refund or cancel runs while the card the plan is charged to changes.
    const claim = await claimPurchase(tx, purchase.accountId, purchase.id, 'card_change');
    if (isInProgress(claim)) return { outcome: { kind: 'in_progress' } };
    const refused = async (outcome: ChangeCardOutcome) => {
      await releaseClaim(tx, claim);
      return { outcome };
    };
    const next = (await scheduledInstallments(tx, purchase.accountId, purchase.id))[0];
    if (!next) return refused({ kind: 'nothing_to_pay' });
    const prefix = `${purchase.id}:card:`;
    const n = await countPaymentsKeyed(tx, purchase.accountId, purchase.id, prefix);
    // One change at a time: a double click finds the first one still unresolved.
    if (await unresolvedLeaderAttempt(tx, purchase.accountId, purchase.id, ['card_check'])) return refused({ kind: 'in_progress' });
    const now = clock.now();
    const payment = await insertPayment(
      tx,
      {
        accountId: purchase.accountId,
        purchaseId: purchase.id,
        purpose: 'card_check',
        psp: psp.name,
        pspAccountId: psp.pspAccountId,
        idempotencyKey: `${prefix}${n + 1}`,
        amountCents: next.amountCents + next.feesCents,
        leased: true,
      },
      now,
    );
    await scheduleReconciliation(tx, now);
    return { payment, claim };
  });
  if ('outcome' in reserved) return reserved.outcome;
  return holding(deps, reserved.claim, async () => {
    const use3ds = (await deps.offers.byId(state.accountId, state.offerId))?.use3ds ?? 'auto';
    return underPaymentLease(deps, reserved.payment, () => checkNewCard(deps, purchase, card, returnUrl, { currency: state.currency, use3ds }, psp, reserved.payment));
  });
}

/** The new card attached, stored and authorised (then voided), under the claim taken by {@link changeCard}. */
async function checkNewCard(
  deps: PaymentDeps,
  purchase: { accountId: string; id: string },
  card: CardInput,
  returnUrl: (paymentId: string) => string,
  { currency, use3ds }: { currency: string; use3ds: ThreeDSecureChoice },
  psp: Awaited<ReturnType<typeof savedCard>>['psp'],
  payment: PaymentRow,
): Promise<ChangeCardOutcome> {
  const { db, clock } = deps;
  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${payment.idempotency_key}:attach`, card });
  if (!attached.ok) {
    await markDeclined(db, payment, attached.reason, clock.now());
    return { kind: 'declined', reason: attached.reason, message: attached.message };
  }
  // The card is stored (token, brand, last four, expiry) and named on the row before the
  // authorisation, so that a crash after it is replayed; the purchase does not point at it yet.
  const back = returnUrl(payment.id);
  const ready = await db.transaction(async (tx) => {
    if (!(await setPaymentPspMethod(tx, payment, attached.paymentMethodId, back))) return false;
    const saved = { psp: psp.name, pspMethodId: attached.paymentMethodId, brand: attached.brand, last4: attached.last4, expMonth: attached.expMonth, expYear: attached.expYear };
    await insertPaymentMethod(tx, purchase.accountId, purchase.id, saved, clock.now());
    return true;
  });
  if (!ready) return { kind: 'in_progress' };
  const row = { ...payment, psp_method_id: attached.paymentMethodId, psp_return_url: back };
  const result = await psp.authorize({
    idempotencyKey: payment.idempotency_key,
    paymentMethodId: attached.paymentMethodId,
    amountCents: payment.amount_cents,
    currency,
    capture: 'manual',
    returnUrl: back,
    storeForLater: true,
    ...threeDSecureInput(use3ds),
  });
  return finishCardCheck(deps, row, result);
}

/**
 * After the 3-D Secure challenge of a card change: the PSP's outcome decides. The payment is found
 * by the purchase AND its id (docs/security.md#returns-and-ids): another purchase's card change is
 * `not_found`, and neither its card nor its challenge is touched.
 */
export async function resumeCardChange(deps: PaymentDeps, purchase: { id: string; accountId: string }, paymentId: string, returned?: ChallengeReturn): Promise<ChangeCardOutcome> {
  const payment = await findPurchasePayment(deps.db, purchase.accountId, purchase.id, paymentId);
  if (!payment || payment.purpose !== 'card_check') return { kind: 'not_found' };
  if (payment.status !== 'requires_action') return settledCheck(deps, payment);
  const result = await (await deps.psps.forPayment(payment)).retrieve(pspRef(payment), { returned });
  return finishCardCheck(deps, payment, result);
}

/** The reconciliation job's resolution of a card change nobody came back for (as shopper-pay.ts's). */
export async function resolveCardCheck(deps: PaymentDeps, payment: PaymentRow): Promise<void> {
  const psp = await deps.psps.forPayment(payment);
  if (payment.status === 'pending' && !payment.psp_method_id) {
    await markDeclined(deps.db, payment, 'abandoned', deps.clock.now());
    return;
  }
  let result: TransactionResult;
  if (payment.status === 'pending') {
    const state = (await loadPayState(deps.db, payment.account_id, payment.purchase_id))!;
    const offer = await deps.offers.byId(payment.account_id, state.offerId);
    result = await psp.authorize({
      idempotencyKey: payment.idempotency_key,
      paymentMethodId: payment.psp_method_id!,
      amountCents: payment.amount_cents,
      currency: state.currency,
      capture: 'manual',
      returnUrl: payment.psp_return_url!,
      storeForLater: true,
      ...threeDSecureInput(offer?.use3ds ?? 'auto'),
    });
  } else {
    result = await psp.retrieve(pspRef(payment));
    if (result.status === 'requires_action') {
      // Never completed: voided, so that it cannot be later; the card stays the old one.
      const voided = await psp.void({ idempotencyKey: `${payment.idempotency_key}:abandon`, transaction: resultRef(payment, result) });
      result = voided.status === 'voided' ? voided : await psp.retrieve(resultRef(payment, voided));
      if (result.status === 'voided') {
        await deps.db.transaction(async (tx) => recordResult(tx, payment, result, (await lockPayState(tx, payment.account_id, payment.purchase_id)).state, deps.clock.now()));
        return;
      }
    }
  }
  await finishCardCheck(deps, payment, result);
}

/**
 * Authorised: the hold is voided (nothing is taken), and in one transaction both answers are
 * recorded and the purchase's card becomes the new one. Refused: recorded, the card unchanged.
 */
async function finishCardCheck(deps: PaymentDeps, payment: PaymentRow, result: TransactionResult): Promise<ChangeCardOutcome> {
  const { db, clock } = deps;
  const { account_id: accountId, purchase_id: purchaseId } = payment;
  const record = (rows: [PaymentRow, TransactionResult][], switchCard: boolean) =>
    db.transaction(async (tx) => {
      const locked = await lockPayState(tx, accountId, purchaseId);
      for (const [row, r] of rows) await recordResult(tx, row, r, locked.state, clock.now());
      // A purchase settled meanwhile (cancelled, refunded, failed) keeps its card: nothing to charge.
      if (!switchCard || locked.state !== 'LEADER_PROCESSED') return undefined;
      const methodId = (await paymentMethodByToken(tx, accountId, purchaseId, payment.psp_method_id!))!;
      await setPaymentMethod(tx, accountId, purchaseId, methodId);
      return methodId;
    });
  if (result.status === 'requires_action') {
    await record([[payment, result]], false);
    return { kind: 'challenge', url: result.challengeUrl! };
  }
  if (result.status !== 'authorized' && result.status !== 'captured') {
    await record([[payment, result]], false);
    const decline = result.decline ?? { reason: 'processing_error' as const, message: 'The card could not be verified.' };
    return { kind: 'declined', reason: decline.reason, message: decline.message };
  }
  const psp = await deps.psps.forPayment(payment);
  const voided = await psp.void({ idempotencyKey: `${payment.idempotency_key}:void`, transaction: resultRef(payment, result) });
  const switched = await record(
    [
      [payment, result],
      [afterResult(payment, result), voided],
    ],
    true,
  );
  if (!switched) return { kind: 'not_payable', state: (await loadPayState(db, accountId, purchaseId))!.state };
  return settledCheck(deps, (await findPayment(db, accountId, payment.id))!);
}

/** What a card change already resolved answers when asked again. */
async function settledCheck(deps: PaymentDeps, payment: PaymentRow): Promise<ChangeCardOutcome> {
  if (payment.status === 'pending') return { kind: 'in_progress' };
  if (payment.status === 'declined') {
    return { kind: 'declined', reason: (payment.decline_reason as DeclineReason | null) ?? 'processing_error', message: 'The card could not be verified.' };
  }
  // Changed only if the purchase now points at this check's card (not one abandoned in 3-D Secure and voided).
  const current = await savedPspMethodId(deps.db, payment.account_id, payment.purchase_id);
  const card = current === payment.psp_method_id ? await cardOfPurchase(deps.db, payment.account_id, payment.purchase_id) : undefined;
  return card ? { kind: 'changed', ...card } : { kind: 'declined', reason: 'authentication_failed', message: 'The card could not be verified.' };
}
