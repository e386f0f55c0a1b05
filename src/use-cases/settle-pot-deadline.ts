import { potDeadlineComment, uncovered } from '../domain/pot.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import type { TransactionResult } from '../psp/connector.ts';
import { findPayment, pspRef, type PaymentRow } from '../payments/payment-repository.ts';
import { insertPayment, recordResult } from '../money/payment-record-repository.ts';
import { loadPayState, lockPayState, type PurchasePayState } from '../payments/pay-state-repository.ts';
import { closePledges, listPledges } from '../payments/pledge-repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import { closePotIfCovered, releaseGuarantee } from './close-pot.ts';
import type { PaymentDeps } from './deps.ts';
import { CLAIM_RETRY_MS, claimPurchase, holding, isInProgress, waitForClaim, type InProgress, type MoneyClaim } from '../money/claim.ts';
import { resolvePledgePayment } from './pay-pledge.ts';
import { sendPotCompleteNotice, sendRestChargedNotice, sendRestFailedNotice } from './shopper-notices.ts';
import { savedCard } from './stored-card.ts';

export type DeadlineOutcome =
  /** Not (or no longer) an open pot: nothing done. */
  | { kind: 'not_open' }
  /** A pledger's payment is still in flight: run again at `until`. */
  | { kind: 'wait'; until: Date }
  /** The pledges cover the amount: SUCCESSFUL without charging the leader. */
  | { kind: 'covered' }
  /** The uncovered rest was charged to the leader: SUCCESSFUL. */
  | { kind: 'rest_charged'; restCents: number }
  /** Charging the rest was refused: FAILED. */
  | { kind: 'rest_refused'; restCents: number; reason: string }
  /** The purchase left LEADER_PROCESSED while the rest was being charged (cancelled, ...). */
  | { kind: 'settled_meanwhile'; state: PurchaseState };

/**
 * The pot's deadline job: unpaid invitations are closed, and the uncovered rest is taken from
 * the leader's guarantee (or, when the hold has lapsed, charged off-session on the saved card):
 * SUCCESSFUL, or FAILED when refused.
 */
export async function settlePotDeadline(deps: PaymentDeps, accountId: string, purchaseId: string, opts: { waitMs?: number } = {}): Promise<DeadlineOutcome> {
  const closed = await waitForClaim(deps, () => closeThePot(deps, accountId, purchaseId), opts.waitMs);
  if (isInProgress(closed)) return { kind: 'wait', until: new Date(deps.clock.now().getTime() + CLAIM_RETRY_MS) };
  if (closed.kind !== 'closed') return closed;
  return holding(deps, closed.claim, () => settleClosed(deps, accountId, purchaseId, closed));
}

/** The pot closed under the claim: late payments given back, the rest taken, the purchase settled. */
async function settleClosed(deps: PaymentDeps, accountId: string, purchaseId: string, closed: Closed): Promise<DeadlineOutcome> {
  // Pledges closed while a payment of theirs was unresolved (a challenge never answered, a
  // charge whose answer was never recorded): the one rule of finishPledge gives that money back.
  for (const paymentId of closed.unresolved) {
    const payment = await findPayment(deps.db, accountId, paymentId);
    if (payment) await resolvePledgePayment(deps, payment);
  }
  const { locked, rest } = closed;
  if (rest <= 0) {
    const complete = await deps.db.transaction((tx) => closePotIfCovered(deps, tx, locked));
    await releaseGuarantee(deps, accountId, purchaseId);
    if (complete) await sendPotCompleteNotice(deps, accountId, purchaseId);
    return { kind: 'covered' };
  }
  const charged = await chargeRest(deps, locked, rest);
  const outcome = await recordRest(deps, locked, closed, charged);
  // The guarantee stays only where the rest was captured from it; any other hold is released.
  if (charged.result.status !== 'captured' || !charged.fromGuarantee) await releaseGuarantee(deps, accountId, purchaseId);
  if (outcome.kind === 'rest_refused') await sendRestFailedNotice(deps, accountId, purchaseId, outcome.restCents);
  if (outcome.kind === 'rest_charged') await sendRestChargedNotice(deps, accountId, purchaseId, outcome.restCents, charged.fromGuarantee);
  return outcome;
}

type Closed = { kind: 'closed'; locked: PurchasePayState; rest: number; paidCount: number; invited: number; unresolved: string[]; claim: MoneyClaim };

