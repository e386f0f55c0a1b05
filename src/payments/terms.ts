import type { Offer } from '../accounts/offers.ts';
import { formatIsoDate } from '../domain/apr.ts';
import type { OfferTerms } from '../domain/schedule.ts';

/** The schedule engine's view of an offer. */
export function offerTerms(offer: Offer): OfferTerms {
  return {
    type: offer.type === 'DEFERRED' ? 'DEFERRED' : 'INSTALLMENTS',
    installments: offer.installments,
    deferredDays: offer.deferredDays,
    feeRateBps: offer.feeRateBps,
    fixedFeeCents: offer.fixedFeeCents,
    minAmountCents: offer.minAmountCents,
    maxAmountCents: offer.maxAmountCents,
    fundingCapCents: offer.fundingCapCents,
    debitRateBps: offer.debitRateBps,
    usuryCeilingBps: offer.usuryCeilingBps,
  };
}

/** A purchase's creation day, as schedules count it (UTC). */
export function toIsoDate(date: Date): string {
  return formatIsoDate(date);
}
