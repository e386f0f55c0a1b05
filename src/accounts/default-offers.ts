/** The terms of an offer a new account starts with (docs/schedules.md#the-offers-a-new-account-starts-with). */
export interface OfferTemplate {
  type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED';
  installments: number;
  deferredDays: number;
  feeRateBps: number;
  minAmountCents: number;
  maxAmountCents: number;
}

/**
 * Every account gets one offer per payment solution. Fees are what French "3x/4x" products
 * commonly charge; limits keep credit products inside the usual consumer-credit exemption band.
 * An operator can change any of them per offer later.
 */
export const DEFAULT_OFFERS: readonly OfferTemplate[] = [
  { type: 'SHARED', installments: 1, deferredDays: 0, feeRateBps: 0, minAmountCents: 100, maxAmountCents: 1_000_000 },
  { type: 'INSTALLMENTS', installments: 3, deferredDays: 0, feeRateBps: 150, minAmountCents: 5_000, maxAmountCents: 300_000 },
  { type: 'INSTALLMENTS', installments: 4, deferredDays: 0, feeRateBps: 220, minAmountCents: 5_000, maxAmountCents: 300_000 },
  { type: 'DEFERRED', installments: 1, deferredDays: 30, feeRateBps: 0, minAmountCents: 1_000, maxAmountCents: 150_000 },
];
