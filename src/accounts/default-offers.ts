import type { OfferType } from '../domain/offer-terms.ts';
/** The terms of an offer a new account starts with (docs/schedules.md#the-offers-a-new-account-starts-with). */
export interface OfferTemplate {
  type: OfferType;
  installments: number;
  deferredDays: number;
  /** DOWN_PAYMENT only (docs/schedules.md#down-payment); null for the other types. */
  depositPercent: number | null;
  maxBalanceDelayDays: number | null;
  feeRateBps: number;
  minAmountCents: number;
  maxAmountCents: number;
}

/**
 * Every account gets one offer per payment solution. Fees are what French "3x/4x" products
 * commonly charge; limits keep credit products inside the usual consumer-credit exemption band.
 * A down payment takes 30 % now and the balance within 60 days, free (the shop grants the delay),
 * as deposits for made-to-order goods and bookings commonly are. An operator can change the fees
 * and limits of any of them per offer later.
 */
export const DEFAULT_OFFERS: readonly OfferTemplate[] = [
  { type: 'SHARED', installments: 1, deferredDays: 0, depositPercent: null, maxBalanceDelayDays: null, feeRateBps: 0, minAmountCents: 100, maxAmountCents: 1_000_000 },
  { type: 'INSTALLMENTS', installments: 3, deferredDays: 0, depositPercent: null, maxBalanceDelayDays: null, feeRateBps: 150, minAmountCents: 5_000, maxAmountCents: 300_000 },
  { type: 'INSTALLMENTS', installments: 4, deferredDays: 0, depositPercent: null, maxBalanceDelayDays: null, feeRateBps: 220, minAmountCents: 5_000, maxAmountCents: 300_000 },
  { type: 'DEFERRED', installments: 1, deferredDays: 30, depositPercent: null, maxBalanceDelayDays: null, feeRateBps: 0, minAmountCents: 1_000, maxAmountCents: 150_000 },
  { type: 'DOWN_PAYMENT', installments: 2, deferredDays: 0, depositPercent: 30, maxBalanceDelayDays: 60, feeRateBps: 0, minAmountCents: 1_000, maxAmountCents: 300_000 },
];
