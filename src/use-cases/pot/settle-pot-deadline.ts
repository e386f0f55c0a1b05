import { potDeadlineComment, uncovered } from '../../domain/pot.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import type { Sql } from '../../db/database.ts';
import { CLAIM_RETRY_MS, isInProgress, type InProgress } from '../../money/claim.ts';
import { runMovement, type Answer, type Book, type Call, type Step, type Take } from '../../money/movement.ts';
import { findPayment } from '../../payments/payment-repository.ts';
import type { PurchasePayState } from '../../payments/pay-state-repository.ts';
import { closePledges, listPledges } from '../../payments/pledge-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import { closePotIfCovered, releaseGuarantee } from './close-pot.ts';
import type { PaymentDeps } from '../deps.ts';
import { resolvePledgePayment } from './pay-pledge.ts';
import { sendPotCompleteNotice, sendRestChargedNotice, sendRestFailedNotice } from '../notices/shopper-notices.ts';
import { savedCard } from '../installments/stored-card.ts';

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
 * The pot's deadline job, as a movement of the money engine (src/money/movement.ts): unpaid
 * invitations are closed under the purchase's claim; late payments of closed pledges are given
 * back; the uncovered rest is captured from the leader's guarantee (or, when the hold lapsed or
 * refused, charged off-session on the saved card): SUCCESSFUL, or FAILED when refused. The
 * guarantee is released unless the rest was captured from it.
 */
export async function settlePotDeadline(deps: PaymentDeps, accountId: string, purchaseId: string, opts: { waitMs?: number } = {}): Promise<DeadlineOutcome> {
  const out = await runMovement<Closed, Settled, Step>(deps, {
    accountId,
    purchaseId,
    operation: 'pot_settlement',
    notFound: { outcome: { kind: 'not_open' } },
    ...(opts.waitMs !== undefined ? { waitMs: opts.waitMs } : {}),
    reserve: (tx, locked, take) => closeThePot(deps, tx, locked, take),
    calls: (closed, call) => takeTheRest(deps, closed, call),
    settle: (tx, locked, answers, book, closed) => settleTheRest(deps, tx, locked, answers, book, closed),
    after: async ({ outcome, fromGuarantee = false, complete }) => {
      // The guarantee stays only where the rest was captured from it; any other hold is released.
      if (!fromGuarantee) await releaseGuarantee(deps, accountId, purchaseId);
      if (complete) await sendPotCompleteNotice(deps, accountId, purchaseId);
      if (outcome.kind === 'rest_refused') await sendRestFailedNotice(deps, accountId, purchaseId, outcome.restCents);
      if (outcome.kind === 'rest_charged') await sendRestChargedNotice(deps, accountId, purchaseId, outcome.restCents, fromGuarantee);
    },
  });
  if (isInProgress(out)) return { kind: 'wait', until: new Date(deps.clock.now().getTime() + CLAIM_RETRY_MS) };
  return out.outcome;
}

type Closed = { locked: PurchasePayState; rest: number; paidCount: number; invited: number; unresolved: string[] };
/** What the settlement ends in; whether the rest was captured from the guarantee (which then stays); whether the pledges' cover closed the pot. */
type Settled = { outcome: DeadlineOutcome; fromGuarantee?: boolean; complete?: boolean };

