import { EVENT } from '../domain/events.ts';
import { pledgeReturnUrl } from '../domain/links.ts';
import { PLEDGE_RESERVATION_MS, uncovered } from '../domain/pot.ts';
import type { CardInput, DeclineReason, TransactionResult } from '../psp/connector.ts';
import { afterResult, countPledgePayments, findPayment, insertPayment, markDeclined, recordResult, setPaymentPspMethod, writeEvent, type PaymentRow } from '../payments/payment-repository.ts';
import { loadPayState, lockPayState } from '../payments/pay-state-repository.ts';
import { committedShares, findPledge, setPledgeState, upsertPledgerClient, type Pledge } from '../payments/pledge-repository.ts';
import { closePotIfCovered, releaseGuarantee } from './close-pot.ts';
import type { PaymentDeps } from './deps.ts';
import type { AccountConnector } from '../psp/registry.ts';
import { giveBack } from './give-back.ts';
import { scheduleReconciliation } from './reconcile-payments.ts';
import { sendPledgeReceipt, sendPotCompleteNotice } from './shopper-notices.ts';

export type PledgeOutcome =
  | { kind: 'paid' }
  | { kind: 'challenge'; url: string }
  | { kind: 'declined'; reason: DeclineReason; message: string }
  | { kind: 'already_paid' }
  | { kind: 'closed'; reason: string }
  | { kind: 'in_progress' };

/**
 * A pledger pays their share. The share is first reserved under the purchase's row lock, so
 * that concurrent pledgers never over-fund the pot: a pledge that no longer fits is closed and
 * never charged. Then the card is charged outside any transaction, and the outcome recorded.
 */
