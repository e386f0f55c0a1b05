import type { OfferTerms } from './schedule.ts';

/** The payment solutions an offer sells (docs/schedules.md#rules): a pot, installments, a deferred payment, a deposit and a balance. */
export type OfferType = 'SHARED' | 'INSTALLMENTS' | 'DEFERRED' | 'DOWN_PAYMENT';

export const OFFER_TYPES: readonly OfferType[] = ['SHARED', 'INSTALLMENTS', 'DEFERRED', 'DOWN_PAYMENT'];

/**
 * The rule-bearing fields of an offer, structurally (the data layer's `Offer` has them all), so
 * that domain rules need nothing from the data layer.
 */
export type OfferRules = Omit<OfferTerms, 'type'> & { type: OfferType };

/** The rules and the credit mentions' settings (domain/credit-mentions.ts): what the messages read of an offer. */
export type CreditOfferRules = OfferRules & { lender: string; withdrawalDays: number | null };

/** The schedule engine's view of an offer. */
export function offerTerms(offer: OfferRules): OfferTerms {
  return {
    type: offer.type === 'SHARED' ? 'INSTALLMENTS' : offer.type,
    installments: offer.installments,
    deferredDays: offer.deferredDays,
    depositPercent: offer.depositPercent ?? null,
    maxBalanceDelayDays: offer.maxBalanceDelayDays ?? null,
    feeRateBps: offer.feeRateBps,
    fixedFeeCents: offer.fixedFeeCents,
    minAmountCents: offer.minAmountCents,
    maxAmountCents: offer.maxAmountCents,
    fundingCapCents: offer.fundingCapCents,
    debitRateBps: offer.debitRateBps,
    usuryCeilingBps: offer.usuryCeilingBps,
  };
}
