import type { PurchaseState } from '../../domain/purchase-states.ts';
import { scheduleReconciliation } from '../../jobs/reconciliation.ts';
import { threeDSecureInput, type CardInput, type DeclineReason, type ThreeDSecureChoice, type TransactionResult, type ChallengeReturn } from '../../psp/connector.ts';
import { scheduledInstallments } from '../../payments/installment-repository.ts';
import { insertPaymentMethod, paymentMethodByToken, savedCard as cardOfPurchase, savedPspMethodId } from '../../payments/payment-method-repository.ts';
import { afterResult, countPaymentsKeyed, findPayment, findPurchasePayment, markDeclined, setPaymentPspMethod, type PaymentRow } from '../../payments/payment-repository.ts';
import { runMovement, settleAlone, type Book, type Call, type Step } from '../../money/movement.ts';
import { callPsp } from '../../money/psp-call.ts';
import { unresolvedLeaderAttempt } from '../../payments/unresolved-payment-repository.ts';
import { loadPayState, setPaymentMethod, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { isInProgress } from '../../money/claim.ts';
import type { Sql } from '../../db/database.ts';
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
  const { db } = deps;
  const state = await loadPayState(db, purchase.accountId, purchase.id);
  if (!state) return { kind: 'not_found' };
  if (state.state !== 'LEADER_PROCESSED') return { kind: 'not_payable', state: state.state };
  // Read outside any transaction: the saved card's connector, the offer's 3-D Secure choice.
  const { psp } = await savedCard(deps, state);
  const use3ds = (await deps.offers.byId(state.accountId, state.offerId))?.use3ds ?? 'auto';
  const out = await runMovement<PaymentRow, Checked, Step, Checking>(deps, {
    accountId: purchase.accountId,
    purchaseId: purchase.id,
    operation: 'card_change',
    notFound: { outcome: { kind: 'not_found' } },
    // A shopper's request: another operation under way is answered at once, not waited for.
    waitMs: 0,
    reserve: async (tx, locked, take, reservePayment) => {
      if (locked.state !== 'LEADER_PROCESSED') return { refuse: { outcome: { kind: 'not_payable', state: locked.state } } };
      // Under the purchase's claim (docs/money-operations.md#one-money-operation-at-a-time): no
      // collection, refund or cancel runs while the card the plan is charged to changes.
      const claim = await take();
      if (isInProgress(claim)) return claim;
      const next = (await scheduledInstallments(tx, purchase.accountId, purchase.id))[0];
      if (!next) return { refuse: { outcome: { kind: 'nothing_to_pay' } } };
      const prefix = `${purchase.id}:card:`;
      const n = await countPaymentsKeyed(tx, purchase.accountId, purchase.id, prefix);
      // One change at a time: a double click finds the first one still unresolved.
      if (await unresolvedLeaderAttempt(tx, purchase.accountId, purchase.id, ['card_check'])) return { refuse: { outcome: { kind: 'in_progress' } } };
      const payment = await reservePayment({
        accountId: purchase.accountId,
        purchaseId: purchase.id,
        purpose: 'card_check',
        psp: psp.name,
        pspAccountId: psp.pspAccountId,
        idempotencyKey: `${prefix}${n + 1}`,
        amountCents: next.amountCents + next.feesCents,
        leased: true,
      });
      await scheduleReconciliation(tx, deps.clock.now());
      return { go: payment };
    },
    lease: (payment) => payment,
    calls: (payment, call) => checkNewCard(deps, purchase, card, returnUrl, { currency: state.currency, use3ds }, psp, payment, call),
    settle: async (tx, locked, answers, book, payment, checking) => {
      if ('outcome' in checking) return checking;
      return settleCheck(tx, locked, book, checking.row, answers[0]!.result, answers[1]?.result);
    },
  });
  if (isInProgress(out)) return { kind: 'in_progress' };
  return answerOf(deps, out);
}

/** What the calls of a card change did: an answer already (refused at attach, resolved meanwhile), or the row as the authorisation was sent. */
type Checking = { outcome: ChangeCardOutcome } | { row: PaymentRow };
/** The settlement's answer, or `switched` (the card changed: answered as the row now stands). */
type Checked = { outcome: ChangeCardOutcome } | { switched: PaymentRow };

async function answerOf(deps: PaymentDeps, checked: Checked): Promise<ChangeCardOutcome> {
  if ('outcome' in checked) return checked.outcome;
  return settledCheck(deps, (await findPayment(deps.db, checked.switched.account_id, checked.switched.id))!);
}