/** Closes the pledges still unpaid, unless one is being paid right now; answers the rest to charge. */
async function closeThePot(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<Closed | { kind: 'not_open' } | { kind: 'wait'; until: Date } | InProgress> {
  const { db, clock } = deps;
  return db.transaction(async (tx) => {
    const now = clock.now();
    const locked = await loadPayState(tx, accountId, purchaseId, true);
    if (!locked || locked.state !== 'LEADER_PROCESSED') return { kind: 'not_open' as const };
    const pledges = await listPledges(tx, accountId, purchaseId);
    const inFlight = pledges.find((p) => p.state === 'paying' && p.payingUntil && p.payingUntil > now);
    if (inFlight) return { kind: 'wait' as const, until: inFlight.payingUntil! };
    // The rest is taken under the purchase's claim (docs/money-operations.md#one-money-operation-at-a-time):
    // a refund, cancel or renewal under way first ends.
    const claim = await claimPurchase(tx, accountId, purchaseId, 'pot_settlement');
    if (isInProgress(claim)) return claim;
    await closePledges(tx, accountId, purchaseId, ['invited', 'paying'], 'deadline', now);
    const paid = pledges.filter((p) => p.state === 'paid');
    const rest = uncovered(
      locked.amountCents,
      locked.leaderShareCents ?? 0,
      paid.map((p) => p.amountCents),
    );
    const unresolved = pledges.filter((p) => p.state === 'paying' && p.paymentId).map((p) => p.paymentId!);
    return { kind: 'closed' as const, locked, rest, paidCount: paid.length, invited: pledges.filter((p) => p.state !== 'draft').length, unresolved, claim };
  });
}

/** Captures the rest from the guarantee; when the hold lapsed or was refused, charges the saved card instead. */
async function chargeRest(deps: PaymentDeps, locked: PurchasePayState, rest: number): Promise<{ payment: PaymentRow; result: TransactionResult; fromGuarantee: boolean }> {
  const { db, clock } = deps;
  const { accountId, id: purchaseId } = locked;
  const guarantee = locked.guaranteePaymentId ? await findPayment(db, accountId, locked.guaranteePaymentId) : undefined;
  if (guarantee?.psp_transaction_id && guarantee.status === 'authorized') {
    const captured = await (
      await deps.psps.forPayment(guarantee)
    ).capture({ idempotencyKey: `${guarantee.idempotency_key}:rest`, transaction: pspRef(guarantee), amountCents: rest });
    if (captured.status === 'captured') return { payment: guarantee, result: captured, fromGuarantee: true };
    await db.transaction((tx) => recordResult(tx, guarantee, captured, locked.state, clock.now()));
  }
  const { psp, paymentMethodId, storedCredential } = await savedCard(deps, locked);
  const payment = await insertPayment(
    db,
    { accountId, purchaseId, purpose: 'rest', psp: psp.name, pspAccountId: psp.pspAccountId, idempotencyKey: `${purchaseId}:rest`, amountCents: rest },
    clock.now(),
  );
  const result = await psp.chargeOffSession({ idempotencyKey: payment.idempotency_key, paymentMethodId, amountCents: rest, currency: locked.currency, storedCredential });
  return { payment, result, fromGuarantee: false };
}

/** Records the charge of the rest and moves the purchase: SUCCESSFUL when captured, else FAILED. */
async function recordRest(deps: PaymentDeps, locked: PurchasePayState, closed: Closed, charged: { payment: PaymentRow; result: TransactionResult }): Promise<DeadlineOutcome> {
  const { db, clock } = deps;
  const { accountId, id: purchaseId, currency } = locked;
  const { rest } = closed;
  const { payment, result } = charged;
  return db.transaction(async (tx): Promise<DeadlineOutcome> => {
    const current = await lockPayState(tx, accountId, purchaseId);
    await recordResult(tx, payment, result, current.state, clock.now());
    if (current.state !== 'LEADER_PROCESSED') return { kind: 'settled_meanwhile', state: current.state };
    const captured = result.status === 'captured';
    const comment = potDeadlineComment(closed.invited, closed.paidCount, rest, currency, captured);
    if (captured) {
      await applyMove(tx, clock, accountId, purchaseId, 'succeed', { comment, data: { rest_cents: rest } });
      return { kind: 'rest_charged', restCents: rest };
    }
    const reason = result.decline?.reason ?? 'declined';
    await applyMove(tx, clock, accountId, purchaseId, 'fail', { comment, data: { rest_cents: rest, reason } });
    return { kind: 'rest_refused', restCents: rest, reason };
  });
}
