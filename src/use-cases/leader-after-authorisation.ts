import type { Offer } from '../accounts/offer.ts';
import type { Sql } from '../db/database.ts';
import type { LeaderPlan } from '../domain/leader-plan.ts';
import { potComment, potDeadline } from '../domain/pot.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import type { TransactionResult } from '../psp/connector.ts';
import { insertPlan } from '../payments/installment-repository.ts';
import { afterResult, resultRef, type PaymentRow } from '../payments/payment-repository.ts';
import { insertPayment, recordResult } from '../money/payment-record-repository.ts';
import { lockPayState, setLeaderTerms, type PurchasePayState } from '../payments/pay-state-repository.ts';
import { draftShares, inviteDrafts } from '../payments/pledge-repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import { scheduleCollections } from './collect-installment.ts';
import type { PaymentDeps } from './deps.ts';
import { giveBack } from './give-back.ts';
import { invitePledgers } from './notify-pledgers.ts';
import { schedulePotJobs } from './pot-jobs.ts';
import { scheduleReauthorization } from './reauthorize-hold.ts';
import { dueAt } from '../domain/installment-rules.ts';
import { sendLeaderReceipt } from './shopper-notices.ts';
import type { AccountConnector } from '../psp/registry.ts';
import { storedCredentialOf } from './stored-card.ts';
import { leaderDeclined, stateAfter, type LeaderOutcome } from './leader-outcome.ts';

/**
 * The leader's checkout once the PSP answered its authorisation (at once, or after 3-D Secure):
 * the leader's share charged beside a pot's guarantee, the PSP's answers recorded and the purchase
 * opened (LEADER_PROCESSED, or SUCCESSFUL for a leader paying a SHARED purchase alone) in one
 * transaction, then the pledgers invited and the receipt sent.
 */

/** One checkout attempt under way: what the steps after the leader's authorisation need. */
export interface LeaderCheckout {
  offer: Offer;
  psp: AccountConnector;
  plan: LeaderPlan;
  /** The payment row of the checkout transaction (its idempotency key derives the others'). */
  payment: PaymentRow;
  /** The PSP token of the leader's card (the share is charged on it off-session). */
  pspMethodId: string;
}

/** The steps after the PSP answered the checkout authorisation (at once, or after 3-D Secure). */
export async function continueLeader(deps: PaymentDeps, checkout: LeaderCheckout, result: TransactionResult): Promise<LeaderOutcome> {
  const { payment, offer } = checkout;
  if (result.status === 'requires_action') {
    await deps.db.transaction((tx) => recordResult(tx, payment, result, 'CREATED', deps.clock.now()));
    return { kind: 'challenge', url: result.challengeUrl! };
  }
  if (result.status !== 'authorized' && result.status !== 'captured') return leaderDeclined(deps, offer, payment, result.decline, result);
  let share: Charged | undefined;
  if (checkout.plan.purpose === 'guarantee') {
    const charged = await chargeLeaderShare(deps, checkout, result);
    if ('outcome' in charged) return charged.outcome;
    share = charged;
  }
  const state = await recordAndOpen(deps, checkout, result, share);
  if (state === 'ABORTED' || state === 'CANCELLED') {
    // Aborted or expired while the PSP answered: nothing this attempt took may be kept.
    await giveBack(deps, afterResult(payment, result), result);
    if (share) await giveBack(deps, afterResult(share.payment, share.result), share.result);
    return { kind: 'not_payable', state };
  }
  if (state === 'LEADER_PROCESSED' && offer.type === 'SHARED') await invitePledgers(deps, payment.account_id, payment.purchase_id);
  if (state === 'LEADER_PROCESSED' || state === 'SUCCESSFUL') await sendLeaderReceipt(deps, payment.account_id, payment.purchase_id, payment.id);
  return { kind: 'processed', state };
}

type Charged = { payment: PaymentRow; result: TransactionResult };

/**
 * SHARED with pledgers: the guarantee holds the friends' part (amount − leader's share); the
 * leader's own share is charged now, off-session on the saved card (so one 3-D Secure challenge,
 * docs/hosted-payment.md). Refused, the guarantee is voided and the attempt counts as
 * a refusal.
 */
async function chargeLeaderShare(deps: PaymentDeps, checkout: LeaderCheckout, guarantee: TransactionResult): Promise<Charged | { outcome: LeaderOutcome }> {
  const { db, clock } = deps;
  const { payment, psp, plan, offer } = checkout;
  const sharePayment = await insertPayment(
    db,
    {
      accountId: payment.account_id,
      purchaseId: payment.purchase_id,
      purpose: 'leader_share',
      psp: psp.name,
      pspAccountId: psp.pspAccountId,
      idempotencyKey: `${payment.idempotency_key}:share`,
      amountCents: plan.leaderShareCents,
    },
    clock.now(),
  );
  const result = await psp.chargeOffSession({
    idempotencyKey: sharePayment.idempotency_key,
    paymentMethodId: checkout.pspMethodId,
    amountCents: plan.leaderShareCents,
    currency: offer.currency,
    storedCredential: storedCredentialOf(guarantee),
  });
  if (result.status === 'captured') return { payment: sharePayment, result };
  const voided = await psp.void({ idempotencyKey: `${payment.idempotency_key}:void`, transaction: resultRef(payment, guarantee) });
  await db.transaction(async (tx) => {
    await recordResult(tx, payment, guarantee, 'CREATED', clock.now());
    await recordResult(tx, afterResult(payment, guarantee), voided, 'CREATED', clock.now());
  });
  return { outcome: await leaderDeclined(deps, offer, sharePayment, result.decline, result) };
}

/** Records the PSP's answers and, if the purchase is still CREATED, opens it, in one transaction. */
async function recordAndOpen(deps: PaymentDeps, checkout: LeaderCheckout, result: TransactionResult, share: Charged | undefined): Promise<PurchaseState> {
  const { db, clock } = deps;
  const { payment } = checkout;
  const now = clock.now();
  return db.transaction(async (tx) => {
    const locked = await lockPayState(tx, payment.account_id, payment.purchase_id);
    await recordResult(tx, payment, result, locked.state, now);
    if (share) await recordResult(tx, share.payment, share.result, locked.state, now);
    if (locked.state !== 'CREATED') return locked.state; // settled meanwhile (aborted, expired): nothing more to do here
    return openPurchase(deps, tx, checkout, locked, now);
  });
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
