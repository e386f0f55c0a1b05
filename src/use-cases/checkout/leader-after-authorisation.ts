import type { Offer } from '../../accounts/offer.ts';
import type { Sql } from '../../db/database.ts';
import type { LeaderPlan } from '../../domain/leader-plan.ts';
import { potComment, potDeadline } from '../../domain/pot.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import type { TransactionResult } from '../../psp/connector.ts';
import { insertPlan } from '../../payments/installment-repository.ts';
import { afterResult, type PaymentRow } from '../../payments/payment-repository.ts';
import type { Answer, Book, Call, Step } from '../../money/movement.ts';
import { setLeaderTerms, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { draftShares, inviteDrafts } from '../../payments/pledge-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import { scheduleCollections } from '../installments/collect-installment.ts';
import type { PaymentDeps } from '../deps.ts';
import { giveBack } from '../give-back/give-back.ts';
import { invitePledgers } from '../pot/notify-pledgers.ts';
import { schedulePotJobs } from '../pot/pot-jobs.ts';
import { scheduleReauthorization } from '../installments/reauthorize-hold.ts';
import { dueAt } from '../../domain/installment-rules.ts';
import { sendLeaderReceipt } from '../notices/shopper-notices.ts';
import { storedCredentialOf } from '../installments/stored-card.ts';
import { declineAttempt, stateAfter, type Decline, type LeaderOutcome } from './leader-outcome.ts';

/**
 * The leader's checkout once the PSP answered its authorisation (at once, after 3-D Secure, or
 * replayed by a resolution), as the three last steps of a money movement
 * (docs/architecture.md#the-money-engine): the calls (the leader's share charged beside a pot's
 * guarantee, the guarantee voided when the share is refused), the settlement (the PSP's answers
 * recorded and the purchase opened, LEADER_PROCESSED or SUCCESSFUL for a leader paying a SHARED
 * purchase alone, in one transaction) and what follows (the pledgers invited, the receipt sent,
 * or what a purchase aborted meanwhile no longer needs given back).
 */

/** One checkout attempt under way: what the steps after the leader's authorisation need. */
export interface LeaderCheckout {
  offer: Offer;
  plan: LeaderPlan;
  /** The payment row of the checkout transaction (its idempotency key derives the others'). */
  payment: PaymentRow;
}

/** A PSP call of the leader's movement, named for the settlement: the authorisation (or what stands for it), the share's charge, the guarantee's void. */
export type LeaderStep = Step & { role: 'auth' | 'share' | 'void' | 'abandon' };

/** What the calls leave to the settlement. */
export type LeaderMade =
  /** Decided before anything was charged, its writes made (a risk refusal), or nothing to do (the attempt resolved meanwhile). */
  | { done: LeaderOutcome | undefined }
  /** The card refused as it was registered. */
  | { refusedAtAttach: Decline }
  /** The PSP's answer to the authorisation; the share's and the void's, if any, are among the answers. */
  | { auth: TransactionResult }
  /** A resolution found the purchase moved on (aborted, expired): the answer recorded, what it took given back. */
  | { late: TransactionResult }
  /** A resolution voided a challenge never completed: nothing was charged. */
  | { abandoned: TransactionResult };

/** What the settlement decided, for the steps after its commit. */
export interface LeaderSettled {
  outcome: LeaderOutcome | undefined;
  /** Money the attempt took that the purchase no longer needs. */
  giveBack: { payment: PaymentRow; result: TransactionResult }[];
}

/**
 * The calls after the authorisation answered `auth`: SHARED with pledgers, the guarantee holds the
 * friends' part (amount − leader's share) and the leader's own share is charged now, off-session
 * on the saved card (so one 3-D Secure challenge, docs/hosted-payment.md); refused, the guarantee
 * is voided and the attempt counts as a refusal. `pspMethodId`: the PSP token of the leader's card.
 */
export async function callsAfterAuthorisation(checkout: LeaderCheckout, pspMethodId: string, auth: TransactionResult, call: Call<LeaderStep>): Promise<LeaderMade> {
  const { payment, plan, offer } = checkout;
  if (plan.purpose !== 'guarantee' || (auth.status !== 'authorized' && auth.status !== 'captured')) return { auth };
  const share = await call({
    role: 'share',
    reserve: {
      accountId: payment.account_id,
      purchaseId: payment.purchase_id,
      purpose: 'leader_share',
      psp: payment.psp,
      pspAccountId: payment.psp_account_id,
      idempotencyKey: `${payment.idempotency_key}:share`,
      amountCents: plan.leaderShareCents,
    },
    call: { op: 'chargeOffSession', paymentMethodId: pspMethodId, currency: offer.currency, storedCredential: storedCredentialOf(auth) },
  });
  if (share.status !== 'captured') await call({ role: 'void', payment, latest: auth, call: { op: 'void', key: `${payment.idempotency_key}:void` } });
  return { auth };
}

/** The settlement of the leader's movement, under the purchase's row lock. */
export async function settleLeader(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  book: Book,
  checkout: LeaderCheckout,
  answers: Answer<LeaderStep>[],
  made: LeaderMade,
): Promise<LeaderSettled> {
  const { payment, offer } = checkout;
  const settled = (outcome: LeaderOutcome | undefined, back: LeaderSettled['giveBack'] = []): LeaderSettled => ({ outcome, giveBack: back });
  if ('done' in made) return settled(made.done);
  if ('refusedAtAttach' in made) return settled(await declineAttempt(deps, tx, locked, book, offer, payment, { ...made.refusedAtAttach, atAttach: true }));
  if ('abandoned' in made) {
    await book(payment, made.abandoned);
    return settled(undefined);
  }
  if ('late' in made) {
    // Unless another resolution of the same attempt (a tab's reload, the reconciliation job)
    // recorded it first: the purchase may have moved on because of it (opened with this very
    // money), and what to give back was decided there.
    const recorded = await book(payment, made.late);
    return settled({ kind: 'not_payable', state: locked.state }, recorded ? [{ payment: afterResult(payment, made.late), result: made.late }] : []);
  }
  const { auth } = made;
  if (auth.status === 'requires_action') {
    await book(payment, auth);
    return settled({ kind: 'challenge', url: auth.challengeUrl! });
  }
  if (auth.status !== 'authorized' && auth.status !== 'captured') return settled(await declineAttempt(deps, tx, locked, book, offer, payment, auth.decline, auth));
  const share = answers.find((a) => a.step.role === 'share');
  const voided = answers.find((a) => a.step.role === 'void');
  if (share && share.result.status !== 'captured') {
    await book(payment, auth);
    if (voided) await book(afterResult(payment, auth), voided.result);
    return settled(await declineAttempt(deps, tx, locked, book, offer, share.payment, share.result.decline, share.result));
  }
  await book(payment, auth);
  if (share) await book(share.payment, share.result);
  // Settled meanwhile (aborted, expired): nothing more to do here but give back what it took.
  const state = locked.state === 'CREATED' ? await openPurchase(deps, tx, checkout, locked, deps.clock.now()) : locked.state;
  if (state !== 'ABORTED' && state !== 'CANCELLED') return settled({ kind: 'processed', state });
  const back = [{ payment: afterResult(payment, auth), result: auth }];
  if (share) back.push({ payment: afterResult(share.payment, share.result), result: share.result });
  return settled({ kind: 'not_payable', state }, back);
}

/** After the settlement's commit: what an aborted purchase no longer needs given back, or the pledgers invited and the receipt sent. */
export async function afterLeader(deps: PaymentDeps, checkout: LeaderCheckout, { outcome, giveBack: back }: LeaderSettled): Promise<void> {
  const { payment, offer } = checkout;
  for (const taken of back) await giveBack(deps, taken.payment, taken.result);
  if (outcome?.kind !== 'processed') return;
  if (outcome.state === 'LEADER_PROCESSED' && offer.type === 'SHARED') await invitePledgers(deps, payment.account_id, payment.purchase_id);
  if (outcome.state === 'LEADER_PROCESSED' || outcome.state === 'SUCCESSFUL') await sendLeaderReceipt(deps, payment.account_id, payment.purchase_id, payment.id);
}

/**
 * LEADER_PROCESSED: the leader's terms stored, the installment plan stored, the drafts invited,
 * the follow-up jobs scheduled; a leader paying a SHARED purchase alone makes it SUCCESSFUL.
 */
async function openPurchase(deps: PaymentDeps, tx: Sql, checkout: LeaderCheckout, locked: PurchasePayState, now: Date): Promise<PurchaseState> {
  const { offer, plan, payment } = checkout;
  const { accountId, id: purchaseId } = locked;
  const shared = offer.type === 'SHARED';
  const invitations = (await draftShares(tx, accountId, purchaseId)).length;
  const comment = shared && invitations > 0 ? potComment(invitations, 0, locked.amountCents - plan.leaderShareCents, offer.currency) : undefined;
  // Validated: in transfer mode, the move books what the shopper owes and the merchant is owed (src/purchases/transitions.ts).
  const shopperFeesCents = (plan.schedule ?? []).reduce((sum, line) => sum + line.feesCents, 0);
  const processed = await applyMove(tx, deps.clock, accountId, purchaseId, 'leaderProcessed', { comment, data: { payment_id: payment.id }, shopperFeesCents });
  if (!processed.ok) return stateAfter(processed, locked.state);

  const deadline = shared ? potDeadline(now, offer.potDeadlineHours) : null;
  await setLeaderTerms(
    tx,
    accountId,
    purchaseId,
    { leaderShareCents: plan.leaderShareCents, potDeadlineAt: deadline, guaranteePaymentId: plan.purpose === 'guarantee' ? payment.id : null },
    now,
  );
  if (plan.schedule) {
    await insertPlan(
      tx,
      accountId,
      purchaseId,
      plan.schedule,
      { paid: plan.purpose === 'first_installment', heldByPayment: plan.purpose === 'deferred', paymentId: payment.id },
      now,
    );
  }
  await inviteDrafts(tx, accountId, purchaseId, now);
  if (shared && invitations === 0) {
    const succeeded = await applyMove(tx, deps.clock, accountId, purchaseId, 'succeed', { data: { payment_id: payment.id } });
    return stateAfter(succeeded, 'LEADER_PROCESSED');
  }
  if (deadline) await schedulePotJobs(tx, accountId, purchaseId, now, deadline);
  if (plan.schedule) await scheduleCollections(tx, accountId, purchaseId);
  // A hold that must outlive the card authorisation is renewed before it lapses (docs/money-operations.md#re-authorisation).
  if (deadline && plan.purpose === 'guarantee') await scheduleReauthorization(tx, deps, payment, deadline, offer.holdRenewalDays);
  const deferredLine = plan.purpose === 'deferred' ? plan.schedule?.[0] : undefined;
  if (deferredLine) await scheduleReauthorization(tx, deps, payment, dueAt(deferredLine.dueDate), offer.holdRenewalDays);
  return 'LEADER_PROCESSED';
}
