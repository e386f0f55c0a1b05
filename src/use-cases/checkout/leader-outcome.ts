import type { Offer } from '../../accounts/offer.ts';
import type { Sql } from '../../db/database.ts';
import { EVENT } from '../../domain/events.ts';
import { leaderRefusedComment, type PlanProblem } from '../../domain/leader-plan.ts';
import type { RiskReason } from '../../domain/eligibility.ts';
import { riskRefusedComment } from '../../domain/risk-rules.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import type { DeclineReason, TransactionResult } from '../../psp/connector.ts';
import { markDeclined, writeEvent, type PaymentRow } from '../../payments/payment-repository.ts';
import type { Book } from '../../money/movement.ts';
import { lockPayState, setAttempts, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { applyMove, type MoveResult } from '../../purchases/transitions.ts';
import type { PaymentDeps } from '../deps.ts';
import { setPurchaseComment } from '../../purchases/purchase-repository.ts';

/**
 * What the leader's checkout answers (`LeaderOutcome`), and the writes of a refused attempt: a
 * declined card or a risk refusal counts against the offer's attempts, records `payment.failed`,
 * and the offer's last allowed attempt makes the purchase FAILED (docs/purchase-lifecycle.md#moves).
 */

export type LeaderOutcome =
  | { kind: 'processed'; state: PurchaseState }
  | { kind: 'challenge'; url: string }
  /** `atAttach`: refused as the card was registered, before any 3-D Secure step or charge (a card without 3-D Secure). */
  | { kind: 'declined'; reason: DeclineReason; message: string; attemptsLeft: number; state: PurchaseState; atAttach?: true }
  /**
   * The risk rules refused the plan before anything was authorised (docs/risk.md#the-decision-at-payment-time);
   * `fallbacks`: the offers the rules accept instead, while the purchase is still CREATED (docs/risk.md#the-fallback).
   */
  | { kind: 'risk_refused'; reasons: RiskReason[]; attemptsLeft: number; state: PurchaseState; fallbacks: Offer[] }
  | { kind: 'not_payable'; state: PurchaseState }
  | { kind: 'in_progress' }
  /**
   * The purchase moved to another offer (a fallback taken, docs/risk.md#the-fallback) between the
   * page's offer and the attempt's start: nothing was started nor charged; the leader is shown the
   * new offer's checkout and pays again on its terms.
   */
  | { kind: 'offer_changed' }
  | { kind: 'invalid'; field: string; problem: PlanProblem | { code: 'not_shared' } | { code: 'pledger_required'; message: string } | { code: 'psp_amount'; message: string } };

export type Decline = { reason: DeclineReason; message: string };

/** The purchase's state after a move: where it went, or where it stayed. */
export function stateAfter(move: MoveResult, unchanged: PurchaseState): PurchaseState {
  if (move.ok) return move.to;
  return move.reason === 'not_allowed' ? move.state : unchanged;
}

/**
 * A refusal (card not attached, authorisation or share charge refused, 3-D Secure failed), in the
 * settling transaction under the purchase's lock (`locked`): the purchase stays CREATED and
 * records `payment.failed`; the offer's last allowed attempt makes it FAILED.
 */
export async function declineAttempt(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  book: Book,
  offer: Offer,
  payment: PaymentRow,
  refusal: (Decline & { atAttach?: true }) | undefined,
  result?: TransactionResult,
): Promise<LeaderOutcome> {
  const decline = refusal ?? { reason: 'processing_error' as const, message: 'The payment could not be completed.' };
  // The PSP's answer, when it gave one, is the payment's new state; else the row is declined as it stands.
  if (result?.transactionId) await book(payment, result);
  else await markDeclined(tx, payment, decline.reason, deps.clock.now());
  const after = await failAttempt(deps, tx, locked, offer, payment, decline.reason, {});
  const outcome = {
    kind: 'declined' as const,
    reason: decline.reason,
    message: decline.message,
    attemptsLeft: Math.max(0, offer.maxAttempts - after.attempts),
    state: after.state,
  };
  return refusal?.atAttach ? { ...outcome, atAttach: true } : outcome;
}

/**
 * A refusal of the risk rules or of the account's scoring hook, in the transaction that records
 * the decision: the attempt fails as a declined card does (it counts against the offer's
 * attempts), `payment.failed` names the reasons and the purchase's comment says them
 * (docs/risk.md#what-the-merchant-sees). Nothing was sent to the PSP but the card's tokenisation.
 */
export async function riskRefused(
  deps: PaymentDeps,
  tx: Sql,
  offer: Offer,
  payment: PaymentRow,
  decisionId: string,
  reasons: RiskReason[],
  fallbacks: Offer[],
): Promise<LeaderOutcome> {
  const codes = reasons.map((r) => r.code);
  const locked = await lockPayState(tx, payment.account_id, payment.purchase_id);
  await markDeclined(tx, payment, 'risk_refused', deps.clock.now());
  const after = await failAttempt(deps, tx, locked, offer, payment, 'risk_refused', { risk: { decision_id: decisionId, reasons: codes } }, riskRefusedComment(codes));
  return {
    kind: 'risk_refused',
    reasons,
    attemptsLeft: Math.max(0, offer.maxAttempts - after.attempts),
    state: after.state,
    fallbacks: after.state === 'CREATED' ? fallbacks : [],
  };
}

/**
 * The failed attempt's writes once its payment row is written, under the purchase's lock (`locked`):
 * the attempts count, `payment.failed`, and FAILED after the offer's last attempt.
 */
async function failAttempt(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  offer: Offer,
  payment: PaymentRow,
  reason: DeclineReason | 'risk_refused',
  data: Record<string, unknown>,
  comment?: string,
): Promise<{ state: PurchaseState; attempts: number }> {
  const { clock } = deps;
  const now = clock.now();
  if (locked.state !== 'CREATED') return { state: locked.state, attempts: locked.attempts };
  const attempts = locked.attempts + 1;
  await setAttempts(tx, payment.account_id, payment.purchase_id, attempts);
  await writeEvent(tx, payment.account_id, payment.purchase_id, EVENT.paymentFailed, locked.state, { reason, payment_id: payment.id, attempt: attempts, ...data }, now);
  if (attempts < offer.maxAttempts) {
    if (comment !== undefined) await setPurchaseComment(tx, payment.account_id, payment.purchase_id, comment, now);
    return { state: locked.state, attempts };
  }
  const failed = await applyMove(tx, clock, payment.account_id, payment.purchase_id, 'fail', {
    comment: comment ?? leaderRefusedComment(attempts, reason),
    data: { reason },
  });
  return { state: stateAfter(failed, locked.state), attempts };
}
