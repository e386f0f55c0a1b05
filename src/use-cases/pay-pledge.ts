import { EVENT } from '../domain/events.ts';
import { PLEDGE_RESERVATION_MS, uncovered } from '../domain/pot.ts';
import type { CardInput, DeclineReason, TransactionResult } from '../psp/connector.ts';
import { countPledgePayments, findPayment, insertPayment, recordResult, writeEvent, type PaymentRow } from '../payments/payment-repository.ts';
import { loadPayState, lockPayState } from '../payments/pay-state-repository.ts';
import { committedShares, findPledge, setPledgeState, upsertPledgerClient, type Pledge } from '../payments/pledge-repository.ts';
import { closePotIfCovered, releaseGuarantee } from './close-pot.ts';
import type { PaymentDeps } from './deps.ts';

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
  const psp = psps.get(offer.psp);

  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${pledge.id}:attach:${clock.now().getTime()}`, card });
  if (!attached.ok) return { kind: 'declined', reason: attached.reason, message: attached.message };

  const reservation = await reserve(deps, pledge, psp.name);
  if ('outcome' in reservation) return reservation.outcome;
  const result = await psp.authorize({
    idempotencyKey: reservation.payment.idempotency_key,
    paymentMethodId: attached.paymentMethodId,
    amountCents: pledge.amountCents,
    currency: reservation.currency,
    capture: 'automatic',
    returnUrl: returnUrl(reservation.payment.id),
  });
  return finishPledge(deps, pledge, reservation.payment, result);
}

/** After the pledger's 3-D Secure challenge: the PSP's outcome of the authorisation decides. */
export async function resumePledgeAfterChallenge(deps: PaymentDeps, pledge: Pledge, paymentId: string): Promise<PledgeOutcome> {
  const payment = await findPayment(deps.db, pledge.accountId, paymentId);
  if (!payment || payment.pledge_id !== pledge.id || !payment.psp_transaction_id) return { kind: 'closed', reason: 'unknown' };
  if (pledge.state === 'paid') return { kind: 'already_paid' };
  const result = await deps.psps.get(payment.psp).retrieve(payment.psp_transaction_id);
  return finishPledge(deps, pledge, payment, result);
}

/**
 * Reserves the pledger's share under the purchase's row lock (paid + reserved shares + the
 * leader's share never exceed the amount) and records the payment about to be made; or answers
 * why there is nothing to charge, closing a pledge that no longer fits.
 */
async function reserve(deps: PaymentDeps, pledge: Pledge, pspName: string): Promise<{ payment: PaymentRow; currency: string } | { outcome: PledgeOutcome }> {
  const { db, clock } = deps;
  return db.transaction(async (tx) => {
    const now = clock.now();
    const locked = await lockPayState(tx, pledge.accountId, pledge.purchaseId);
    const current = (await findPledge(tx, pledge.accountId, pledge.id, true))!;
    if (current.state === 'paid') return { outcome: { kind: 'already_paid' } };
    if (current.state === 'closed') return { outcome: { kind: 'closed', reason: current.closedReason ?? 'closed' } };
    if (current.state === 'paying' && current.payingUntil && current.payingUntil > now) return { outcome: { kind: 'in_progress' } };
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
      { accountId: pledge.accountId, purchaseId: pledge.purchaseId, pledgeId: pledge.id, purpose: 'pledge', psp: pspName, idempotencyKey: `${pledge.id}:pay:${n + 1}`, amountCents: current.amountCents },
      now,
    );
    await setPledgeState(tx, current, 'paying', now, { payingUntil: new Date(now.getTime() + PLEDGE_RESERVATION_MS), paymentId: payment.id });
    return { payment, currency: locked.currency };
  });
}

/** Records the PSP's answer: paid (the pot may now be complete), a challenge, or a refusal that frees the reservation. */
async function finishPledge(deps: PaymentDeps, pledge: Pledge, payment: PaymentRow, result: TransactionResult): Promise<PledgeOutcome> {
  const { db, clock } = deps;
  const outcome = await db.transaction(async (tx): Promise<PledgeOutcome> => {
    const now = clock.now();
    const locked = await lockPayState(tx, pledge.accountId, pledge.purchaseId);
    const current = (await findPledge(tx, pledge.accountId, pledge.id, true))!;
    await recordResult(tx, payment, result, locked.state, now);
    if (result.status === 'requires_action') {
      await setPledgeState(tx, current, 'paying', now, { payingUntil: new Date(now.getTime() + PLEDGE_RESERVATION_MS) });
      return { kind: 'challenge', url: result.challengeUrl! };
    }
    if (result.status !== 'captured') {
      if (current.state === 'paying') await setPledgeState(tx, current, 'invited', now, { payingUntil: null });
      const decline = result.decline ?? { reason: 'processing_error' as const, message: 'The payment could not be completed.' };
      return { kind: 'declined', reason: decline.reason, message: decline.message };
    }
    const clientId = await upsertPledgerClient(tx, pledge.accountId, current, now);
    await setPledgeState(tx, current, 'paid', now, { payingUntil: null, paidAt: now, clientId });
    await writeEvent(tx, pledge.accountId, pledge.purchaseId, EVENT.pledgePaid, locked.state, { pledge_id: pledge.id, client_id: clientId ?? null, amount_cents: current.amountCents }, now);
    await closePotIfCovered(deps, tx, locked);
    return { kind: 'paid' };
  });
  if (outcome.kind === 'paid') await releaseGuarantee(deps, pledge.accountId, pledge.purchaseId);
  return outcome;
}
