import { isLeaderPurpose, LEADER_BUSY_MS, LEADER_PURPOSES, planLeaderPayment } from '../../domain/leader-plan.ts';
import { threeDSecureInput, type ChallengeReturn, type TransactionResult } from '../../psp/connector.ts';
import { leaderReturnUrl } from '../../domain/links.ts';
import { savedPspMethodId } from '../../payments/payment-method-repository.ts';
import { findPurchasePayment, markDeclined, type PaymentRow } from '../../payments/payment-repository.ts';
import { runMovement, type Call } from '../../money/movement.ts';
import { isInProgress } from '../../money/claim.ts';
import { unresolvedLeaderAttempt, type UnresolvedPayment } from '../../payments/unresolved-payment-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { draftShares } from '../../payments/pledge-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { storeForLater } from '../installments/stored-card.ts';
import { afterLeader, callsAfterAuthorisation, settleLeader, type LeaderCheckout, type LeaderMade, type LeaderSettled, type LeaderStep } from './leader-after-authorisation.ts';
import type { LeaderOutcome } from './leader-outcome.ts';

/**
 * A leader's checkout attempt left unresolved (a crash between the PSP's answer and its recording,
 * an unanswered or completed 3-D Secure challenge) brought to its outcome: on the return from
 * 3-D Secure, on the hosted page's wait, before a new attempt and by the reconciliation job
 * (docs/money-operations.md#payments-in-doubt).
 */

/**
 * After the 3-D Secure challenge: the PSP's outcome of the leader's authorisation decides. The
 * payment is found by the purchase AND its id (docs/security.md#returns-and-ids): another
 * purchase's payment, or one that is no leader authorisation sent to the PSP, is `not_found` and
 * nothing is asked of the PSP.
 */
export async function resumeLeaderAfterChallenge(
  deps: PaymentDeps,
  purchase: { id: string; accountId: string },
  paymentId: string,
  returned?: ChallengeReturn,
): Promise<LeaderOutcome | { kind: 'not_found' }> {
  const { db, offers } = deps;
  const { accountId } = purchase;
  const payment = await findPurchasePayment(db, accountId, purchase.id, paymentId);
  if (!payment || !isLeaderPurpose(payment.purpose) || !payment.psp_transaction_id) return { kind: 'not_found' };
  const state = (await loadPayState(db, accountId, payment.purchase_id))!;
  if (state.state !== 'CREATED') {
    // Aborted or expired while the shopper was in 3-D Secure: what the challenge let the PSP
    // take is given back now rather than at the next reconciliation.
    const unresolved = payment.status === 'requires_action' || payment.status === 'pending';
    return (unresolved && (await resolveLeaderAttempt(deps, payment, 0))) || { kind: 'not_payable', state: state.state };
  }
  const offer = (await offers.byId(accountId, state.offerId))!;
  // The plan is not stored: computed again from the drafts the leader submitted and the offer,
  // fixed since the attempt started (docs/risk.md#the-fallback), it is the same.
  const plan = planLeaderPayment(offer, state.amountCents, await draftShares(db, accountId, payment.purchase_id), state.createdAt, state.requestedDates);
  if ('problem' in plan) return { kind: 'invalid', field: 'pledgers', problem: plan.problem };
  const pspMethodId = (await savedPspMethodId(db, accountId, payment.purchase_id))!;
  const checkout = { offer, plan, payment };
  const outcome = await runLeaderMovement(deps, checkout, async (call) => {
    const auth = await call({ role: 'auth', payment, call: { op: 'retrieve', ...(returned ? { returned } : {}) } });
    return callsAfterAuthorisation(checkout, pspMethodId, auth, call);
  });
  return outcome ?? { kind: 'in_progress' };
}

/**
 * Resolves a leader checkout attempt left `pending` or `requires_action`, untouched for at least
 * `minAgeMs` (younger, it may still be running: answered "in progress"). Used by a retry, a new
 * attempt and the reconciliation job alike:
 * - pending, never sent (no card on the row): marked abandoned, nothing was charged;
 * - pending, sent: the authorisation is replayed with the same idempotency key and card — the PSP
 *   answers its stored outcome — and the checkout continues as the first attempt would have;
 * - awaiting 3-D Secure: the PSP is asked; completed, the checkout continues; still pending, the
 *   challenge is voided so that it can never be completed after another attempt charged.
 * Answers the outcome of the resolved attempt, or undefined when it charged nothing.
 */