export async function payPledge(deps: PaymentDeps, pledge: Pledge, card: CardInput, returnUrl: (paymentId: string) => string): Promise<PledgeOutcome> {
  const { db, clock, offers, psps } = deps;
  if (pledge.state === 'paid') return { kind: 'already_paid' };
  if (pledge.state === 'closed') return { kind: 'closed', reason: pledge.closedReason ?? 'closed' };
  const purchase = await loadPayState(db, pledge.accountId, pledge.purchaseId);
  const offer = purchase && (await offers.byId(pledge.accountId, purchase.offerId));
  if (!purchase || !offer) return { kind: 'closed', reason: 'unknown' };
  const psp = await psps.forOffer(offer);

  // The pledge's last payment left unresolved (a crash, an abandoned challenge) is resolved first
  // with its own key; only a refused one lets this card be charged.
  const last = pledge.paymentId ? await findPayment(db, pledge.accountId, pledge.paymentId) : undefined;
  if (last && (last.status === 'pending' || last.status === 'requires_action')) {
    const current = await findPledge(db, pledge.accountId, pledge.id);
    if (current?.state === 'paying' && current.payingUntil && current.payingUntil > clock.now()) return { kind: 'in_progress' };
    const resolved = await resolvePledgePayment(deps, last);
    if (resolved && resolved.kind !== 'declined') return resolved;
  }

  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${pledge.id}:attach:${clock.now().getTime()}`, card });
  if (!attached.ok) return { kind: 'declined', reason: attached.reason, message: attached.message };

  const reservation = await reserve(deps, pledge, psp, attached.paymentMethodId, returnUrl);
  if ('outcome' in reservation) return reservation.outcome;
  const result = await psp.authorize({
    idempotencyKey: reservation.payment.idempotency_key,
    paymentMethodId: attached.paymentMethodId,
    amountCents: pledge.amountCents,
    currency: reservation.currency,
    capture: 'automatic',
    returnUrl: reservation.payment.psp_return_url!,
  });
  return finishPledge(deps, pledge, reservation.payment, result);
}

/** After the pledger's 3-D Secure challenge: the PSP's outcome of the authorisation decides. */
export async function resumePledgeAfterChallenge(deps: PaymentDeps, pledge: Pledge, paymentId: string): Promise<PledgeOutcome> {
  const payment = await findPayment(deps.db, pledge.accountId, paymentId);
  if (!payment || payment.pledge_id !== pledge.id || !payment.psp_transaction_id) return { kind: 'closed', reason: 'unknown' };
  if (pledge.state === 'paid') return { kind: 'already_paid' };
  const result = await (await deps.psps.forPayment(payment)).retrieve(payment.psp_transaction_id);
  return finishPledge(deps, pledge, payment, result);
}

/**
 * Resolves a pledge payment left `pending` (replays the authorisation with the same key and card:
 * the PSP answers its stored outcome) or awaiting 3-D Secure (asks the PSP; a challenge still
 * pending is voided), then records it through {@link finishPledge}, which keeps the money only
 * if the pledge still holds its reservation. The pledger's retry, the pot's deadline and the
 * reconciliation job use it alike. Undefined when there was nothing to resolve.
 */
export async function resolvePledgePayment(deps: PaymentDeps, payment: PaymentRow): Promise<PledgeOutcome | undefined> {
  const { db, clock } = deps;
  const pledge = payment.pledge_id ? await findPledge(db, payment.account_id, payment.pledge_id) : undefined;
  if (!pledge) return undefined;
  const psp = await deps.psps.forPayment(payment);
  let result: TransactionResult;
  if (payment.status === 'pending') {
    if (!payment.psp_method_id) {
      // Before migration 008 the card was not stored: nothing to replay with.
      await markDeclined(db, payment, 'abandoned', clock.now());
      return undefined;
    }
    const purchase = (await loadPayState(db, payment.account_id, payment.purchase_id))!;
    result = await psp.authorize({
      idempotencyKey: payment.idempotency_key,
      paymentMethodId: payment.psp_method_id,
      amountCents: payment.amount_cents,
      currency: purchase.currency,
      capture: 'automatic',
      returnUrl: payment.psp_return_url ?? pledgeReturnUrl(deps.publicUrl, pledge.id, payment.id),
    });
  } else if (payment.status === 'requires_action' && payment.psp_transaction_id) {
    result = await psp.retrieve(payment.psp_transaction_id);
  } else {
    return undefined;
  }
  if (result.status === 'requires_action') {
    const voided = await psp.void({ idempotencyKey: `${payment.idempotency_key}:void`, transactionId: result.transactionId });
    // Refused: the pledger completed the challenge in between; that outcome decides.
    result = voided.status === 'voided' ? voided : await psp.retrieve(result.transactionId);
  }
  return finishPledge(deps, pledge, payment, result);
}

/**
 * Reserves the pledger's share under the purchase's row lock (paid + reserved shares + the
 * leader's share never exceed the amount) and records the payment about to be made; or answers
 * why there is nothing to charge, closing a pledge that no longer fits.
 */
async function reserve(deps: PaymentDeps, pledge: Pledge, psp: AccountConnector, pspMethodId: string, returnUrl: (paymentId: string) => string): Promise<{ payment: PaymentRow; currency: string } | { outcome: PledgeOutcome }> {
  const { db, clock } = deps;
  return db.transaction(async (tx) => {
    const now = clock.now();
    const locked = await lockPayState(tx, pledge.accountId, pledge.purchaseId);
    const current = (await findPledge(tx, pledge.accountId, pledge.id, true))!;
    if (current.state === 'paid') return { outcome: { kind: 'already_paid' } };
    if (current.state === 'closed') return { outcome: { kind: 'closed', reason: current.closedReason ?? 'closed' } };
    if (current.state === 'paying' && current.payingUntil && current.payingUntil > now) return { outcome: { kind: 'in_progress' } };
    // Never a second key for the same share while the last payment is unresolved (a concurrent retry resolves it).
    const last = current.paymentId ? await findPayment(tx, pledge.accountId, current.paymentId) : undefined;
    if (last && (last.status === 'pending' || last.status === 'requires_action')) return { outcome: { kind: 'in_progress' } };
    if (locked.state !== 'LEADER_PROCESSED') {
      await setPledgeState(tx, current, 'closed', now, { closedReason: 'pot_closed' });
      return { outcome: { kind: 'closed', reason: 'pot_closed' } };
    }
    const left = uncovered(locked.amountCents, locked.leaderShareCents ?? 0, await committedShares(tx, pledge.accountId, pledge.purchaseId, pledge.id, now));
    if (current.amountCents > left) {
      await setPledgeState(tx, current, 'closed', now, { closedReason: 'pot_full' });
      return { outcome: { kind: 'closed', reason: 'pot_full' } };
    }
    const n = await countPledgePayments(tx, pledge.accountId, pledge.id);
    const payment = await insertPayment(
      tx,
      { accountId: pledge.accountId, purchaseId: pledge.purchaseId, pledgeId: pledge.id, purpose: 'pledge', psp: psp.name, pspAccountId: psp.pspAccountId, idempotencyKey: `${pledge.id}:pay:${n + 1}`, amountCents: current.amountCents },
      now,
    );
    // The call's card and return URL are stored before the call, for a replay after a crash.
    await setPaymentPspMethod(tx, payment, pspMethodId, returnUrl(payment.id));
    payment.psp_method_id = pspMethodId;
    payment.psp_return_url = returnUrl(payment.id);
    await setPledgeState(tx, current, 'paying', now, { payingUntil: new Date(now.getTime() + PLEDGE_RESERVATION_MS), paymentId: payment.id });
    await scheduleReconciliation(tx, now);
    return { payment, currency: locked.currency };
  });
}

/**
 * Records the PSP's answer: paid (the pot may now be complete), a challenge, or a refusal that
 * frees the reservation.
 *
 * The pot is never over-funded, whatever the interleaving with the deadline job, a full pot or
 * a clock jump: money is kept only by a pledge that still holds this payment's reservation
 * (`paying` with this payment) in a pot still open and with room for it. Otherwise the pledge is
 * closed and what the payment took is given back (a pending challenge voided, a capture
 * refunded), with keys derived from the payment's, so that the deadline job and the pledger's
 * return, running the same rule, give it back once.
 */
async function finishPledge(deps: PaymentDeps, pledge: Pledge, payment: PaymentRow, result: TransactionResult): Promise<PledgeOutcome> {
  const { db, clock } = deps;
  const outcome = await db.transaction(async (tx): Promise<Exclude<PledgeOutcome, { kind: 'paid' }> | { kind: 'paid'; complete: boolean } | { kind: 'give_back'; reason: string }> => {
    const now = clock.now();
    const locked = await lockPayState(tx, pledge.accountId, pledge.purchaseId);
    const current = (await findPledge(tx, pledge.accountId, pledge.id, true))!;
    await recordResult(tx, payment, result, locked.state, now);
    const holds = current.state === 'paying' && current.paymentId === payment.id;
    const closedReason = current.state === 'closed' ? (current.closedReason ?? 'closed') : locked.state !== 'LEADER_PROCESSED' ? 'pot_closed' : undefined;
    if (result.status === 'requires_action') {
      if (!holds || closedReason) return { kind: 'give_back', reason: closedReason ?? 'closed' };
      await setPledgeState(tx, current, 'paying', now, { payingUntil: new Date(now.getTime() + PLEDGE_RESERVATION_MS) });
      return { kind: 'challenge', url: result.challengeUrl! };
    }
    if (result.status !== 'captured') {
      if (holds) await setPledgeState(tx, current, closedReason ? 'closed' : 'invited', now, closedReason ? { payingUntil: null, closedReason } : { payingUntil: null });
      if (current.state === 'paid') return { kind: 'already_paid' };
      if (closedReason) return { kind: 'closed', reason: closedReason };
      const decline = result.decline ?? { reason: 'processing_error' as const, message: 'The payment could not be completed.' };
      return { kind: 'declined', reason: decline.reason, message: decline.message };
    }
    // Captured: does the pot still want it? (An expired reservation may have been overtaken.)
    const left = uncovered(locked.amountCents, locked.leaderShareCents ?? 0, await committedShares(tx, pledge.accountId, pledge.purchaseId, pledge.id, now));
    const reason = closedReason ?? (!holds ? 'closed' : current.amountCents > left ? 'pot_full' : undefined);
    if (reason) {
      if (current.state === 'paying' || current.state === 'invited') await setPledgeState(tx, current, 'closed', now, { payingUntil: null, closedReason: reason });
      return { kind: 'give_back', reason };
    }
    const clientId = await upsertPledgerClient(tx, pledge.accountId, current, now);
    await setPledgeState(tx, current, 'paid', now, { payingUntil: null, paidAt: now, clientId });
    await writeEvent(tx, pledge.accountId, pledge.purchaseId, EVENT.pledgePaid, locked.state, { pledge_id: pledge.id, client_id: clientId ?? null, amount_cents: current.amountCents }, now);
    const complete = await closePotIfCovered(deps, tx, locked);
    return { kind: 'paid', complete };
  });
  if (outcome.kind === 'give_back') {
    await giveBack(deps, afterResult(payment, result), result);
    return { kind: 'closed', reason: outcome.reason };
  }
  if (outcome.kind !== 'paid') return outcome;
  await releaseGuarantee(deps, pledge.accountId, pledge.purchaseId);
  await sendPledgeReceipt(deps, pledge.accountId, pledge.id, payment.id);
  if (outcome.complete) await sendPotCompleteNotice(deps, pledge.accountId, pledge.purchaseId);
  return { kind: 'paid' };
}