/** Closes the pledges still unpaid under the claim, unless one is being paid right now; answers the rest to charge. */
async function closeThePot(deps: PaymentDeps, tx: Sql, locked: PurchasePayState, take: Take): Promise<{ go: Closed } | { refuse: Settled } | InProgress> {
  const now = deps.clock.now();
  const { accountId, id: purchaseId } = locked;
  if (locked.state !== 'LEADER_PROCESSED') return { refuse: { outcome: { kind: 'not_open' } } };
  const pledges = await listPledges(tx, accountId, purchaseId);
  const inFlight = pledges.find((p) => p.state === 'paying' && p.payingUntil && p.payingUntil > now);
  if (inFlight) return { refuse: { outcome: { kind: 'wait', until: inFlight.payingUntil! } } };
  // The rest is taken under the purchase's claim (docs/money-operations.md#one-money-operation-at-a-time):
  // a refund, cancel or renewal under way first ends.
  const claim = await take();
  if (isInProgress(claim)) return claim;
  await closePledges(tx, accountId, purchaseId, ['invited', 'paying'], 'deadline', now);
  const paid = pledges.filter((p) => p.state === 'paid');
  const rest = uncovered(
    locked.amountCents,
    locked.leaderShareCents ?? 0,
    paid.map((p) => p.amountCents),
  );
  const unresolved = pledges.filter((p) => p.state === 'paying' && p.paymentId).map((p) => p.paymentId!);
  return { go: { locked, rest, paidCount: paid.length, invited: pledges.filter((p) => p.state !== 'draft').length, unresolved } };
}

/**
 * Pledges closed while a payment of theirs was unresolved (a challenge never answered, a charge
 * whose answer was never recorded): the one rule of finishPledge gives that money back. Then the
 * rest: captured from the guarantee; when the hold lapsed or its capture was refused, charged on
 * the saved card instead, on a payment row of its own.
 */
async function takeTheRest(deps: PaymentDeps, closed: Closed, call: Call<Step>): Promise<void> {
  const { db } = deps;
  const { locked, rest } = closed;
  const { accountId, id: purchaseId } = locked;
  for (const paymentId of closed.unresolved) {
    const payment = await findPayment(db, accountId, paymentId);
    if (payment) await resolvePledgePayment(deps, payment);
  }
  if (rest <= 0) return;
  const guarantee = locked.guaranteePaymentId ? await findPayment(db, accountId, locked.guaranteePaymentId) : undefined;
  if (guarantee?.psp_transaction_id && guarantee.status === 'authorized') {
    const captured = await call({ payment: guarantee, call: { op: 'capture', key: `${guarantee.idempotency_key}:rest`, amountCents: rest } });
    if (captured.status === 'captured') return;
  }
  const { psp, paymentMethodId, storedCredential } = await savedCard(deps, locked);
  await call({
    reserve: { accountId, purchaseId, purpose: 'rest', psp: psp.name, pspAccountId: psp.pspAccountId, idempotencyKey: `${purchaseId}:rest`, amountCents: rest },
    call: { op: 'chargeOffSession', paymentMethodId, currency: locked.currency, storedCredential },
  });
}

/**
 * Under the purchase's lock: the answers booked in the order they came (a refused capture of the
 * guarantee, then the charge), and the purchase moved: SUCCESSFUL when the rest was captured (or
 * the pot covered), else FAILED.
 */
async function settleTheRest(deps: PaymentDeps, tx: Sql, current: PurchasePayState, answers: Answer<Step>[], book: Book, closed: Closed): Promise<Settled> {
  const { clock } = deps;
  const { accountId, id: purchaseId, currency } = current;
  const { rest } = closed;
  if (rest <= 0) {
    return { outcome: { kind: 'covered' }, complete: await closePotIfCovered(deps, tx, current) };
  }
  for (const { payment, result } of answers) await book(payment, result);
  const last = answers.at(-1)!;
  const fromGuarantee = last.payment.id === current.guaranteePaymentId && last.result.status === 'captured';
  if (current.state !== 'LEADER_PROCESSED') return { outcome: { kind: 'settled_meanwhile', state: current.state }, fromGuarantee };
  const captured = last.result.status === 'captured';
  const comment = potDeadlineComment(closed.invited, closed.paidCount, rest, currency, captured);
  if (captured) {
    await applyMove(tx, clock, accountId, purchaseId, 'succeed', { comment, data: { rest_cents: rest } });
    return { outcome: { kind: 'rest_charged', restCents: rest }, fromGuarantee };
  }
  const reason = last.result.decline?.reason ?? 'declined';
  await applyMove(tx, clock, accountId, purchaseId, 'fail', { comment, data: { rest_cents: rest, reason } });
  return { outcome: { kind: 'rest_refused', restCents: rest, reason }, fromGuarantee };
}
