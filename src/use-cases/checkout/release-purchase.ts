import type { Actor } from '../../audit/audit-log.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import { cancelPurchase } from './cancel-purchase.ts';
import type { PaymentDeps } from '../deps.ts';
import type { InProgress } from '../../money/claim.ts';

export type ReleaseOutcome =
  /** Nothing is held for the purchase any more: cancelled now, or already (`already`: a repeated release, an expiry, an abort). */
  | { kind: 'released'; state: PurchaseState; already: boolean }
  /** Malformed, unknown and other accounts' purchases alike. */
  | { kind: 'not_found' }
  /** Money was captured: the merchant has it, so it is refunded instead (a refund, or `credit_by_transfer` in transfer mode). */
  | { kind: 'captured'; state: PurchaseState }
  /** Settled otherwise (failed, refunded): nothing to release. */
  | { kind: 'not_releasable'; state: PurchaseState }
  | InProgress;

/** States in which nothing is held for the purchase and nothing will be charged: a release asked again finds its work done. */
const RELEASED: readonly PurchaseState[] = ['CANCELLED', 'ABORTED'];

/**
 * The original interface's `release` (docs/money-operations.md#release): the merchant gives up a
 * purchase whose money it has not taken, and the shopper gets everything back at once. In Chipin
 * that is the merchant's cancel (`cancelPurchase`, docs/purchase-lifecycle.md#cancel): under the
 * purchase's claim it goes CANCELLED, its holds are voided at their PSP (a void refused is followed
 * up until it is given back), open pledges closed and installments not collected dropped. Money
 * already captured is the merchant's to refund, not to release. Idempotent: a purchase that holds
 * nothing any more (cancelled, expired, aborted) answers as released.
 */
export async function releasePurchase(deps: PaymentDeps, input: { accountId: string; purchaseId: string; actor: Actor }): Promise<ReleaseOutcome> {
  const outcome = await cancelPurchase(deps, input);
  switch (outcome.kind) {
    case 'cancelled':
      return { kind: 'released', state: outcome.state, already: false };
    case 'not_cancellable':
      return RELEASED.includes(outcome.state) ? { kind: 'released', state: outcome.state, already: true } : { kind: 'not_releasable', state: outcome.state };
    default:
      return outcome;
  }
}