/** The new card attached, stored and authorised (then voided), under the claim and the payment's lease taken by {@link changeCard}. */
async function checkNewCard(
  deps: PaymentDeps,
  purchase: { accountId: string; id: string },
  card: CardInput,
  returnUrl: (paymentId: string) => string,
  { currency, use3ds }: { currency: string; use3ds: ThreeDSecureChoice },
  psp: Awaited<ReturnType<typeof savedCard>>['psp'],
  payment: PaymentRow,
  call: Call<Step>,
): Promise<Checking> {
  const { db, clock } = deps;
  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${payment.idempotency_key}:attach`, card });
  if (!attached.ok) {
    await markDeclined(db, payment, attached.reason, clock.now());
    return { outcome: { kind: 'declined', reason: attached.reason, message: attached.message } };
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
  if (!ready) return { outcome: { kind: 'in_progress' } };
  const row = { ...payment, psp_method_id: attached.paymentMethodId, psp_return_url: back };
  const input = { paymentMethodId: attached.paymentMethodId, currency, capture: 'manual' as const, returnUrl: back, storeForLater: true, ...threeDSecureInput(use3ds) };
  const result = await call({ payment: row, call: { op: 'authorize', input } });
  await voidIfAuthorised(row, result, call);
  return { row };
}

/** Authorised, the check's hold is voided at once: nothing is taken. */
async function voidIfAuthorised(row: PaymentRow, result: TransactionResult, call: Call<Step>): Promise<void> {
  if (result.status === 'authorized' || result.status === 'captured') await call({ payment: row, latest: result, call: { op: 'void', key: `${row.idempotency_key}:void` } });
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
  const result = await callPsp(deps, payment, returned ? { op: 'retrieve', returned } : { op: 'retrieve' });
  return finishCardCheck(deps, payment, result);
}

/** The reconciliation job's resolution of a card change nobody came back for (as shopper-pay.ts's). */
export async function resolveCardCheck(deps: PaymentDeps, payment: PaymentRow): Promise<void> {
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
      capture: 'manual' as const,
      returnUrl: payment.psp_return_url!,
      storeForLater: true,
      ...threeDSecureInput(offer?.use3ds ?? 'auto'),
    };
    result = await callPsp(deps, payment, { op: 'authorize', input });
  } else {
    result = await callPsp(deps, payment, { op: 'retrieve' });
    if (result.status === 'requires_action') {
      // Never completed: voided, so that it cannot be later; the card stays the old one.
      const voided = await callPsp(deps, payment, { op: 'void', key: `${payment.idempotency_key}:abandon` }, result);
      result = voided.status === 'voided' ? voided : await callPsp(deps, payment, { op: 'retrieve' }, voided);
      if (result.status === 'voided') {
        const abandoned = result;
        await settleAlone(deps, payment, (_tx, _locked, book) => book(payment, abandoned));
        return;
      }
    }
  }
  await finishCardCheck(deps, payment, result);
}

/** The PSP's answer about a card change known after the request (3-D Secure, the reconciliation job): voided if authorised, then settled. */
async function finishCardCheck(deps: PaymentDeps, payment: PaymentRow, result: TransactionResult): Promise<ChangeCardOutcome> {
  const voided =
    result.status === 'authorized' || result.status === 'captured' ? await callPsp(deps, payment, { op: 'void', key: `${payment.idempotency_key}:void` }, result) : undefined;
  const checked = await settleAlone(deps, payment, (tx, locked, book) => settleCheck(tx, locked, book, payment, result, voided));
  return answerOf(deps, checked);
}

/**
 * Authorised: both answers (the authorisation and its void) are recorded and the purchase's card
 * becomes the new one, in one transaction. A challenge or a refusal: recorded, the card unchanged.
 */
async function settleCheck(tx: Sql, locked: PurchasePayState, book: Book, payment: PaymentRow, result: TransactionResult, voided: TransactionResult | undefined): Promise<Checked> {
  const { account_id: accountId, purchase_id: purchaseId } = payment;
  await book(payment, result);
  if (result.status === 'requires_action') return { outcome: { kind: 'challenge', url: result.challengeUrl! } };
  if (result.status !== 'authorized' && result.status !== 'captured') {
    const decline = result.decline ?? { reason: 'processing_error' as const, message: 'The card could not be verified.' };
    return { outcome: { kind: 'declined', reason: decline.reason, message: decline.message } };
  }
  if (voided) await book(afterResult(payment, result), voided);
  // A purchase settled meanwhile (cancelled, refunded, failed) keeps its card: nothing to charge.
  if (locked.state !== 'LEADER_PROCESSED') return { outcome: { kind: 'not_payable', state: locked.state } };
  const methodId = (await paymentMethodByToken(tx, accountId, purchaseId, payment.psp_method_id!))!;
  await setPaymentMethod(tx, accountId, purchaseId, methodId);
  return { switched: payment };
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
