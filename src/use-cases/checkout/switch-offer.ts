import type { OfferCache } from '../../accounts/offers.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { EVENT } from '../../domain/events.ts';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import { LEADER_PURPOSES, planLeaderPayment } from '../../domain/leader-plan.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import { writeEvent } from '../../payments/payment-repository.ts';
import { unresolvedLeaderAttempt } from '../../payments/unresolved-payment-repository.ts';
import { lockPayState, loadPayState, setPurchaseOffer } from '../../payments/pay-state-repository.ts';
import { insertDraftPledges } from '../../payments/pledge-repository.ts';
import type { RiskRulesCache } from '../../risk/risk-rules-cache.ts';
import { rulesInEffect } from '../../risk/risk-rules-repository.ts';

export interface SwitchOfferDeps {
  db: Database;
  clock: Clock;
  offers: OfferCache;
  riskRules: RiskRulesCache;
}

/** Why a switch is refused: the hosted page words each in the shopper's language. */
type SwitchRefusal =
  /** The target is not among the current offer's fallbacks (or not an offer of the account). */
  | { code: 'not_offered' }
  /** The target offer cannot take this purchase: another currency, outside its amount limits, no schedule. */
  | { code: 'amount' };

export type SwitchOutcome =
  | { kind: 'switched'; from: string; to: string }
  | { kind: 'not_found' }
  /**
   * The offer is fixed (docs/risk.md#the-fallback): the leader's attempt has started. `retryable`
   * while that attempt is unresolved (pending, or awaiting 3-D Secure): once refused, it lets the
   * switch through. Not retryable once the purchase is past CREATED (`state`).
   */
  | { kind: 'offer_fixed'; retryable: boolean; state: PurchaseState }
  | { kind: 'refused'; refusal: SwitchRefusal };

/**
 * After a risk refusal, the leader takes one of the offer's fallbacks (docs/risk.md#the-fallback):
 * in one transaction, under the purchase's row lock, a CREATED purchase with no attempt under way
 * (else `offer_fixed`) moves to `toOfferId` (`mer_…`) when the current offer's rules in effect list it in
 * `fallback_offers` and the target's own limits take the amount. The purchase keeps its amount,
 * its attempts and its expiry; the event `purchase.offer_changed` `{from, to}` records the change
 * (no webhook is sent for it). The next payment is decided on the new offer's rules.
 */
export async function switchOffer(deps: SwitchOfferDeps, accountId: string, purchaseId: string, toOfferId: string): Promise<SwitchOutcome> {
  const before = await loadPayState(deps.db, accountId, purchaseId);
  if (!before) return { kind: 'not_found' };
  const targetId = parsePublicId('mer', toOfferId);
  const target = targetId === undefined ? undefined : await deps.offers.byId(accountId, targetId);
  const stored = await deps.riskRules.rules(accountId);
  return deps.db.transaction(async (tx): Promise<SwitchOutcome> => {
    const locked = await lockPayState(tx, accountId, purchaseId);
    const refused = (refusal: SwitchRefusal): SwitchOutcome => ({ kind: 'refused', refusal });
    // The leader's attempt reserves its payment row under this same lock, with the offer it was
    // planned on: from then on the offer is fixed until the attempt is refused.
    if (locked.state !== 'CREATED') return { kind: 'offer_fixed', retryable: false, state: locked.state };
    if (await unresolvedLeaderAttempt(tx, accountId, purchaseId, LEADER_PURPOSES)) return { kind: 'offer_fixed', retryable: true, state: locked.state };
    const from = toPublicId('mer', locked.offerId);
    const offered = rulesInEffect(stored, locked.offerId).fallback_offers ?? [];
    if (!target || target.id === locked.offerId || !offered.includes(toPublicId('mer', target.id))) return refused({ code: 'not_offered' });
    const fits =
      target.currency === locked.currency &&
      locked.amountCents >= target.minAmountCents &&
      locked.amountCents <= target.maxAmountCents &&
      !('problem' in planLeaderPayment(target, locked.amountCents, [], locked.createdAt, locked.requestedDates));
    if (!fits) return refused({ code: 'amount' });
    const now = deps.clock.now();
    const to = toPublicId('mer', target.id);
    await setPurchaseOffer(tx, accountId, purchaseId, target, now);
    // A pot's invitations typed on the old offer are its own: the new checkout starts without them.
    await insertDraftPledges(tx, accountId, purchaseId, [], now);
    await writeEvent(tx, accountId, purchaseId, EVENT.offerChanged, locked.state, { from, to }, now);
    return { kind: 'switched', from, to };
  });
}