export async function resolveLeaderAttempt(deps: PaymentDeps, payment: PaymentRow & { lease?: UnresolvedPayment['lease'] }, minAgeMs: number): Promise<LeaderOutcome | undefined> {
  const { db, clock, offers } = deps;
  const now = clock.now();
  // A request still running it (its lease live) is never overtaken; one whose lease lapsed is in
  // doubt whatever its age (docs/money-operations.md#payments-in-doubt); the age rule is for
  // attempts without a lease.
  if (payment.lease === 'live') return { kind: 'in_progress' };
  if (payment.lease !== 'lapsed' && now.getTime() - new Date(payment.updated_at).getTime() < minAgeMs) return { kind: 'in_progress' };
  const { account_id: accountId, purchase_id: purchaseId } = payment;
  const state = (await loadPayState(db, accountId, purchaseId))!;
  const offer = (await offers.byId(accountId, state.offerId))!;
  if (payment.status === 'pending' && !payment.psp_method_id) {
    await markDeclined(db, payment, 'abandoned', now);
    return undefined;
  }
  // The plan is not stored: computed again from the drafts the leader submitted and the offer,
  // fixed since the attempt started (docs/risk.md#the-fallback), it is the same.
  const plan = planLeaderPayment(offer, state.amountCents, await draftShares(db, accountId, purchaseId), state.createdAt, state.requestedDates);
  if ('problem' in plan) return { kind: 'invalid', field: 'pledgers', problem: plan.problem };
  const pspMethodId = payment.psp_method_id ?? (await savedPspMethodId(db, accountId, purchaseId))!;
  const checkout = { offer, plan, payment };
  return runLeaderMovement(deps, checkout, async (call) => {
    let auth: TransactionResult;
    if (payment.status === 'pending') {
      const input = {
        paymentMethodId: payment.psp_method_id!,
        currency: state.currency,
        capture: plan.capture,
        returnUrl: payment.psp_return_url ?? leaderReturnUrl(deps.publicUrl, purchaseId, payment.id),
        storeForLater: storeForLater(plan),
        ...threeDSecureInput(offer.use3ds),
      };
      auth = await call({ role: 'auth', payment, call: { op: 'authorize', input } });
    } else {
      auth = await call({ role: 'auth', payment, call: { op: 'retrieve' } });
      if (auth.status === 'requires_action') {
        const voided = await call({ role: 'abandon', payment, latest: auth, call: { op: 'void', key: `${payment.idempotency_key}:abandon` } });
        // Refused: the shopper completed the challenge in between; its outcome decides.
        auth = voided.status === 'voided' ? voided : await call({ role: 'auth', payment, latest: voided, call: { op: 'retrieve' } });
        if (auth.status === 'voided') return { abandoned: auth };
      }
    }
    // The purchase moved on (aborted, expired) while the attempt was unresolved: the outcome is
    // recorded and what it holds given back.
    if (state.state !== 'CREATED' && auth.status !== 'requires_action') return { late: auth };
    return callsAfterAuthorisation(checkout, pspMethodId, auth, call);
  });
}

/**
 * The steps after the leader's authorisation as a money movement on an attempt already reserved
 * (a resolution, the return from 3-D Secure): no claim and no reservation of its own — the
 * attempt's row is the reservation — the calls `calls` makes, then the leader's settlement.
 */
async function runLeaderMovement(deps: PaymentDeps, checkout: LeaderCheckout, calls: (call: Call<LeaderStep>) => Promise<LeaderMade>): Promise<LeaderOutcome | undefined> {
  const { payment } = checkout;
  const out = await runMovement<LeaderCheckout, LeaderSettled, LeaderStep, LeaderMade>(deps, {
    accountId: payment.account_id,
    purchaseId: payment.purchase_id,
    operation: null,
    notFound: { outcome: undefined, giveBack: [] },
    reserve: () => Promise.resolve({ go: checkout }),
    calls: (_checkout, call) => calls(call),
    settle: (tx, locked, answers, book, go, made) => settleLeader(deps, tx, locked, book, go, answers, made),
    after: (settled, go) => afterLeader(deps, go, settled),
  });
  return isInProgress(out) ? { kind: 'in_progress' } : out.outcome;
}

/**
 * The hosted page's wait for the leader's attempt in progress (docs/hosted-payment.md#an-attempt-in-progress):
 * a `pending` attempt is resolved once it is in doubt — untouched for LEADER_BUSY_MS, as a new
 * attempt would resolve it — and `in_progress` is answered before; a 3-D Secure challenge is left
 * to its own page. Undefined when there is no such attempt, or it charged nothing.
 */
export async function confirmLeaderAttempt(deps: PaymentDeps, purchase: { id: string; accountId: string }): Promise<LeaderOutcome | undefined> {
  const unresolved = await unresolvedLeaderAttempt(deps.db, purchase.accountId, purchase.id, LEADER_PURPOSES);
  if (!unresolved || unresolved.status !== 'pending') return undefined;
  return resolveLeaderAttempt(deps, unresolved, LEADER_BUSY_MS);
}
