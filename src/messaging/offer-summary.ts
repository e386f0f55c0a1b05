import { formatIsoDate } from '../domain/dates.ts';
import { creditMentions } from '../domain/credit-mentions.ts';
import { offerTerms, type CreditOfferRules } from '../domain/offer-terms.ts';
import { computeSchedule, type RequestedDates } from '../domain/schedule.ts';
import type { OfferSummary } from './messenger.ts';

/**
 * What an offer is for a purchase of `amountCents` created at `createdAt`, as the messages tell
 * it: a pot, or the plan the leader will be offered (the same schedule, fees and TAEG as the
 * checkout computes, from the purchase's creation date and on the dates it asked for) with the credit's mentions. Throws
 * ScheduleError when the amount does not fit the offer (purchase creation refuses those).
 */
export function offerSummary(offer: CreditOfferRules, amountCents: number, createdAt: Date, dates: RequestedDates = {}): OfferSummary {
  if (offer.type === 'SHARED') return { type: 'SHARED' };
  const created = formatIsoDate(createdAt);
  const schedule = computeSchedule(offerTerms(offer), amountCents, created, dates);
  const lines = schedule.INSTALLMENT.map((l) => ({ dueDate: l.payment_date, amountCents: l.amount_cents + l.fees }));
  const feesCents = schedule.INSTALLMENT.reduce((sum, l) => sum + l.fees, 0);
  const first = schedule.INSTALLMENT[0]!;
  const credit = {
    financedCents: offer.type === 'DEFERRED' ? amountCents : amountCents - first.amount_cents,
    feesCents,
    totalDueCents: amountCents + feesCents,
    taegPercent: schedule.taeg,
    mentions: creditMentions(offer, created, schedule.INSTALLMENT),
  };
  if (offer.type === 'DEFERRED') return { type: 'DEFERRED', dueDate: first.payment_date, credit };
  if (offer.type === 'DOWN_PAYMENT') return { type: 'DOWN_PAYMENT', deposit: lines[0]!, balance: lines[1]!, credit };
  return { type: 'INSTALLMENTS', count: lines.length, lines, credit };
}
