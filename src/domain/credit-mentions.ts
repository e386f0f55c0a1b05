import type { OfferType } from './offer-terms.ts';
import { addMonthsClamped } from './dates.ts';

/**
 * What a credit offer must tell the shopper beside its figures (docs/schedules.md#credit-mentions):
 * the statutory warning, the lender, and the right of withdrawal where it applies. Their words, in
 * each country's legal terms, are the credit catalogue's (src/i18n/credit-words.ts).
 */
export interface CreditMentions {
  lender: string;
  /** The right of withdrawal's period in calendar days; 0: none is offered. */
  withdrawalDays: number;
}

/** The withdrawal period of a consumer credit: fourteen calendar days (Code de la consommation, L312-19). */
export const CONSUMER_CREDIT_WITHDRAWAL_DAYS = 14;

/**
 * Whether an offer is a credit for the shopper: 3x/4x always (the rest is paid later, on the
 * lender's money), a deferred payment or a down payment's balance only when it costs something. A
 * free payment in 30 days, or a free balance after a deposit, is a delay the shop grants, outside
 * the consumer-credit rules (L312-4: no more than three months, no interest, no fees): no credit
 * box, no warning, as its e-mails already did (docs/schedules.md#credit-mentions).
 */
export function isCredit(type: OfferType, feesCents: number): boolean {
  return type === 'INSTALLMENTS' || ((type === 'DEFERRED' || type === 'DOWN_PAYMENT') && feesCents > 0);
}

/**
 * The withdrawal period an offer shows: its own setting when it has one (0: none), else 14 days,
 * except for a credit L312-4 keeps outside the consumer-credit rules on its face: repaid within
 * three months of the purchase and costing nothing. Whether small fees are "insignificant" (the
 * same article) is the lender's call, so such an offer sets 0 itself.
 */
export function withdrawalDays(offer: { withdrawalDays: number | null }, created: string, lastDueDate: string, feesCents: number): number {
  if (offer.withdrawalDays !== null) return offer.withdrawalDays;
  const withinThreeMonths = lastDueDate <= addMonthsClamped(created, 3);
  return withinThreeMonths && feesCents === 0 ? 0 : CONSUMER_CREDIT_WITHDRAWAL_DAYS;
}

/** The mentions of a credit offer's schedule (`lines`: its due dates), or undefined when it is no credit. */
export function creditMentions(
  offer: { type: OfferType; lender: string; withdrawalDays: number | null },
  created: string,
  lines: ReadonlyArray<{ payment_date: string; fees: number }>,
): CreditMentions | undefined {
  const fees = lines.reduce((sum, l) => sum + l.fees, 0);
  if (!isCredit(offer.type, fees) || lines.length === 0) return undefined;
  return { lender: offer.lender, withdrawalDays: withdrawalDays(offer, created, lines[lines.length - 1]!.payment_date, fees) };
}
